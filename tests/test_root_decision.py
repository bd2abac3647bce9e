"""benchmarks/root_decision.py: the searcher's view of one decision beside the anchor's move."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def root_decision():
    from bench_module import bench_agents
    bench_agents()                      # (root_decision imports it by name: one copy)
    spec = importlib.util.spec_from_file_location("root_decision",
                                                  ROOT / "benchmarks" / "root_decision.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_first_bid_of_manila_with_the_searchers_groups(capsys) -> None:
    """Manila 3p seed 0: seat 1's first bid (the anchor bids 1); a UCT root shows its options
    and its groups (the values as one, their bins); the default's root (sequential halving)
    its options only. (trust=0: Manila's own bots trust its preferences fully and would not
    search.)"""
    rd = root_decision()
    assert rd.main(["rulebooks/manila.rules", "--prompt", "bid", "--agent",
                    "ismcts:60:root=uct:trust=0", "--agent",
                    "ismcts:60:group=none:root=uct:trust=0", "--agent", "ismcts:60:trust=0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "manila.rules 3p seed 0: 'bid (or pass)', 56 options; the anchor: 1"
    assert out[1].startswith("  ismcts:60:root=uct:trust=0  -> ") \
        and out[1].endswith("(60 iterations)")
    assert out[3].startswith("    groups: values ")
    assert out[4].startswith("  ismcts:60:group=none:root=uct:trust=0  -> ")
    assert out[6].startswith("  ismcts:60:trust=0  -> ") and out[6].endswith("(60 iterations)")
    assert len(out) == 8


def test_a_prompt_never_met_and_a_bad_spec_are_told(capsys) -> None:
    rd = root_decision()
    assert rd.main(["tests/fixtures/agents/nim.rules", "--players", "2",
                    "--prompt", "no such prompt"]) == 1
    assert "never faces a decision matching 'no such prompt'" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        rd.main(["rulebooks/manila.rules", "--agent", "random"])
    assert "--agent names a searcher" in capsys.readouterr().err
