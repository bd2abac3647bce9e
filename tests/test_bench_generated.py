"""benchmarks/bench_generated.py compares Manila's compiled placement fns with hand-written
ones: those must give the rulebook's answers at every state it times (it stops otherwise), or
its figures in docs/performance.md would compare different work."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def test_the_hand_written_placement_fns_agree_with_the_rulebook(capsys: Any) -> None:
    spec = importlib.util.spec_from_file_location("bench_generated",
                                                  ROOT / "benchmarks" / "bench_generated.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--states", "30", "--number", "1", "--repeat", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Manila 4p, 30 placement decisions")
    assert [line.split()[0] for line in out[2:]] == ["free_paid_spaces", "is_blind_passenger",
                                                    "placeable_spaces", "placeable_spaces"]
