"""Felinia's preferences (rulebooks/felinia.rules, "The bots' preferences"; docs/language.md
§2.19c): their values at decisions reached from a seeded start, worked out by hand from the
rules, and whole games played by `prefer` seats at every player count.

The numbers are in the estimate's twelfths of a point (est_unit = 12; silver_worth = 4). The
island's pattern is the same in every country (rulebook table region_yield): the harbour X1
yields nothing, X2 and X6 a good, X3 silver, X4 and X7 gold, X5 spice; the roads inside a
country are X1–X2–X3–X4, X1–X5–X6–X7, X3–X6, X4–X7, so X2 and X5 lie 1 step from the harbour,
X3 and X6 2, X4 and X7 3."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from game_driver import program

from mercator.interpreter.agents.base import PreferAgent, play_out, resolve_chance
from mercator.interpreter.engine.nodes import Decision

ROOT = Path(__file__).resolve().parents[1]
MOVE = "merchant: stop here, walk along a road, or reveal trade tokens"



@pytest.fixture(scope="module")
def felinia() -> Any:
    return program(ROOT / "rulebooks" / "felinia.rules")


def _labels(pend: Decision) -> list[str]:
    return [o.label for o in pend.options if o.action is None]


def _play_until(prog: Any, s: Any, prompt: str, seed: int) -> Any:
    """Play `prefer` seats from s to the first decision whose prompt begins with `prompt`."""
    bots = [PreferAgent(seed + p) for p in range(s.num_players)]
    while not s.over:
        pend = s.pending
        if not isinstance(pend, Decision):
            prog.apply(s, resolve_chance(s))
            continue
        if pend.prompt.startswith(prompt):
            return s
        prog.apply(s, bots[pend.player].choose(prog, s))
    raise AssertionError(f"no decision {prompt!r} before the end")


def test_the_first_disc_values_income_at_one_silver(felinia: Any) -> None:
    """The start player's first disc: income gives +1 (seed 004 §遊戲回合 1) a.: the first disc
    +1) on his 2 starting silver (§起始設置 8c), and a silver is worth 4 twelfths while he has 2
    to spare (fn silver_value: neither all but spent nor near the cap of 6; the ship tiles are
    far from running out) — 4. Every market row and the guild is within his 2 silver (price 1)."""
    s = felinia.new_game(3, 7)
    pend = s.pending
    assert pend.prompt.startswith("place an action disc")
    prefs = felinia.preferences(s, pend.count - len(pend.actions))
    labels = _labels(pend)
    assert labels[0].startswith("income")
    assert prefs[0] == 4
    assert all(v > -99 for v in prefs)            # every spot affordable


def test_a_first_landing_walks_before_it_turns_up(felinia: Any) -> None:
    """The first merchant to land on an empty island (no trade post, no merchant staying), his 3
    moves left (walker_moves; §遊戲回合 3), each line of his landing planned to its end (fn plan):
    - stop, in the harbour: no yield, no post — 0;
    - walk: a step to X2 (a good: 12) and the best line from there with 2 moves: a turn-up of
      its own token, which he stands on — its yield, the token at its colour's average with no
      set yet (min(0 + 1, n) = 1 for every printed maximum n: 12), the merchant who stays alone
      (1 point: 12), 0 steps: 36 — less a point (12) for the other token turned up and left to
      the others (fn left_post_cost; more than 1 face-down token in the country): 24, the
      first step not charged (the anchor charges no step; the line by X5 is worse: X6's token 1
      step from X5, 36 - 1 - 12 = 23);
    - reveal: a face-down token reachable with the 2 moves left: X2, 36 - 1 step - 12 = 23 —
      the same line as the walk's, the moves in the other order, but for the step it counts
      (counted three times over, less 1 for a walk and 2 for a turn-up, the ties broken as the
      anchor: the walk 3 x 24 - 1 = 71, the turn-up 3 x 23 - 2 = 67; stop 3 x 0).
    The tokens turned up (two of brown_2..brown_7's; roads 1-2, 2-3, 3-4, 1-5, 5-6, 3-6, 6-7,
    4-7, the harbour on brown_1; 3 moves left, so a token 2 steps away is reachable after
    the turn-up): the better token he can reach, and the other, left to the others, a third of
    its own worth if he could reach it, less a third of a point (4) for each step nearer its
    harbour than 4. Each reachable token's worth, its yield + 12 (token) + 12 (merchant) less
    its steps: brown_2 (a good, 1 step) 35, brown_3 (silver, 4; 2 steps) 26, brown_5 (spice, 6;
    1 step) 29, brown_6 (a good, 2 steps) 34; brown_4 and brown_7 are 3 steps away. Left to the
    others: brown_3 26 / 3 - 4 x (4 - 2) = 0, brown_5 9 - 12 = -3, brown_6 11 - 8 = 3, brown_4
    and brown_7 0 - 4 x (4 - 3) = -4. So brown_2 with brown_6 is best, 35 + 3 = 38; with brown_3
    35, brown_5 32, brown_4 or brown_7 31; brown_6 with brown_3 34 + 0."""
    prog = felinia
    s = _play_until(prog, prog.new_game(3, 11), MOVE, 11)
    pend = s.pending
    assert prog.get(s, "occupant") == {} and prog.get(s, "face_up") == []
    labels = _labels(pend)
    prefs = dict(zip(labels, prog.preferences(s, len(labels))))
    assert prefs == {"stop": 0, "walk": 71, "reveal": 67}
    prog.apply(s, labels.index("reveal"))
    assert s.pending.prompt.startswith("reveal which trade tokens")
    got = dict(zip(_labels(s.pending), prog.preferences(s, len(_labels(s.pending))) or []))
    assert {k: got[k] for k in ("brown_2+brown_6", "brown_2+brown_3", "brown_2+brown_5",
                                "brown_2+brown_4", "brown_2+brown_7", "brown_3+brown_6")} == {
        "brown_2+brown_6": 38, "brown_2+brown_3": 35, "brown_2+brown_5": 32,
        "brown_2+brown_4": 31, "brown_2+brown_7": 31, "brown_3+brown_6": 34}
    assert max(got.values()) == 38


def test_a_walk_values_each_step_by_the_best_line_beyond_it(felinia: Any) -> None:
    """After a first landing's walk is chosen, the step, with the 2 moves left after it (fn plan):
    toward X2, a turn-up there of its own token (a good 12 + the token 12 + the merchant 12, less
    a point for the other token left: 24) beats its good (12) and any step on (X3's token turned
    up from X3 with no move left after: 4 + 24 - 12 - 1 = 15) — 24; toward X5, a turn-up there
    and X6's token a step on (12 + 24 - 1 - 12 = 23), or a step to X6 and its own token turned
    up (36 - 12 - 1 = 23) — 23."""
    prog = felinia
    s = _play_until(prog, prog.new_game(3, 11), MOVE, 11)
    labels = _labels(s.pending)
    prog.apply(s, labels.index("walk"))
    pend = s.pending
    assert pend.prompt.startswith("walk to which region")
    got = dict(zip(_labels(pend), prog.preferences(s, len(_labels(pend)))))
    assert {k.rsplit("_", 1)[1]: v for k, v in got.items()} == {"2": 24, "5": 23}


def test_a_walk_to_a_neighbour_country_before_a_turn_up_here(felinia: Any) -> None:
    """Seed 11's first landing walks to brown_2 (the test above) and stands there with 2 moves
    left (walker_moves), every token face down. brown_2 has a road to yellow_2 (rulebook table
    roads: X2 of brown to X2 of yellow).
    - stop: on a face-down token, its yield only: a good, 12;
    - walk: to yellow_2 and a turn-up there with its last move, its own token taken (12 + 12 +
      12, 0 steps) less a point for the other left (12): 24 — the step not charged;
    - reveal: brown_2's own token, 0 steps: 36 - 12 = 24.
    They tie as the anchor counts them (it charges no step): counted three times over, less 1
    for a walk and 2 for a turn-up, 36, 71, 70 — the walk first, as the anchor's walk_value
    (its turn-up in yellow leaves a token far from yellow's harbour to the others, where one
    here may leave one a step from brown's)."""
    prog = felinia
    s = _play_until(prog, prog.new_game(3, 11), MOVE, 11)
    prog.apply(s, _labels(s.pending).index("walk"))
    prog.apply(s, _labels(s.pending).index("brown_2"))
    pend = s.pending
    assert pend.prompt.startswith(MOVE)
    assert prog.get(s, "walker_moves") == 2 and prog.get(s, "face_up") == []
    labels = _labels(pend)
    assert dict(zip(labels, prog.preferences(s, len(labels)))) == {
        "stop": 36, "walk": 71, "reveal": 70}
    prog.apply(s, labels.index("walk"))
    got = dict(zip(_labels(s.pending), prog.preferences(s, len(_labels(s.pending)))))
    assert got["yellow_2"] == 24 and max(got.values()) == 24


def test_after_a_turn_up_he_counts_the_move_it_took(felinia: Any) -> None:
    """The first landing of seed 11 turns up brown_2 and brown_6 from the harbour brown_1 (the
    test above). He stands on the harbour again with 2 moves left (walker_moves: the turn-up
    was a move, §遊戲回合 3) a.), and a walk's step leaves 1. A post for him, alone and with no
    token yet: its yield + 12 (the token: min(0 + 1, n)) + 12 (the merchant) — brown_2 (a good)
    36, brown_6 (a good) 36.
    - stop: the harbour, nothing: 0;
    - walk: to brown_2, its post 36; to brown_5, the post on brown_6 a step on, 36 - 1 = 35 (a
      turn-up on brown_5 with no move left after it: its own token, 6 + 24 - 12 = 18); the
      first step not charged: 36;
    - reveal: a face-down brown token within the 1 move left after it: brown_5 (spice, 6), 6 +
      12 + 12 - 1 step = 29, less a point for the other token left (12): 17.
    Each counted three times over, less 1 for a walk and 2 for a turn-up (the ties broken as the
    test above): 0, 107, 49. Then the step: brown_2 36, brown_5 35."""
    prog = felinia
    s = _play_until(prog, prog.new_game(3, 11), MOVE, 11)
    prog.apply(s, _labels(s.pending).index("reveal"))
    prog.apply(s, _labels(s.pending).index("brown_2+brown_6"))
    pend = s.pending
    assert pend.prompt.startswith(MOVE)            # still on brown_1 (the steps below)
    labels = _labels(pend)
    assert dict(zip(labels, prog.preferences(s, len(labels)))) == {
        "stop": 0, "walk": 107, "reveal": 49}
    prog.apply(s, labels.index("walk"))
    got = dict(zip(_labels(s.pending), prog.preferences(s, len(_labels(s.pending)))))
    assert got == {"brown_2": 36, "brown_5": 35}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_prefer_seats_play_whole_games(felinia: Any, players: int) -> None:
    """Whole games by `prefer` seats end, with the rulebook's invariants holding throughout;
    every decision of Felinia has a preference."""
    uncovered = []

    class Checked(PreferAgent):
        def choose(self, prog: Any, state: Any) -> int:
            pend = state.pending
            if prog.preferences(state, pend.count - len(pend.actions)) is None:
                uncovered.append(pend.prompt)
            return super().choose(prog, state)

    def check(state: Any, node: Any, i: int, label: str) -> None:
        assert felinia.check_invariants(state) == []

    fin = play_out(felinia, felinia.new_game(players, 100 + players),
                   [Checked(players * 10 + p) for p in range(players)], on_step=check)
    assert fin.over and len(fin.result.scores) == players
    assert uncovered == []


def _moves_counted(prog: Any, s: Any, bots: list) -> int:
    """Play s to its end with `bots` (narration on), counting each landing merchant's moves as
    seed 004 §遊戲回合 3) has them — 3 when he lands (the log's "lands a merchant at"), one less
    for each step (c., "walks to") or turn-up (a., the decision "reveal which trade tokens"),
    and in the advanced game one more for each provision spent (進階版 b., "spends a provision")
    — and check at every decision that the table's walker_moves is that count while a merchant
    is on the move and 0 otherwise. Returns the island decisions checked."""
    s.narrate = True
    left = 0                        # the moves left of the merchant on the move
    seen = 0                        # the log lines read
    checked = 0
    while not s.over:
        pend = s.pending
        if not isinstance(pend, Decision):
            prog.apply(s, resolve_chance(s))
            continue
        for line in s.messages[seen:]:
            if "lands a merchant at" in line:
                left = 3
            elif " walks to " in line:
                left -= 1
            elif "spends a provision" in line:
                left += 1
        seen = len(s.messages)
        if prog.get(s, "walker") is None:
            assert prog.get(s, "walker_moves") == 0
        else:
            assert prog.get(s, "walker_moves") == left
            checked += 1
        prog.apply(s, bots[pend.player].choose(prog, s))
        if pend.prompt.startswith("reveal which trade tokens"):
            left -= 1
    return checked


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_the_table_shows_the_moves_left_of_the_merchant_on_the_move(felinia: Any, seed: int) -> None:
    """walker_moves (table bookkeeping, read by the island's preferences) is the moves left of
    the merchant on the move at every decision of a played game: 3 on landing (seed 004
    §遊戲回合 3): 最多3次的移動行動), one less for each step or turn-up, and 0 when no merchant
    is on the move."""
    s = felinia.new_game(3, seed)
    assert _moves_counted(felinia, s, [PreferAgent(seed + p) for p in range(3)]) > 20


class _SpendsProvisions(PreferAgent):
    """A `prefer` seat that spends a provision for one more move whenever it may."""

    def choose(self, prog: Any, state: Any) -> int:
        labels = _labels(state.pending)
        return labels.index("provision") if "provision" in labels else super().choose(prog, state)


@pytest.mark.parametrize("seed", [5, 8])
def test_the_advanced_game_counts_a_provision_in_the_moves_left(seed: int) -> None:
    """The advanced game replaces proc land (rulebooks/variants/felinia_advanced.rules): a
    provision spent gives one more move (seed 004 §遊戲回合 3) b. 進階版), and walker_moves
    counts it (seats that spend every provision they may)."""
    adv = program(ROOT / "rulebooks" / "variants" / "felinia_advanced.rules")
    s = adv.new_game(3, seed)
    assert _moves_counted(adv, s, [_SpendsProvisions(seed + p) for p in range(3)]) > 20
    assert any("spends a provision" in line for line in s.messages)
