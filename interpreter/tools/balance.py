"""The balance measures of a rulebook over many played games (issue 40, docs/balance.md
"Measures"): advantage by seat, balance, drawishness, game length, decisiveness, lead changes,
comebacks, how often each rule runs, options a seat takes so often they look dominant, and the
rulebook's declared stats.

They are computed from Outcomes (tools/parallel.py); all but advantage, balance, drawishness,
length and stats need each game's detail (`play_one(..., detail=True)`,
tools/game_detail.py), and are left out when no game has one. Failed games are not counted.

Each measure is a Measure: a name, a value, a 95% interval where one makes sense, the values by
seat where the measure has them, its unit and a note — a table row or a plot's point as it is.
`measure_definitions()` gives each measure's definition and formula (for docs and help)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import attrs

from mercator.interpreter.tools.designer import summarize, wilson_interval, win_share
from mercator.interpreter.tools.game_detail import GameDetail

if TYPE_CHECKING:
    from mercator.interpreter.tools.parallel import Outcome

DOMINANT_SHARE = 0.9       # an option taken at least this often at a decision looks dominant
DOMINANT_DECISIONS = 30    # ... over at least this many of the seat's decisions there
DOMINANT_GAMES = 10        # ... made in at least this many games


@attrs.frozen
class Measure:
    """One measure: its value, a 95% interval (low, high) where it has one, its value by seat
    where it has those, the unit it is counted in, how many games it is over, and a note."""

    name: str
    value: float
    low: Optional[float] = None
    high: Optional[float] = None
    per_seat: Optional[tuple[float, ...]] = None
    unit: str = ""
    games: int = 0
    note: str = ""

    def row(self) -> list[str]:
        """The measure as a table row: name, value, interval, unit, note."""
        interval = "" if self.low is None or self.high is None \
            else f"[{self.low:.3f}, {self.high:.3f}]"
        return [self.name, f"{self.value:.3f}", interval, self.unit, self.note]


@attrs.frozen
class Definition:
    """What a measure is: its name, its formula, where it comes from, what to read from it."""

    name: str
    formula: str
    source: str
    reading: str


def measure_definitions() -> list[Definition]:
    """Every measure's definition, in the order `measures` gives them."""
    return [
        Definition(
            "advantage seat k",
            "w_k / n - 1/N, w_k = sum over games of the seat's win share (1 alone, 1/j of a "
            "win shared by j, else 0), n games, N seats; Wilson 95% interval of w_k / n, "
            "shifted by -1/N",
            "Browne's advantage (Ludi); Ludii's Balance and first-player advantage",
            "0 is fair; a seat whose interval lies above 0 wins more than its share"),
        Definition(
            "balance",
            "max_k w_k/n - min_k w_k/n (per seat: each w_k/n)",
            "Browne's balance (Ludi); Ludii's Balance",
            "0 when every seat wins as often; large when the seat you sit in decides"),
        Definition(
            "drawishness",
            "games without a sole winner (shared wins, or nobody eligible) / n; Wilson 95%",
            "Browne's drawishness (Ludi); Ludii's Drawishness",
            "high: the game often fails to separate the players"),
        Definition(
            "moves / decisions / rounds per game",
            "mean over games, 95% normal interval; moves are the seats' decisions (detail), "
            "decisions every recorded step (chance too where it is explicit), rounds the "
            "round count at the end",
            "Browne's duration (Ludi); Ludii's Duration",
            "how long a game takes, in choices and in rounds"),
        Definition(
            "decisiveness",
            "over games with a sole winner w and M > 0 moves: t*/M, where t* is the move count "
            "from which w leads alone at every point to the end (the leader at the end being w "
            "by definition); mean, 95% interval",
            "Browne's decisiveness / clarity (Ludi); Ludii's Decisiveness, DecisivenessMoves",
            "1.0: decided only by the last move; near 0: the eventual winner leads from the "
            "start and the rest is a formality"),
        Definition(
            "lead changes",
            "per game: the times the sole leader differs from the previous sole leader "
            "(points where the best value is shared have no leader and are skipped); mean, "
            "95% interval",
            "Browne's lead change (Ludi); Ludii's LeadChange",
            "0: whoever gets ahead stays ahead; several: the lead is contested"),
        Definition(
            "comebacks",
            "games with a sole winner who was last alone at the midpoint (the standing after "
            "floor(M/2) moves: every other seat strictly better) / such games; Wilson 95%",
            "Browne's drama and correction (Ludi); Ludii's Drama",
            "0: the one behind at half time never wins; a few in a hundred: a comeback is "
            "possible"),
        Definition(
            "winner behind at midpoint",
            "games with a sole winner whom some seat strictly led at the midpoint / such "
            "games; Wilson 95%",
            "Browne's drama (Ludi)",
            "how often the midpoint leader is overtaken"),
        Definition(
            "rule R per game",
            "mean over games of the times rule R ran (a setup, phase, procedure, trigger or "
            "any-time action: its body entered), 95% interval; a rule of the rulebook that "
            "never ran in any game is listed with 0 and the note 'never ran'",
            "mercator check --explore's rule coverage, counted",
            "a rule that never runs is dead or unreachable with these seats; one that runs "
            "far more or less than meant shows where the pacing is"),
        Definition(
            "dominant option",
            f"for each seat and decision (its prompt, else its line) made at least "
            f"{DOMINANT_DECISIONS} times with two options or more, in at least "
            f"{DOMINANT_GAMES} games: the share c/d of the seat's most taken option among "
            f"those decisions; listed when >= {DOMINANT_SHARE}; Wilson 95% interval",
            "Browne's killer moves (Ludi); Ludii's decision factor metrics",
            "an option always taken where others were there: either the others are worth "
            "nothing (a rule to change), or the seat's bot plays by rote"),
        Definition(
            "stat S per game",
            "mean of the rulebook's declared `stat S` over games, 95% normal interval",
            "the rulebook's own stats (docs/language.md §2.20)",
            "what the designer chose to count"),
    ]


