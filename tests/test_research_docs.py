"""The worked examples of docs/research.md run as they are written."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "research.md").read_text("utf-8"),
                    re.S)


def test_the_page_has_an_example_for_each_framework() -> None:
    assert len(BLOCKS) == 2
    assert "pyspiel" in BLOCKS[0] and "pettingzoo" in BLOCKS[1]


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_an_example_runs(k: int, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("pyspiel" if k == 0 else "pettingzoo")
    exec(compile(BLOCKS[k], f"docs/research.md block {k + 1}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "the example prints its result"
