"""Root-parallel search: N copies of a search agent (`mcts` or `ismcts`, search.py), each in its
own worker process, search the same decision at once; their root statistics are summed.

Each worker keeps its agent for the whole game (and beyond: until `close`), so an `ismcts`
worker carries its trace and worlds from one decision to the next as the single agent does.
Worker k searches with its own seed (`worker_seed(seed, k)`; worker 0 with the agent's own
seed), for the whole budget: a time budget gives every worker the same time, an iteration
budget gives each that many iterations (N times as many in all). At a decision the parent sends
every worker the position (State.to_json), each runs its own search and answers with the visits
n and total reward w of each option at its root (keyed by option_keys), and the parent plays
the option with the most visits summed over the workers (ties: the higher mean, then the first
in the menu), as MCTSAgent.choose does for one tree. A worker that found no world (an `ismcts`
fallback) adds nothing to the sum; if none found one, worker 0's random move is played.

With one worker there are no processes: the agent is the wrapped search agent itself (the same
move for the same seed).

Workers are started at the first decision, by 'spawn' (a fresh interpreter: a worker never
inherits the caller's memory or threads; 'forkserver' works too, but its server, shared by the
whole process, fails in a child forked from it, as run_games' workers are), and load the
rulebook themselves, once, from its file (or from the text the program was compiled from, when
the file has changed or does not exist): a Program does not pickle. Starting takes about half a
second (an interpreter, the imports, the rulebook compiled), paid once per agent, not per
decision. They stop on `close()` (or leaving a `with`
block), when the agent is garbage-collected or the interpreter exits, and on their own when the
parent dies (their pipe reaches its end, or the parent's process id is gone). A worker that
raises passes its exception back (raised again here, with the worker's traceback as its cause);
one that dies or does not answer in time is a `SearchWorkerError`, never a hang: every wait
watches the workers' processes, and a time budget's answer is awaited at most `timeout`
seconds. After an error every worker is stopped; the next decision starts fresh ones.
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
import random
import signal
import sys
import threading
import time
import traceback
import types
from contextlib import contextmanager
from multiprocessing import connection as mp_connection
from multiprocessing import util as mp_util
from typing import Any, Iterator, Optional, Union

from mercator.dsl.errors import MercatorError
from mercator.interpreter.agents.search import (ISMCTSAgent, MCTSAgent, _Edge, _Node,
                                                preferred_outright, trusted,
                                                most_visited)
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.state import State

__all__ = ["RootParallelAgent", "SearchWorkerError", "available_cores", "worker_seed"]

SEARCHERS: dict[str, type[MCTSAgent]] = {"mcts": MCTSAgent, "ismcts": ISMCTSAgent}
START_TIMEOUT = 120.0    # seconds for a worker to start and load the rulebook
GRACE = 30.0             # a time budget's answer is awaited seconds + max(GRACE, seconds)
CPU_SLACK = 20.0         # clock=cpu: a budget of CPU seconds may take this many times as long
STOP_WAIT = 2.0          # seconds a closing worker has to exit before it is terminated
PARENT_CHECK = 1.0       # an idle worker looks for its parent this often (seconds)


class SearchWorkerError(MercatorError, RuntimeError):
    """A search worker died, could not start, or did not answer in time."""


def available_cores() -> int:
    """The cores this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                # (not on every platform)
        return max(1, os.cpu_count() or 1)