# ------------------------------------------------------------------ per game
def _value_at(detail: GameDetail, t: float) -> tuple[Any, ...]:
    """The seats' values after t moves (the last point at or before t)."""
    values = detail.trajectory[0][2]
    for at, _, vals in detail.trajectory:
        if at > t:
            break
        values = vals
    return values


def standing_by_round(detail: GameDetail, rounds: int) -> list[tuple[Any, ...]]:
    """Each seat's value at the end of rounds 1..rounds (the last point of a round up to it;
    the start's values before any point of round 1): the trajectory a plot by round draws."""
    out = []
    values = detail.trajectory[0][2] if detail.trajectory else ()
    points = list(detail.trajectory)
    k = 0
    for r in range(1, rounds + 1):
        while k < len(points) and points[k][1] <= r:
            values = points[k][2]
            k += 1
        out.append(values)
    return out


def _sole_leader(values: Sequence[Any], sign: int) -> Optional[int]:
    """The seat ahead of every other (in the winning direction), None when the best is shared."""
    if not values:
        return None
    keyed = [sign * v for v in values]
    best = max(keyed)
    top = [p for p, v in enumerate(keyed) if v == best]
    return top[0] if len(top) == 1 else None


def leaders(outcome: "Outcome") -> list[tuple[int, Optional[int]]]:
    """(moves, sole leader or None) at each point of the game's trajectory; at the end (after
    all its moves) the leader is the game's sole winner, None if it has none."""
    d = outcome.detail
    if d is None:
        return []
    out = [(at, _sole_leader(vals, d.sign)) for at, _, vals in d.trajectory]
    final = outcome.winners[0] if len(outcome.winners) == 1 else None
    if out and out[-1][0] == d.moves:
        out[-1] = (d.moves, final)
    else:
        out.append((d.moves, final))
    return out


def decisiveness(outcome: "Outcome") -> Optional[float]:
    """t*/M (see measure_definitions): None without detail, a sole winner or a move."""
    d = outcome.detail
    if d is None or len(outcome.winners) != 1 or d.moves == 0:
        return None
    w = outcome.winners[0]
    since = d.moves
    for at, who in reversed(leaders(outcome)):
        if who != w:
            break
        since = at
    return since / d.moves


def lead_changes(outcome: "Outcome") -> Optional[int]:
    """The times the sole leader changes (see measure_definitions); None without detail."""
    if outcome.detail is None:
        return None
    changes, last = 0, None
    for _, who in leaders(outcome):
        if who is None:
            continue
        if last is not None and who != last:
            changes += 1
        last = who
    return changes


