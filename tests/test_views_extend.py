"""`extend view` (docs/language.md §2.21): a variant adds rows for its own fields to the base's
view, and an added row is shown by the same rules of who may see it as the base's rows."""
from __future__ import annotations

import random
from pathlib import Path

from game_driver import random_steps
from shipped import shipped_program

from mercator.interpreter.engine.declared_view import declared_view

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "rulebooks" / "variants"


_played = random_steps


def _section(view: dict, title: str) -> dict:
    return {r["label"]: r for r in next(x for x in view["sections"] if x["title"] == title)["rows"]}


def _panel(view: dict, seat: int) -> dict:
    p = view["panel"]
    return dict(zip(p["labels"], p["seats"][seat]["rows"]))


def test_an_added_row_joins_the_base_section_of_that_title_after_its_rows() -> None:
    base = shipped_program("manila")
    prog = shipped_program("manila_pirates")
    s = _played(prog, 3, 1, 0)
    v = declared_view(prog, s, 0)
    assert v is not None
    titles = [x["title"] for x in v["sections"]]
    assert titles == [x["title"] for x in declared_view(base, base.new_game(3, 1), 0)["sections"]]
    voyage = next(x for x in v["sections"] if x["title"] == "Voyage")["rows"]
    assert voyage[-1]["label"] == "the pirate captain boarded"
    assert voyage[-1]["text"] == "none"
    # the seat number is bookkeeping: neither a row nor a raw field on the screen
    assert "boarded_seat" in v["omit"]
    assert all(n != "boarded_seat" for n, _ in v["other"]["table"])


def test_the_captains_boat_shows_once_a_pirate_boarded() -> None:
    prog = shipped_program("manila_pirates")
    for seed in range(40):
        s = prog.new_game(3, seed)
        rng = random.Random(seed)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            boarded = s.table[prog._tindex("boarded_boat")] is not None
            shown = _section(declared_view(prog, s, 1), "Voyage")["the pirate captain boarded"]
            assert (shown["text"] != "none") == boarded
            if boarded:
                assert shown["text"] in ("jade", "silk", "ginseng", "nutmeg"), shown["text"]
                return
    raise AssertionError("no pirate boarded in 40 random games")


def test_panel_and_scoring_rows_are_added_and_keep_the_owners_secret() -> None:
    """Felinia advanced: provisions are public; the secret bonus cards show in full to their
    owner and as a count to everyone else; the secret cards' points, read from the owner's
    cards, are his alone (and so is his sum)."""
    prog = shipped_program("felinia_advanced")
    k = prog._pindex("secret_cards")
    for seed in range(3):
        s = _played(prog, 3, seed, 120)
        # random play seldom draws a secret card: hand P1 two (cards show 1 or 2: rule 6)
        s.players[0][k] = {1: 1, 2: 1}
        for seat in range(3):
            for other in range(3):
                rows = _panel(declared_view(prog, s, seat), other)
                assert not rows["provision cards"]["hidden"]
                cards = rows["secret bonus cards"]
                points = rows["points: secret bonus cards"]
                if seat == other:
                    assert not cards["hidden"] and not points["hidden"]
                else:
                    assert cards["hidden"] and points["hidden"]
                    assert "hidden" in cards["text"] and points["text"] == "(hidden)"
        mine = _panel(declared_view(prog, s, 0), 0)
        assert mine["points: secret bonus cards"]["text"] == "3"   # min(2, 1) + min(2, 2)
        assert "1" in mine["secret bonus cards"]["text"] and "2" in mine["secret bonus cards"]["text"]
        theirs = _panel(declared_view(prog, s, 1), 0)["secret bonus cards"]["text"]
        assert theirs == "(hidden, 2 items)" and "1" not in theirs.replace("(hidden, 2 items)", "")
        spectator = _panel(declared_view(prog, s, None), 0)
        assert spectator["secret bonus cards"]["hidden"]
        assert spectator["points: secret bonus cards"]["text"] == "(hidden)"


def test_every_shipped_variant_that_adds_fields_shows_them() -> None:
    """The variant's own fields are rows (or bookkeeping), not left to the raw list."""
    for name, fields in [("manila_pirates", ["boarded_boat", "boarded_seat"]),
                         ("felinia_advanced", ["provisions", "secret_cards", "secret_deck"]),
                         ("genoa_two_players", ["extra_spent"])]:
        prog = shipped_program(name)
        s = prog.new_game(prog.min_players, 1)
        v = declared_view(prog, s, 0)
        raw = {n for n, _ in v["other"]["table"]} | set(v["other"]["names"])
        assert not raw & set(fields), (name, raw & set(fields))


def test_no_seat_sees_through_an_extended_view_or_its_labels_what_it_may_not_see() -> None:
    """The leak test of tests/test_views.py on the variants with an `extend view`: changing
    everything a seat may not see (other players' owner-only fields, secret fields) changes
    neither its declared view nor the notes of its options."""
    from test_views import _hide_differently

    from mercator.interpreter.engine.declared_view import option_notes
    from mercator.interpreter.engine.nodes import Decision
    for name in ("manila_pirates", "felinia_advanced", "genoa_two_players"):
        prog = shipped_program(name)
        for seed, steps in [(1, 40), (2, 150)]:
            s = _played(prog, prog.min_players + (seed % 2 if prog.max_players > prog.min_players
                                                  else 0), seed, steps)
            for viewer in [*range(len(s.players)), None]:
                other = _hide_differently(prog, s, viewer)
                assert declared_view(prog, other, viewer) == declared_view(prog, s, viewer), \
                    (name, seed, viewer)
                d = s.pending
                if isinstance(d, Decision):
                    assert option_notes(prog, other, d, viewer) == \
                        option_notes(prog, s, d, viewer), (name, seed, viewer)