def worker_seed(seed: Any, index: int) -> Any:
    """Worker `index`'s seed: the agent's own for worker 0, a 64-bit number drawn from the
    agent's seed and the index for the others (stable across runs and machines)."""
    if index == 0:
        return seed
    digest = hashlib.sha256(f"mercator-root-parallel:{seed!r}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


_MAIN_LOCK = threading.Lock()


@contextmanager
def _without_main() -> Iterator[None]:
    """Start processes without the caller's main script: a spawned (or forkserver) child runs
    the parent's __main__ again (as __mp_main__) to find what was defined there, so a script
    without the `if __name__ == "__main__":` guard would play again in every worker (and
    multiprocessing stops it there, killing the worker). A worker needs nothing from __main__
    (its function and arguments are this module's), so while the workers start, __main__ is
    an empty module."""
    with _MAIN_LOCK:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is not None:
                sys.modules["__main__"] = main


# -- the worker process

def load_program(path: str, sources: dict[str, str]) -> Any:
    """The program of a rulebook in a worker: from its file while that reads as `sources`
    says, else compiled from the text in `sources` (a program made from text, or a file
    changed since). SearchWorkerError if it no longer checks."""
    # (the compiler and the loader are imported here, in the worker only: the agents answer
    # decisions through the engine, but a worker must make its own Program, which does not
    # pickle)
    from mercator.dsl.loader import load, load_text, unchanged
    from mercator.interpreter.compiler import compile_program
    if path in sources and os.path.isfile(path) and unchanged(sources):
        res = load(path)
    elif path in sources:
        res = load_text(sources[path], path)
    else:
        res = load(path)
    if not res.ok or res.rulebook is None:
        problems = "; ".join(str(d) for d in res.diagnostics if d.is_error)
        raise SearchWorkerError(f"a search worker cannot load the rulebook {path}: {problems}")
    return compile_program(res.rulebook)


def _parent_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                       # (alive, another user's: cannot be the case here)
        return True
    return True


def _send_error(conn: Any, exc: BaseException) -> None:
    """Send an exception back (itself when it pickles, else its text), with its traceback."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        payload = pickle.dumps(exc)
        pickle.loads(payload)
    except Exception:
        payload = None
    try:
        conn.send(("error", payload, f"{type(exc).__name__}: {exc}", tb))
    except (OSError, ValueError):
        pass


def _serve(conn: Any, parent_pid: int, path: str, sources: dict[str, str], kind: str,
           settings: dict[str, Any], seed: Any) -> None:
    """A worker: load the program, make the agent, answer decisions until told to stop or
    the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C is the parent's to handle
    try:
        program = load_program(path, sources)
        agent = SEARCHERS[kind](seed=seed, **settings)
    except BaseException as exc:
        _send_error(conn, exc)
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            if not conn.poll(PARENT_CHECK):
                if not _parent_alive(parent_pid):
                    return
                continue
            msg = conn.recv()
        except (EOFError, OSError):                   # the parent's end is closed: it is gone
            return
        if msg[0] != "choose":
            return
        try:
            state = State.from_json(msg[1])
            program.resume(state)
            agent.last_root = None
            agent.last_iterations = 0
            agent.last_rollout_decisions = 0
            before = agent.fallbacks
            index = agent.choose(program, state)
            root = agent.last_root
            stats: dict[str, tuple[int, float, int, float]] = {} if root is None else \
                {k: (e.n, e.w, e.avail, e.w2) for k, e in root.edges.items()}
            reply = ("done", index, stats, agent.last_iterations, agent.fallbacks - before,
                     agent.last_rollout_decisions, getattr(agent, "carried", 0),
                     getattr(agent, "_final", None))
        except BaseException as exc:
            _send_error(conn, exc)
            continue
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _shutdown(conns: list, procs: list, how: dict[str, float]) -> None:
    """Stop workers: ask each to exit, give them how["wait"] seconds, then terminate (and
    kill) any still running."""
    for c in conns:
        try:
            c.send(("close",))
        except (OSError, ValueError):
            pass
    end = time.monotonic() + how["wait"]
    for p in procs:
        p.join(max(0.0, end - time.monotonic()))
    for p in procs:
        if p.exitcode is None:
            p.terminate()
            p.join(0.5)
        if p.exitcode is None:
            p.kill()
            p.join(5.0)
    for c in conns:
        try:
            c.close()
        except OSError:
            pass
    conns.clear()
    procs.clear()


# -- the agent

class RootParallelAgent:
    """`workers` copies of a search agent (`agent`: "mcts", "ismcts" or the class), each in its
    own process with its own seed, their root visits summed (see the module docstring).
    `settings` are the search agent's (iterations, seconds, depth, worlds, reward, ...).
    `timeout` bounds the wait for a decision's answers (default: seconds + max(30, seconds)
    for a time budget; none for an iteration budget, where only a dead worker ends the wait).
    """

    def __init__(self, agent: Union[str, type] = "ismcts", workers: Optional[int] = None,
                 seed: Any = 0, *, timeout: Optional[float] = None,
                 start_method: Optional[str] = None, **settings: Any):
        kind = agent if isinstance(agent, str) else getattr(agent, "kind", None)
        if kind not in SEARCHERS or (not isinstance(agent, str) and SEARCHERS[kind] is not agent):
            raise ValueError(f"root-parallel search wraps one of {', '.join(SEARCHERS)}, "
                             f"not {agent!r}")
        n = available_cores() if workers is None else workers
        if n < 1:
            raise ValueError(f"a root-parallel search needs at least 1 worker, not {n}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"the timeout must be positive, not {timeout}")
        cls = SEARCHERS[kind]
        first = cls(seed=seed, **settings)            # (checks the settings here, at once)
        self.kind = kind
        self.sees_hidden = cls.sees_hidden
        self.workers = n
        self.seed = seed
        self._trust_rng = random.Random(f"{seed}:trust")     # ties among preferred options
        self.settings = dict(settings)
        self.iterations = first.iterations
        self.seconds = first.seconds
        self.timeout = timeout
        self.start_method = start_method or "spawn"
        self._local: Optional[MCTSAgent] = first if n == 1 else None
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        self._source: Optional[tuple[str, dict[str, str]]] = None
        self._program: Any = None
        self._finalizer: Optional[mp_util.Finalize] = None
        self._how = {"wait": STOP_WAIT}
        self.fallbacks = 0               # worker searches that found no world, all decisions
        self.last_iterations = 0         # the last decision's iterations, all workers
        self.last_rollout_decisions = 0
        self.carried = 0                 # ismcts: worlds carried into the last decision
        self.last_root: Optional[_Node] = None    # the workers' roots summed (n, w, avail)
        self.last_choices: list[int] = []         # each worker's own choice at the last one

    def __repr__(self) -> str:
        budget = f"{self.seconds:g}s" if self.iterations is None else f"{self.iterations}"
        return f"<RootParallelAgent {self.kind}:{budget} x{self.workers}>"

    # -- lifetime
    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the running workers (none before the first decision, none after
        close, none with one worker)."""
        return [p.pid for p in self._procs]

    def close(self) -> None:
        """Stop the workers (they start again at the next decision, with fresh agents)."""
        self._stop(STOP_WAIT)

    def _stop(self, wait: float) -> None:
        if self._finalizer is not None:
            self._how["wait"] = wait
            self._finalizer()            # (_shutdown, once)
            self._finalizer = None
        self._conns, self._procs, self._source, self._program = [], [], None, None

    def __enter__(self) -> "RootParallelAgent":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self, program: Any) -> None:
        """Workers for `program`'s rulebook, each loaded and ready."""
        if self._procs and program is self._program:
            return
        rb = program.rb
        source = (rb.path, dict(rb.sources))
        if self._procs and self._source == source:
            self._program = program
            return
        self.close()
        if multiprocessing.current_process().daemon:
            raise SearchWorkerError(
                f"a root-parallel search cannot start its {self.workers} workers in a daemonic "
                "process (a multiprocessing.Pool worker): search on one core there, or run the "
                "games in a concurrent.futures.ProcessPoolExecutor")
        ctx: Any = multiprocessing.get_context(self.start_method)
        conns: list[Any] = []
        procs: list[Any] = []
        self._conns, self._procs = conns, procs
        # (the finalizer holds the lists, not the agent: it runs on close, when the agent is
        # collected, or at exit — multiprocessing's, before it waits for its children)
        self._how = {"wait": STOP_WAIT}
        self._finalizer = mp_util.Finalize(self, _shutdown, (conns, procs, self._how),
                                           exitpriority=10)
        try:
            with _without_main():
                for k in range(self.workers):
                    mine, theirs = ctx.Pipe()
                    p = ctx.Process(target=_serve, name=f"mercator-search-{k}", daemon=True,
                                    args=(theirs, os.getpid(), source[0], source[1],
                                          self.kind, self.settings, worker_seed(self.seed, k)))
                    try:
                        p.start()
                    finally:
                        theirs.close()
                        conns.append(mine)    # (closed with the others if start failed)
                    procs.append(p)
            for k, reply in enumerate(self._gather(START_TIMEOUT, "start")):
                if reply[0] != "ready":
                    raise SearchWorkerError(f"search worker {k} answered {reply[0]!r} at start")
        except BaseException:
            self._stop(0.0)
            raise
        self._source = source
        self._program = program

    def _gather(self, timeout: Optional[float], what: str) -> list[tuple]:
        """One message from every worker, in worker order: an exception raised in a worker is
        raised here; SearchWorkerError for a worker that died or `timeout` seconds of silence
        (all workers stopped in either case)."""
        conns, procs = self._conns, self._procs
        replies: dict[int, tuple] = {}
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while len(replies) < len(conns):
                waiting = [k for k in range(len(conns)) if k not in replies]
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = mp_connection.wait([conns[k] for k in waiting]
                                           + [procs[k].sentinel for k in waiting], left)
                if not ready:
                    raise SearchWorkerError(
                        f"search worker {waiting[0]} of {len(conns)} ({self.kind}) gave no "
                        f"answer ({what}) within {timeout:g} s")
                for k in waiting:
                    if conns[k].poll():
                        try:
                            replies[k] = conns[k].recv()
                        except (EOFError, OSError):
                            pass
                    if k not in replies and procs[k].sentinel in ready:
                        procs[k].join(1.0)
                        raise SearchWorkerError(
                            f"search worker {k} of {len(conns)} ({self.kind}) died "
                            f"({what}; exit code {procs[k].exitcode})")
                    if k in replies and replies[k][0] == "error":
                        _, payload, text, tb = replies[k]
                        cause = _RemoteTraceback(tb)
                        if payload is not None:
                            exc = pickle.loads(payload)
                            raise exc from cause
                        raise SearchWorkerError(f"search worker {k} failed ({what}): "
                                                f"{text}") from cause
        except BaseException:
            self._stop(0.0)              # (an error: the others' searches are not awaited)
            raise
        return [replies[k] for k in range(len(conns))]

    # -- choosing
    def choose(self, program: Any, state: State) -> int:
        """The option with the most visits summed over the workers' searches."""
        local = self._local
        if local is not None:
            try:
                return local.choose(program, state)
            finally:
                self.fallbacks = local.fallbacks
                self.last_iterations = local.last_iterations
                self.last_rollout_decisions = local.last_rollout_decisions
                self.carried = getattr(local, "carried", 0)
                self.last_root = local.last_root
        node = state.pending
        if not isinstance(node, Decision):
            raise TypeError("a search agent answers decisions, not chance or the end")
        if node.count == 1:
            return 0
        outright = preferred_outright(program, state, node, self.settings.get("trust", 0.0),
                                      self._trust_rng)
        if outright < 0 and self.settings.get("deals") == "prefer":
            outright = program.draft_step(state)      # a draft's step (as one searcher does)
        if outright >= 0:
            self.last_iterations = self.last_rollout_decisions = 0
            self.last_root = _Node()
            self.last_choices = []
            return outright
        self._start(program)
        payload = pickle.dumps(("choose", state.to_json()), pickle.HIGHEST_PROTOCOL)
        for k, c in enumerate(self._conns):
            try:
                c.send_bytes(payload)
            except (OSError, ValueError):
                self._stop(0.0)
                raise SearchWorkerError(f"search worker {k} is gone (its pipe is closed)") \
                    from None
        timeout = self.timeout
        if timeout is None and self.seconds is not None and self.iterations is None:
            timeout = self.seconds + max(GRACE, self.seconds)
            if self.settings.get("clock") == "cpu":   # (CPU seconds take longer on a loaded
                timeout += CPU_SLACK * self.seconds     # machine)
        replies = self._gather(timeout, "a decision")
        root = _Node()
        final: Optional[dict[str, tuple[float, int, float]]] = None   # halving's last rounds
        for reply in replies:
            for key, (n, w, avail, w2) in reply[2].items():
                e = root.edges.get(key)
                if e is None:
                    e = root.edges[key] = _Edge()
                e.n += n
                e.w += w
                e.avail += avail
                e.w2 += w2
            if reply[7]:
                final = {} if final is None else final
                for key, (w, n, w2) in reply[7].items():
                    fw, fn, fw2 = final.get(key, (0.0, 0, 0.0))
                    final[key] = (fw + w, fn + n, fw2 + w2)
        root.visits = sum(e.n for e in root.edges.values())
        self.last_root = root
        self.last_choices = [r[1] for r in replies]
        self.last_iterations = sum(r[3] for r in replies)
        self.fallbacks += sum(r[4] for r in replies)
        self.last_rollout_decisions = sum(r[5] for r in replies)
        self.carried = sum(r[6] for r in replies)
        if not root.edges:                # no worker found a world: worker 0's random move
            return replies[0][1]
        group = self.settings.get("group", "none")
        move = most_visited(node, root, None if group == "none" else group)
        trust = self.settings.get("trust", 0.0)
        if trust and getattr(program, "prefer_fs", None):     # (as one searcher does)
            move = trusted(program, state, node, root, move, trust, self._trust_rng,
                           final=final if self.settings.get("sure") else None,
                           sure=self.settings.get("sure", 0.0))
        return move


class _RemoteTraceback(MercatorError):
    """A worker's traceback, shown as the cause of the exception it raised."""

    def __init__(self, tb: str):
        super().__init__(tb)
        self.tb = tb

    def __str__(self) -> str:
        return f'\n"""\n{self.tb}"""'