def midpoint_standing(outcome: "Outcome") -> Optional[tuple[bool, bool]]:
    """(the sole winner was last alone at the midpoint, some seat led it there); None without
    detail or a sole winner."""
    d = outcome.detail
    if d is None or len(outcome.winners) != 1 or not d.trajectory:
        return None
    w = outcome.winners[0]
    keyed = [d.sign * v for v in _value_at(d, d.moves // 2)]
    others = [v for p, v in enumerate(keyed) if p != w]
    return all(keyed[w] < v for v in others), any(keyed[w] < v for v in others)


# ------------------------------------------------------------------ over games
def _mean_measure(name: str, xs: Sequence[float], unit: str, note: str = "") -> Measure:
    s = summarize(xs)
    return Measure(name, s.mean, s.low, s.high, None, unit, len(xs), note)


def _share_measure(name: str, k: float, n: int, unit: str, note: str = "") -> Measure:
    low, high = wilson_interval(k, n)
    return Measure(name, k / n, low, high, None, unit, n, note)


def measures(outcomes: Sequence["Outcome"], players: int, stat_names: Sequence[str] = (),
             rules: Sequence[str] = (), dominant_share: float = DOMINANT_SHARE,
             dominant_decisions: int = DOMINANT_DECISIONS,
             dominant_games: int = DOMINANT_GAMES) -> list[Measure]:
    """Every measure over the finished games of `outcomes` (`players` seats each), in the order
    of measure_definitions. `stat_names`: the rulebook's declared stats (Program.stat_names),
    `rules`: its rules (game_detail.rule_names) so that those that never ran are listed."""
    games = [o for o in outcomes if o.failure is None]
    n = len(games)
    out: list[Measure] = []
    if n == 0:
        return out
    failed = len(outcomes) - n
    note = f"{failed} failed games left out" if failed else ""
    shares = [sum(win_share(o.record, p) for o in games) for p in range(players)]
    for p in range(players):
        low, high = wilson_interval(shares[p], n)
        out.append(Measure(f"advantage seat {p + 1}", shares[p] / n - 1 / players,
                           low - 1 / players, high - 1 / players, None,
                           "win rate - 1/N", n, note))
    rates = tuple(s / n for s in shares)
    out.append(Measure("balance", max(rates) - min(rates), None, None, rates,
                       "win rate spread", n))
    out.append(_share_measure("drawishness", sum(1 for o in games if len(o.winners) != 1), n,
                              "share of games"))
    detailed = [o for o in games if o.detail is not None]
    details = [o.detail for o in detailed if o.detail is not None]
    if detailed:
        out.append(_mean_measure("moves per game", [float(d.moves) for d in details],
                                 "seat decisions"))
    out.append(_mean_measure("decisions per game", [float(o.decisions) for o in games],
                             "decisions"))
    out.append(_mean_measure("rounds per game", [float(o.rounds) for o in games], "rounds"))
    if detailed:
        out.extend(detail_measures(detailed, rules, dominant_share, dominant_decisions,
                                    dominant_games))
    for i, name in enumerate(stat_names):
        out.append(_mean_measure(f"stat {name} per game",
                                 [float(o.stats[i]) for o in games], "per game"))
    return out


def detail_measures(games: Sequence["Outcome"], rules: Sequence[str],
                    dominant_share: float = DOMINANT_SHARE,
                    dominant_decisions: int = DOMINANT_DECISIONS,
                    dominant_games: int = DOMINANT_GAMES) -> list[Measure]:
    """The measures only a game's detail gives (games played with `detail`): decisiveness,
    lead changes, comebacks, the rules' runs, dominant options."""
    out: list[Measure] = []
    dec = [x for x in map(decisiveness, games) if x is not None]
    if dec:
        out.append(_mean_measure("decisiveness", dec, "share of the game"))
    changes = [float(x) for x in map(lead_changes, games) if x is not None]
    out.append(_mean_measure("lead changes", changes, "per game"))
    mid = [x for x in map(midpoint_standing, games) if x is not None]
    if mid:
        out.append(_share_measure("comebacks", sum(1 for last, _ in mid if last), len(mid),
                                  "share of decided games"))
        out.append(_share_measure("winner behind at midpoint",
                                  sum(1 for _, behind in mid if behind), len(mid),
                                  "share of decided games"))
    out.extend(_rule_measures(games, rules))
    out.extend(_dominant(games, dominant_share, dominant_decisions, dominant_games))
    return out


def _rule_measures(games: Sequence["Outcome"], rules: Sequence[str]) -> list[Measure]:
    runs = [dict(o.detail.fired) for o in games if o.detail is not None]
    names = list(rules) + sorted({r for g in runs for r in g} - set(rules))
    out = []
    for r in names:
        xs = [float(g.get(r, 0)) for g in runs]
        if any(xs):
            out.append(_mean_measure(f"rule {r} per game", xs, "runs per game"))
        else:
            out.append(Measure(f"rule {r} per game", 0.0, 0.0, 0.0, None, "runs per game",
                               len(xs), "never ran"))
    return out


def _dominant(games: Sequence["Outcome"], share: float, min_decisions: int,
              min_games: int) -> list[Measure]:
    offered: dict[tuple[int, str], int] = {}
    seen_in: dict[tuple[int, str], int] = {}
    chosen: dict[tuple[int, str], dict[str, int]] = {}
    for o in games:
        d = o.detail
        assert d is not None
        for seat, key, c in d.offered:
            offered[(seat, key)] = offered.get((seat, key), 0) + c
            seen_in[(seat, key)] = seen_in.get((seat, key), 0) + 1
        for seat, key, label, c in d.chosen:
            by = chosen.setdefault((seat, key), {})
            by[label] = by.get(label, 0) + c
    found = []
    for (seat, key), total in sorted(offered.items()):
        if total < min_decisions or seen_in[(seat, key)] < min_games:
            continue
        label, c = max(chosen[(seat, key)].items(), key=lambda kv: (kv[1], kv[0]))
        if c / total >= share:
            found.append(_share_measure(f"dominant option seat {seat + 1}: {key} -> {label}",
                                        c, total, "share of the seat's decisions there",
                                        f"in {seen_in[(seat, key)]} games"))
    return found


def per_game_table(outcomes: Sequence["Outcome"]) -> list[dict[str, Any]]:
    """Each finished game's own values (seed, winners, moves, decisiveness, lead changes):
    what a plot of one measure against a setting reads."""
    rows = []
    for o in outcomes:
        if o.failure is not None:
            continue
        rows.append({"seed": o.seed, "winners": list(o.winners),
                     "moves": o.detail.moves if o.detail is not None else None,
                     "decisiveness": decisiveness(o), "lead_changes": lead_changes(o)})
    return rows
