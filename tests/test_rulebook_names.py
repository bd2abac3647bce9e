"""Rulebooks by short name (interpreter/tools/rulebooks.py) on the command line and the API."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.rulebooks import UnknownRulebook, find_rulebook, games

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_games_by_name() -> None:
    names = games()
    assert {"manila", "die_haendler", "felinia", "genoa", "manila_pirates", "bazaar"} <= set(names)
    assert "auction" not in names                  # a library is not a game
    assert find_rulebook("manila") == ROOT / "rulebooks" / "manila.rules"
    assert find_rulebook("manila_pirates") == ROOT / "rulebooks" / "variants" / "manila_pirates.rules"
    assert find_rulebook("bazaar.rules") == ROOT / "rulebooks" / "examples" / "bazaar.rules"


def test_a_path_wins_over_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "manila").write_text("not a rulebook", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert find_rulebook("manila") == Path("manila")


def test_an_unknown_name_lists_the_names() -> None:
    with pytest.raises(UnknownRulebook,
                       match=r"no rulebook .monopoly.*felinia, felinia_advanced, genoa"):
        find_rulebook("monopoly")


def test_the_command_line_takes_a_name(capsys: pytest.CaptureFixture,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["check", "manila", "felinia"]) == 0
    out = capsys.readouterr().out
    assert f"rulebooks{os.sep}manila.rules: OK" in out and "2 files OK" in out
    assert main(["simulate", "manila_pirates", "--players", "3", "--games", "2",
                 "--json"]) == 0
    assert '"rulebook": "rulebooks/variants/manila_pirates.rules"' in capsys.readouterr().out


def test_an_unknown_name_on_the_command_line(capsys: pytest.CaptureFixture) -> None:
    assert main(["play", "monopoly"]) == 2
    err = capsys.readouterr().err
    assert "no such rulebook: monopoly" in err and "or name a shipped rulebook: bazaar," in err
