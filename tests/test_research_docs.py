"""The worked examples of docs/research.md run as they are written."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "research.md").read_text("utf-8"),
                    re.S)


def test_the_page_has_an_example_for_each_framework() -> None:
    assert len(BLOCKS) == 3
    assert "pyspiel" in BLOCKS[0] and "anytime redeem" in BLOCKS[1] and "pettingzoo" in BLOCKS[2]


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_an_example_runs(k: int, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("pettingzoo" if "pettingzoo" in BLOCKS[k] else "pyspiel")
    exec(compile(BLOCKS[k], f"docs/research.md block {k + 1}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "the example prints its result"


def test_the_example_of_ids_the_adapter_takes_shows_what_the_page_says(
        capsys: pytest.CaptureFixture) -> None:
    """docs/research.md, "Ids the adapter takes itself": after `anytime redeem` with one share
    mortgaged, one apply_action made the whole option (the redeem and its good), which the
    record names; the page quotes what the block prints."""
    pytest.importorskip("pyspiel")
    exec(compile(BLOCKS[1], "docs/research.md block 2", "exec"), {})
    first, second = capsys.readouterr().out.strip().split("\n")
    assert first == "1"
    assert second in BLOCKS[1]                # the page shows the very lines printed
    assert "chooses redeem(" in second and "redeems a" in second


def test_the_numbers_the_openspiel_example_prints_are_the_pages(
        capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("pyspiel")
    exec(compile(BLOCKS[0], "docs/research.md block 1", "exec"), {})
    lines = capsys.readouterr().out.strip().split("\n")
    assert f"# {lines[0]}" in BLOCKS[0] and f"# {lines[1]}" in BLOCKS[0]
