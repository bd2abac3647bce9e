"""Many games at once: on one core, on every core (worker processes), or on a Ray cluster.

Each game's randomness comes from its own seed (the game's chance from `seed`, each bot's
choices from `agent_seed(seed, seat)`), so a set of games gives the same outcomes however it
is split: one worker, eight, or Ray tasks (tests/test_parallel.py checks this).
Outcomes come back in seed order; `on_done(k)` is called as games finish (for a progress bar).

Workers are forked from the calling process where the platform allows (they start with the
program already compiled); elsewhere each loads the rulebook itself. Ray (`pip install
mercator[ray]`) runs batches of games as tasks; `ray_address` None starts a local instance,
"auto" or "ray://host:port" joins a cluster that can read the same rulebook path.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Optional, Sequence, Union

import attrs

from mercator.interpreter.agents.base import GameTooLong, agent_seed, play_out
from mercator.interpreter.agents.spec import AgentSpec, for_rulebook, make_agent
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.designer import GameRecord
from mercator.interpreter.tools.game_detail import GameDetail, Recorder
from mercator.dsl.errors import MercatorError


class BackendUnavailable(MercatorError, RuntimeError):
    """The backend asked for cannot run here (Ray not installed, or its cluster unreachable)."""


@attrs.frozen
class Outcome:
    """What one game gave: winners, scores, declared stats, its length — or why it failed."""

    seed: int
    winners: tuple[int, ...] = ()
    scores: tuple[Any, ...] = ()
    stats: tuple[int, ...] = ()
    decisions: int = 0
    rounds: int = 0
    failure: Optional[str] = None        # "rule" (a rule error) or "long" (too many decisions)
    message: str = ""
    history: tuple[int, ...] = ()
    span: Any = None                     # where the rule error is (a rule failure)
    detail: Optional[GameDetail] = None  # what the game did, when asked (play_one's detail)

    @property
    def record(self) -> GameRecord:
        """A finished game as the statistics take it."""
        return GameRecord(self.seed, self.winners, self.scores, self.decisions, self.rounds,
                          self.stats)

    def error(self) -> RuleError:
        """The rule error of a failed game, as the engine raised it."""
        return RuleError(self.message, self.span, list(self.history), self.seed)


def play_one(prog: Program, players: int, seed: int, specs: Sequence[AgentSpec],
             max_decisions: Optional[int], cores: Optional[int] = None,
             detail: bool = False) -> Outcome:
    """One game of `players` seats from `seed` between the bots `specs` name. `cores`: the
    processes a searching seat whose spec names none may search on (None: every core for a
    time budget; a game on a worker of many gets 1, its worker being one core already).
    `detail`: also record what the game did for the balance measures (tools/game_detail.py;
    the same game, played step by step with the rules traced, so slower)."""
    agents = [make_agent(for_rulebook(sp, prog.bot_settings), agent_seed(seed, p), cores)
              for p, sp in enumerate(specs)]
    record = any(sp.needs_record for sp in specs)
    state = None
    recorder = Recorder(prog) if detail else None
    try:
        if recorder is None:
            state = prog.new_game(players, seed, narrate=record, explicit_chance=record)
            play_out(prog, state, agents, max_decisions=max_decisions)
        else:
            recorder.start()
            state = prog.new_game(players, seed, narrate=record, explicit_chance=record)
            recorder.begin(state)
            play_out(prog, state, recorder.agents(agents), on_step=recorder.step,
                     max_decisions=max_decisions)
    except RuleError as exc:
        return Outcome(seed, failure="rule", message=exc.message, history=tuple(exc.history),
                       span=exc.span)
    except GameTooLong as exc:
        assert state is not None
        return Outcome(seed, failure="long", message=str(exc), history=tuple(state.history))
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()
        if recorder is not None:
            recorder.stop()
    node = state.pending
    return Outcome(seed, tuple(node.winners), tuple(node.scores), tuple(state.stats),
                   len(state.history), state.round,
                   detail=recorder.detail() if recorder is not None else None)


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                # (not on every platform)
        return max(1, os.cpu_count() or 1)


# the program a forked worker inherits, or loads from its path (spawned workers)
_WORKER: dict[Any, Any] = {}

# what names a program to a worker: a rulebook's path, or (path, overrides) for the rulebook
# with some constants set otherwise (`mercator sweep`: tools/overrides.py)
ProgramKey = Union[str, tuple[str, tuple[Any, ...]]]


def _load(path: ProgramKey) -> Program:
    """The program of the rulebook at path in a worker: the one it inherited, or the front
    door's (tools/game.py; RulebookError if the file no longer checks); for (path, overrides)
    the rulebook with those overrides (tools/overrides.py)."""
    prog = _WORKER.get(path)
    if prog is None:
        if isinstance(path, tuple):
            from mercator.interpreter.tools.overrides import program_with
            prog = _WORKER[path] = program_with(path[0], path[1])
        else:
            from mercator.interpreter.tools.game import load_game
            prog = _WORKER[path] = load_game(path).program
    return prog


def _absolute(path: ProgramKey) -> ProgramKey:
    """The key with its rulebook path made absolute (for Ray's workers)."""
    if isinstance(path, tuple):
        return (os.path.abspath(path[0]), path[1])
    return os.path.abspath(path)


def _batch(path: ProgramKey, players: int, seeds: list[int], specs: tuple[AgentSpec, ...],
           max_decisions: Optional[int], detail: bool = False) -> list[Outcome]:
    prog = _load(path)
    return [play_one(prog, players, s, specs, max_decisions, cores=1, detail=detail)
            for s in seeds]


def _batches(seeds: Sequence[int], workers: int, single: bool = False) -> list[list[int]]:
    """Seeds in consecutive batches, several per worker (so progress is seen and the load
    evens out); one game a batch when `single` (games of searching bots kept as they finish)."""
    n = len(seeds)
    size = 1 if single else max(1, min(50, n // (workers * 8) or 1))
    return [list(seeds[i:i + size]) for i in range(0, n, size)]


def run_games(path: ProgramKey, prog: Program, players: int, seeds: Sequence[int],
              specs: Sequence[AgentSpec], max_decisions: Optional[int] = None,
              workers: int = 1, on_done: Optional[Callable[[int], None]] = None,
              backend: str = "local", ray_address: Optional[str] = None,
              on_outcomes: Optional[Callable[[list[Outcome]], None]] = None,
              detail: bool = False) -> list[Outcome]:
    """The outcome of a game from each seed, in seed order. `on_done(k)` hears how many games
    have finished, `on_outcomes(batch)` gets the outcomes of each batch as it finishes (a
    results file keeps them at once: tools/results.py); `detail`: each game's detail for the
    balance measures (play_one)."""
    specs = tuple(specs)
    if backend == "ray":
        return _run_ray(path, players, seeds, specs, max_decisions, on_done, ray_address,
                        on_outcomes, detail)
    if workers <= 1 or len(seeds) <= 1:
        out = []
        for s in seeds:
            out.append(play_one(prog, players, s, specs, max_decisions, detail=detail))
            if on_outcomes is not None:
                on_outcomes(out[-1:])
            if on_done is not None:
                on_done(len(out))
        return out
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    _WORKER[path] = prog                  # what forked workers start with
    results: dict[int, list[Outcome]] = {}
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        todo = {pool.submit(_batch, path, players, b, specs, max_decisions, detail): k
                for k, b in enumerate(_batches(seeds, workers, _single(specs, on_outcomes)))}
        while todo:
            finished, _ = wait(todo, return_when=FIRST_COMPLETED)
            for f in finished:
                k = todo.pop(f)
                results[k] = f.result()
                if on_outcomes is not None:
                    on_outcomes(results[k])
                done += len(results[k])
                if on_done is not None:
                    on_done(done)
    return [o for k in sorted(results) for o in results[k]]


def _single(specs: Sequence[AgentSpec], on_outcomes: Any) -> bool:
    """Run one game a batch? When each outcome is kept as it comes and the bots search (a
    game then takes seconds or minutes: a batch of them would hold back what is done)."""
    return on_outcomes is not None and any(sp.kind != "random" for sp in specs)


# what the forked workers of run_parts inherit: the function to run and the queue of notes
_PARTS: dict[str, Any] = {}


def _ignore(*note: Any) -> None:
    """A note nobody reads."""


def _run_part(part: Any) -> Any:
    q = _PARTS["queue"]
    return _PARTS["fn"](part, lambda *note: q.put(note))


def _drain(q: Any, on_note: Optional[Callable[..., None]]) -> None:
    while True:
        try:
            note = q.get_nowait()
        except queue.Empty:
            return
        if on_note is not None:
            on_note(*note)


def run_parts(fn: Callable[[Any, Callable[..., None]], Any], parts: Sequence[Any],
              workers: int = 1, on_note: Optional[Callable[..., None]] = None,
              last: Optional[Callable[[Any], bool]] = None) -> list[Any]:
    """fn(part, note) for each part, on `workers` forked processes; the results in part
    order, up to and including the first one for which `last(result)` holds (later parts
    are dropped: those not started are not run), so the list is the same for any number of
    workers. note(*args), called by fn in a worker, reaches on_note(*args) here as it happens
    (progress across workers). Without fork (not on every platform) the parts run here, one
    after the other."""
    if workers <= 1 or len(parts) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        out = []
        for part in parts:
            out.append(fn(part, on_note or _ignore))
            if last is not None and last(out[-1]):
                break
        return out
    ctx = multiprocessing.get_context("fork")
    notes = ctx.Queue()
    _PARTS.update(fn=fn, queue=notes)
    results: dict[int, Any] = {}
    stop = len(parts)
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            todo: dict[Future, int] = {pool.submit(_run_part, p): k for k, p in enumerate(parts)}
            while todo:
                finished, _ = wait(todo, timeout=0.2, return_when=FIRST_COMPLETED)
                _drain(notes, on_note)
                for f in finished:
                    k = todo.pop(f)
                    if k >= stop:
                        continue
                    results[k] = f.result()
                    if last is not None and last(results[k]):
                        stop = k
                        for g in [g for g, j in todo.items() if j > k and g.cancel()]:
                            del todo[g]
        _drain(notes, on_note)
    finally:
        _PARTS.clear()
    return [results[k] for k in range(min(stop + 1, len(parts)))]


def _run_ray(path: ProgramKey, players: int, seeds: Sequence[int], specs: tuple[AgentSpec, ...],
             max_decisions: Optional[int], on_done: Optional[Callable[[int], None]],
             address: Optional[str],
             on_outcomes: Optional[Callable[[list[Outcome]], None]] = None,
             detail: bool = False) -> list[Outcome]:
    try:
        import ray
    except ImportError:
        raise BackendUnavailable("the Ray backend needs Ray: pip install 'mercator[ray]'") \
            from None
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": _project_root()}})
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise BackendUnavailable(f"cannot reach the Ray cluster at {address}: {exc}") \
                from None
    task: Any = ray.remote(_batch)        # (its typed stubs stop at fewer arguments)
    batches = _batches(seeds, max(1, int(ray.cluster_resources().get("CPU", 1))),
                       _single(specs, on_outcomes))
    refs = [task.remote(_absolute(path), players, b, specs, max_decisions, detail)
            for b in batches]
    order = {r: k for k, r in enumerate(refs)}
    results: dict[int, list[Outcome]] = {}
    pending, done = list(refs), 0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for r in ready:
            results[order[r]] = ray.get(r)
            if on_outcomes is not None:
                on_outcomes(results[order[r]])
            done += len(results[order[r]])
            if on_done is not None:
                on_done(done)
    return [o for k in sorted(results) for o in results[k]]


def _project_root() -> str:
    """The folder holding the dsl and interpreter packages (for Ray's workers)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
