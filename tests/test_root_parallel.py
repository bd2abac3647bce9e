"""Root-parallel search (interpreter/agents/root_parallel.py): copies of a searcher in worker
processes, their root visits summed. On Nim from 10 sticks (tests/fixtures/agents/nim.rules)
the only winning move is to take 2."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from game_driver import program, program_text

from mercator.interpreter.agents.base import RandomAgent, play_out
from mercator.interpreter.agents.root_parallel import (RootParallelAgent, SearchWorkerError,
                                                       worker_seed)
from mercator.interpreter.agents.search import ISMCTSAgent, MCTSAgent

ROOT = Path(__file__).resolve().parents[1]
NIM = ROOT / "tests" / "fixtures" / "agents" / "nim.rules"
PLAIN = {"mcts": MCTSAgent, "ismcts": ISMCTSAgent}


def nim_start():
    prog = program(NIM)
    return prog, prog.new_game(2, 0, narrate=True, explicit_chance=True)


def gone(pid: int) -> bool:
    """Has the process ended (no such process, or a zombie nobody has reaped yet)?"""
    if not os.path.isdir("/proc/self"):          # (no /proc: a zombie counts as running)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_gone(pids: list[int], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if all(gone(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_two_workers_find_the_winning_move_and_sum_their_iterations(kind) -> None:
    prog, s = nim_start()
    plain = PLAIN[kind](150, seed=3)
    mine = plain.choose(prog, s)
    with RootParallelAgent(kind, 2, seed=3, iterations=150) as agent:
        assert agent.worker_pids == []               # started at the first decision
        i = agent.choose(prog, s)
        assert s.pending.option(i).label == "2"
        assert len(agent.worker_pids) == 2
        # each worker ran the whole budget; worker 0 searched with the agent's own seed
        assert agent.last_iterations == 300
        assert agent.last_choices[0] == mine
        assert agent.last_root is not None
        assert sum(e.n for e in agent.last_root.edges.values()) == 300
        assert agent.fallbacks == 0
        pids = agent.worker_pids
    assert wait_gone(pids, 5)


def test_the_workers_seeds_differ_and_worker_0_keeps_the_agents() -> None:
    assert worker_seed(7, 0) == 7
    seeds = {worker_seed(7, k) for k in range(1, 8)}
    assert len(seeds) == 7 and 7 not in seeds
    assert worker_seed(7, 1) == worker_seed(7, 1) != worker_seed(8, 1)


@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_one_worker_is_the_plain_agent(kind) -> None:
    """No process; the same moves, iterations and root as the wrapped agent, decision after
    decision (the ismcts trace carried as in the plain agent)."""
    prog, s = nim_start()
    t = s.clone()
    agent = RootParallelAgent(kind, 1, seed=5, iterations=40, depth=3)
    plain = PLAIN[kind](40, seed=5, depth=3)
    while not s.over:
        if s.pending.player == 0:
            i, j = agent.choose(prog, s), plain.choose(prog, t)
            assert i == j
            assert agent.last_iterations == plain.last_iterations
            assert agent.worker_pids == []
        else:
            i = j = 0
        prog.apply(s, i)
        prog.apply(t, j)
    assert s.history == t.history
    agent.close()


def test_a_short_game_plays_through_on_the_same_workers() -> None:
    """A time budget, a program compiled from text (no file: the workers compile the same
    text), seat 0 searching on two workers for the whole game, seat 1 random."""
    prog = program_text(NIM.read_text())
    agent = RootParallelAgent("ismcts", 2, seed=1, seconds=0.05, worlds=4)
    seen: list[list[int]] = []

    def on_step(state, node, idx, label) -> None:
        if node.player == 0 and node.count > 1:
            seen.append(agent.worker_pids)
    try:
        s = play_out(prog, prog.new_game(2, 0, narrate=True, explicit_chance=True),
                     [agent, RandomAgent(2)], on_step=on_step)
    finally:
        pids = agent.worker_pids
        agent.close()
    assert s.over and len(seen) >= 2
    assert all(p == seen[0] for p in seen) and len(seen[0]) == 2
    assert agent.last_iterations >= 2
    assert agent.worker_pids == []
    assert wait_gone(pids, 5)


def test_a_worker_that_dies_is_an_error_and_the_next_decision_starts_fresh_ones() -> None:
    prog, s = nim_start()
    agent = RootParallelAgent("mcts", 2, seed=0, iterations=20)
    try:
        agent.choose(prog, s)
        first = agent.worker_pids
        os.kill(first[1], signal.SIGKILL)
        assert wait_gone(first[1:], 5)
        with pytest.raises(SearchWorkerError, match="worker 1 .*(died|gone)"):
            agent.choose(prog, s)
        assert agent.worker_pids == [] and wait_gone(first, 5)
        agent.choose(prog, s)
        again = agent.worker_pids
        assert len(again) == 2 and not set(again) & set(first)
    except BaseException:
        agent.close()
        raise
    del agent                                    # (collected: its workers are stopped)
    assert wait_gone(again, 5)


def test_a_worker_that_does_not_answer_is_a_timeout_not_a_hang() -> None:
    prog, s = nim_start()
    agent = RootParallelAgent("mcts", 2, seed=0, iterations=20, timeout=1.0)
    try:
        agent.choose(prog, s)
        pids = agent.worker_pids
        os.kill(pids[0], signal.SIGSTOP)
        t = time.monotonic()
        with pytest.raises(SearchWorkerError, match="no answer"):
            agent.choose(prog, s)
        assert time.monotonic() - t < 8
        assert wait_gone(pids, 5)
    finally:
        agent.close()


def test_an_exception_in_a_worker_is_raised_here_with_its_traceback() -> None:
    """A program whose rulebook text no longer checks: the workers cannot load it."""
    prog, s = nim_start()
    fake = SimpleNamespace(rb=SimpleNamespace(path="gone.rules",
                                              sources={"gone.rules": "game \"x\" players"}))
    agent = RootParallelAgent("ismcts", 2, seed=0, iterations=20)
    with pytest.raises(SearchWorkerError, match="cannot load the rulebook gone.rules") as info:
        agent.choose(fake, s)
    assert "Traceback" in str(info.value.__cause__)
    assert agent.worker_pids == []


def test_the_workers_end_when_their_parent_dies() -> None:
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        from game_driver import program
        from mercator.interpreter.agents.root_parallel import RootParallelAgent
        prog = program({str(NIM)!r})
        s = prog.new_game(2, 0)
        agent = RootParallelAgent("mcts", 2, seed=0, iterations=10)
        agent.choose(prog, s)
        print(*agent.worker_pids, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == -signal.SIGKILL, out.stderr
    pids = [int(x) for x in out.stdout.split()]
    assert len(pids) == 2
    assert wait_gone(pids, 10)


def test_bad_settings_are_refused_at_once() -> None:
    with pytest.raises(ValueError, match="worker"):
        RootParallelAgent("mcts", 0)
    with pytest.raises(ValueError, match="wraps one of"):
        RootParallelAgent("random", 2)
    with pytest.raises(ValueError, match="at least 1 iteration"):
        RootParallelAgent("ismcts", 2, iterations=0)
