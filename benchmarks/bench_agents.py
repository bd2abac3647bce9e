"""How well the search agents play, measured resumably: an agent's win rate (with its 95% Wilson
interval) against other bots, its time per decision and the playouts per second inside its
search; `compare` of rulebooks with searching seats; the speed-up of `simulate` on workers.

Every finished game appends one JSON line to the results file (benchmarks/results/agents.jsonl
by default): its config, seed, seats (and every setting each searching seat's spec means),
scores, winners, decisions, seconds, and the tested agent's decisions, CPU seconds, playouts
and rollout decisions. A rerun skips the games whose config and seed are already there, so a
long measurement can be stopped and taken up again — unless the spec meant other settings
when they were played (a default changed since): then it stops and says so. `--report` prints
the tables (markdown) from whatever the file holds, games of one spec played with different
settings in rows of their own.

In a match the agent sits at seat g mod N in game g, the others are `--vs` (every seat equally
often over a multiple of N games); each game's randomness comes from its seed (as in
`mercator simulate`), so for iteration budgets a game is the same on any machine.

  .venv/bin/python benchmarks/bench_agents.py rulebooks/manila.rules --players 3 \\
      --agent ismcts:200 --vs random --games 100          # one match
  nice -n 10 .venv/bin/python benchmarks/bench_agents.py --plan     # everything, in order
  .venv/bin/python benchmarks/bench_agents.py --report              # the tables so far
  .venv/bin/python benchmarks/bench_agents.py --todo --workers 2    # what the plan has left
  .venv/bin/python benchmarks/bench_agents.py rulebooks/manila.rules --players 3 \\
      --agent heuristic --vs ismcts:200,random --games 30   # the game's heuristic anchor
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from typing import Any, Iterable, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.errors import MercatorError  # noqa: E402
from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.spec import (SEARCHERS, for_rulebook, make_agent,  # noqa: E402
                                             parse_seats, parse_spec, search_settings)
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine.program import MercatorRuntimeError  # noqa: E402
from mercator.interpreter.engine.nodes import Decision  # noqa: E402

Z95 = 1.959963984540054
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "agents.jsonl")
_PROG: dict[str, Any] = {}

M, DH, FE, GE = ("rulebooks/manila.rules", "rulebooks/die_haendler.rules",
                 "rulebooks/felinia.rules", "rulebooks/genoa.rules")
PIRATES, HOUSE = "rulebooks/variants/manila_pirates.rules", \
    "rulebooks/variants/manila_house_rule.rules"


def match(rulebook: str, players: int, agent: str, vs: str = "random") -> dict:
    return {"kind": "match", "rulebook": rulebook, "players": players, "agent": agent, "vs": vs}


def seats(rulebook: str, players: int, spec: str) -> dict:
    """Games with the same bot at every seat (what `compare` plays on each rulebook). Version 3
    of the measures: each game's record keeps its history, so a stat added to the rulebook
    later is counted by replaying it (`restat`), not by searching again; versions 1 and 2
    (before Manila's insurances, mortgages, bonuses and evictions) had none."""
    return {"kind": "seats", "rulebook": rulebook, "players": players, "seats": spec,
            "measures": 3}


def speedup(rulebook: str, players: int, games: int, workers: int) -> dict:
    return {"kind": "speedup", "rulebook": rulebook, "players": players, "games": games,
            "workers": workers}


# The measurements issue 14 asks for, in the order they are run (a config listed twice is
# first run to the smaller number of games, so every row has some games early on).
PLAN: list[tuple[dict, int]] = [
    (match(M, 3, "ismcts:200"), 30), (match(M, 5, "ismcts:200"), 30),
    (speedup(M, 4, 400, 1), 1), (speedup(M, 4, 400, 2), 1),
    (match(DH, 2, "ismcts:200"), 30), (match(DH, 4, "ismcts:200"), 32),
    (speedup(M, 4, 4000, 1), 1), (speedup(M, 4, 4000, 2), 1),
    (match(M, 3, "ismcts:200"), 102), (match(M, 5, "ismcts:200"), 100),
    (match(DH, 2, "ismcts:200"), 100), (match(DH, 4, "ismcts:200"), 100),
    (match(M, 3, "ismcts:1000", "ismcts:100"), 30), (match(M, 3, "mcts:200", "ismcts:200"), 30),
    (seats(M, 3, "ismcts:50"), 30), (seats(PIRATES, 3, "ismcts:50"), 30),
    (seats(HOUSE, 3, "ismcts:50"), 30),
    (seats(M, 3, "ismcts:50"), 100), (seats(PIRATES, 3, "ismcts:50"), 100),
    (seats(HOUSE, 3, "ismcts:50"), 100),
    (match(FE, 2, "ismcts:200"), 30), (match(FE, 4, "ismcts:200"), 32),
    (match(FE, 2, "ismcts:200"), 100), (match(FE, 4, "ismcts:200"), 100),
    (seats(M, 3, "ismcts:50"), 200), (seats(PIRATES, 3, "ismcts:50"), 200),
    (seats(HOUSE, 3, "ismcts:50"), 200),               # 100 do not settle the variants' effects
    (match(GE, 2, "ismcts:200"), 30), (match(GE, 5, "ismcts:200"), 30),
    (match(M, 3, "ismcts:1000", "ismcts:100"), 102),   # significant at 30 games already
    (match(M, 3, "mcts:200", "ismcts:200"), 102),      # the price of honesty: n.s. at 30
    (match(GE, 2, "ismcts:200"), 100), (match(GE, 5, "ismcts:200"), 100),
    # the pirates' evictions, about 1 in 100 games under both random and searching play: a
    # count of k events is significant near t = sqrt(k) (docs/variants.md)
    (seats(M, 3, "ismcts:50"), 400), (seats(PIRATES, 3, "ismcts:50"), 400),
    (seats(M, 3, "ismcts:50"), 900), (seats(PIRATES, 3, "ismcts:50"), 900),
]


# ------------------------------------------------------------------ heuristic seats
# `heuristic` names the game's heuristic anchor: benchmarks/heuristic_<game>.py, a plain-Python
# player written as a good casual player plays, reading only its seat's information (docs/
# agents.md, "Heuristic anchors"). Each such module says which game it plays (GAME, the
# rulebook's `game` name; a variant's program is named "<game> — <variant>") and which class
# plays it (AGENT, made with a seed, with `choose(program, state) -> int`): adding a game's
# anchor is adding its file.
HEURISTIC = "heuristic"


class HeuristicSpec:
    """A seat played by the game's heuristic anchor."""

    kind = HEURISTIC
    # it reads the seat's observation, which holds the seat's log only in a narrated game (the
    # Die Händler anchor learns the fee named to it there): games with an anchor are narrated
    # (since session 38; before, only where a searcher sat, so an anchor against random or
    # `prefer` players could not see a fee and paid any)
    needs_record = True
    honest = True

    def __str__(self) -> str:
        return HEURISTIC


def seat_spec(text: str) -> Any:
    """One seat's player: `heuristic`, or any spec `mercator` takes (random, ismcts:200, ...)."""
    return HeuristicSpec() if text.strip().lower() == HEURISTIC else parse_spec(text)


def _heuristic_module(path: str) -> Any:
    """The module of a heuristic_<game>.py file, imported once (under its file's name)."""
    import importlib.util
    name = os.path.basename(path)[:-3]
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return mod


def heuristic_file(game: str) -> str:
    """Where a game's anchor is: benchmarks/heuristic_<game>.py, the game's name in lower case
    with umlauts spelled out and other runs of signs as "_" ("Die Händler": die_haendler)."""
    import re
    t = game.lower()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        t = t.replace(a, b)
    return os.path.join(HERE, f"heuristic_{re.sub(r'[^a-z0-9]+', '_', t).strip('_')}.py")


def heuristics() -> dict[str, Any]:
    """Every heuristic anchor in benchmarks/: game name -> the agent class of its module."""
    import glob
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "heuristic_*.py"))):
        mod = _heuristic_module(path)
        out[mod.GAME] = mod.AGENT
    return out


def heuristic_for(prog: Any) -> Any:
    """The heuristic anchor's class for a program (its game's, for a variant too): only that
    game's file is imported."""
    game = prog.name.split(" — ")[0]
    path = heuristic_file(game)
    if os.path.exists(path):
        mod = _heuristic_module(path)
        if mod.GAME == game:
            return mod.AGENT
    found = heuristics()
    if game not in found:
        raise SystemExit(f"no heuristic player for {prog.name!r}: there is one for "
                         f"{', '.join(sorted(found)) or 'no game'} (benchmarks/heuristic_*.py)")
    return found[game]


def seat_agent(spec: Any, seed: int, prog: Any) -> Any:
    """The bot of a seat's spec, seeded."""
    if spec.kind == HEURISTIC:
        return heuristic_for(prog)(seed)
    return make_agent(for_rulebook(spec, prog.bot_settings), seed)


def seat_settings(spec: Any, prog: Any) -> Optional[dict]:
    """What a searching seat's spec means with today's defaults (spec.search_settings), stored
    with each game: a spec's text means other settings once a default changes. None for a
    seat that does not search (random, the anchor). The rulebook's `bots { ... }` settings
    count where the spec names none (spec.for_rulebook)."""
    if getattr(spec, "kind", None) not in SEARCHERS:
        return None
    return search_settings(for_rulebook(spec, prog.bot_settings))


def tested_settings(r: dict) -> Optional[str]:
    """The tested seat's settings in a game's record, as one line of text; None where the
    record predates them (before 2026-12-05, session 22) or the seat does not search."""
    settings = r.get("settings")
    if not settings:
        return None
    mine = settings[r.get("tested", 0)]
    return None if mine is None else json.dumps(mine, sort_keys=True)


def settings_conflict(config: dict, results: list[dict]) -> Optional[str]:
    """Why the games of `config` in `results` cannot be added to: the tested seat's spec
    meant other settings when they were played (None: they can, or no record says)."""
    if config["kind"] != "match":
        return None
    now = seat_settings(seat_spec(config["agent"]), _program(config["rulebook"]))
    if now is None:
        return None
    key = key_of(config)
    for r in results:
        was = tested_settings(r) if key_of(r["config"]) == key else None
        if was is not None and json.loads(was) != now:
            old = json.loads(was)
            diff = ", ".join(f"{k}={old.get(k)} then, {now.get(k)} now"
                             for k in sorted(set(old) | set(now)) if old.get(k) != now.get(k))
            return (f"the file's games of {config['agent']!r} were played with other settings "
                    f"({diff}; seed {r['seed']}): today the spec means something else. Write to a "
                    f"new results file, or spell the settings out in the spec")
    return None


def other_seats(vs: str, players: int, cycle: int) -> list[Any]:
    """The specs of the seats after the tested one, clockwise: `vs` is one spec for all of them
    or one per seat (comma-separated, e.g. `ismcts:200,random`), taken in reverse order every
    other cycle of the table, so that over 2N games each order sits at every position."""
    parts = [seat_spec(x) for x in vs.split(",")]
    if len(parts) == 1:
        return parts * (players - 1)
    if len(parts) != players - 1:
        raise SystemExit(f"--vs {vs!r}: give one player for all the other seats or one for each "
                         f"of the {players - 1}")
    return parts[::-1] if cycle % 2 else parts


def key_of(config: dict) -> str:
    """The config as one line of text (the key that says which games are done)."""
    return json.dumps(config, sort_keys=True)


def wilson(k: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95 ** 2 / n
    c = (p + Z95 ** 2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


class Timed:
    """Wraps an agent: counts its decisions, the CPU seconds they took, its playouts and its
    rollout decisions."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.decisions = 0
        self.seconds = 0.0
        self.playouts = 0
        self.rollout = 0

    def choose(self, program: Any, state: Any) -> int:
        t = time.process_time()
        i = self.agent.choose(program, state)
        self.seconds += time.process_time() - t
        self.decisions += 1
        if state.pending.count > 1:
            self.playouts += getattr(self.agent, "last_iterations", 0)
            self.rollout += getattr(self.agent, "last_rollout_decisions", 0)
        return int(i)


def _program(path: str) -> Any:
    prog = _PROG.get(path)
    if prog is None:
        prog = _PROG[path] = compile_program(load(os.path.join(ROOT, path)).rulebook)
    return prog


def one_game(job: tuple[str, int]) -> dict:
    """Play the game of (config, seed); its JSON line."""
    key, seed = job
    config = json.loads(key)
    prog = _program(config["rulebook"])
    n = config["players"]
    if config["kind"] == "match":
        me = seed % n
        others = other_seats(config["vs"], n, seed // n)
        specs = [seat_spec(config["agent"]) if p == me else others[(p - me) % n - 1]
                 for p in range(n)]
    else:
        me = 0
        specs = parse_seats(config["seats"], n)
    agents: list[Any] = [seat_agent(sp, agent_seed(seed, p), prog) for p, sp in enumerate(specs)]
    agents[me] = timed = Timed(agents[me])
    record = any(sp.needs_record for sp in specs)
    t0 = time.perf_counter()
    state = prog.new_game(n, seed, narrate=record, explicit_chance=record)
    try:
        play_out(prog, state, agents, max_decisions=20_000)
    except MercatorRuntimeError as exc:     # a broken rule (in the game or a search's rollout)
        return {"config": config, "seed": seed, "error": str(exc).split("\n")[0],
                "seconds": round(time.perf_counter() - t0, 3)}
    node = state.pending
    return {"config": config, "seed": seed, "seats": [str(sp) for sp in specs], "tested": me,
            "settings": [seat_settings(sp, prog) for sp in specs],
            "scores": list(node.scores), "winners": list(node.winners),
            "stats": list(state.stats), "rounds": state.round, "history": list(state.history),
            "decisions": len(state.history), "seconds": round(time.perf_counter() - t0, 3),
            "agent": {"decisions": timed.decisions, "cpu": round(timed.seconds, 3),
                      "playouts": timed.playouts, "rollout": timed.rollout,
                      "fallbacks": getattr(timed.agent, "fallbacks", 0)}}


def restat(r: dict) -> Optional[dict]:
    """The record r with the stats its rulebook declares now, counted by replaying its history
    (stats change nothing in a game, so the replay makes the same decisions); None if it has
    no history or the replay does not end as the game did."""
    prog = _program(r["config"]["rulebook"])
    if len(r["stats"]) == len(prog.stat_names):
        return r
    if "history" not in r:
        return None
    record = any(seat_spec(x).needs_record for x in r["seats"])
    s = prog.new_game(r["config"]["players"], r["seed"], narrate=record, explicit_chance=record)
    for i in r["history"]:
        if s.over:
            return None
        prog.apply(s, i)
    if not s.over or list(s.pending.winners) != r["winners"]:
        return None
    return dict(r, stats=list(s.stats))


def read_results(path: str) -> list[dict]:
    """The JSON lines of the results file (a torn last line, from a run stopped while writing,
    is left out)."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def _mend(path: str) -> None:
    """End a torn last line (a run stopped while writing) so the next line starts afresh."""
    if os.path.exists(path) and os.path.getsize(path):
        with open(path, "rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")


def done_seeds(results: Iterable[dict]) -> dict[str, set[int]]:
    done: dict[str, set[int]] = defaultdict(set)
    for r in results:
        done[key_of(r["config"])].add(r["seed"])
    return done


def errors_path(path: str) -> str:
    """Where the games a rule error stopped are written: beside the results file."""
    root, ext = os.path.splitext(path)
    return f"{root}-errors{ext or '.jsonl'}"


def estimate(seconds: list[float], todo: int, workers: int) -> str:
    """How long `todo` more games take on `workers`, from the seconds the games played so far
    took (their mean): an estimate, worded as one; "" with none played."""
    if not seconds or todo <= 0:
        return ""
    mean = sum(seconds) / len(seconds)
    total = mean * todo / max(1, min(workers, todo))
    when = f"{total / 3600:.1f} h" if total >= 5400 else f"{total / 60:.0f} min"
    return (f"about {when} on {min(workers, todo)} worker{'s' if min(workers, todo) > 1 else ''}"
            f" (estimated from the {len(seconds)} played: {mean:.0f} s a game)")


def plan_todo(path: str, workers: int) -> list[str]:
    """A line per planned row not done yet: the games left and how long they may take."""
    results = read_results(path)
    done = done_seeds(results)
    secs: dict[str, list[float]] = defaultdict(list)
    for r in results:
        secs[key_of(r["config"])].append(float(r.get("seconds", 0)))
    lines, seen = [], set()
    for config, games in PLAN:
        key = key_of(config)
        if config["kind"] == "speedup" or (key, games) in seen:
            continue
        seen.add((key, games))
        left = len(set(range(games)) - done.get(key, set()))
        if left:
            est = estimate(secs.get(key, []), left, workers)
            lines.append(f"{describe(config)}: {left} of {games} games to play"
                         + (f", {est}" if est else ""))
    # in all: each config once, to its largest target (a later row includes an earlier one)
    total, unknown = 0.0, 0
    for key in {key_of(c) for c, _ in PLAN if c["kind"] != "speedup"}:
        target = max(g for c, g in PLAN if key_of(c) == key)
        left = len(set(range(target)) - done.get(key, set()))
        if left and secs.get(key):
            total += sum(secs[key]) / len(secs[key]) * left / max(1, min(workers, left))
        elif left:
            unknown += 1
    if lines:
        lines.append(f"in all: about {total / 3600:.1f} h on {workers} worker"
                     f"{'s' if workers > 1 else ''}, estimated from the games played"
                     + (f" ({unknown} configs with none played not counted)" if unknown else ""))
    return lines


def run_games(config: dict, games: int, path: str, workers: int) -> None:
    """Play the games of seeds 0..games-1 of `config` not in the results file yet, appending
    each as it finishes."""
    key = key_of(config)
    results = read_results(path)
    todo = sorted(set(range(games)) - done_seeds(results).get(key, set()))
    label = describe(config)
    conflict = settings_conflict(config, results) if todo else None
    if conflict:
        raise SystemExit(f"{path}: {label}: {conflict}")
    if not todo:
        print(f"{label}: {games} games done", file=sys.stderr)
        return
    est = estimate([float(r.get("seconds", 0)) for r in results if key_of(r["config"]) == key],
                   len(todo), workers)
    print(f"{label}: {len(todo)} games to play" + (f", {est}" if est else ""), file=sys.stderr,
          flush=True)
    jobs = [(key, s) for s in todo]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    _mend(path)

    def write(r: dict) -> None:
        if "error" in r:          # kept apart: the game is played again on the next run
            with open(errors_path(path), "a", encoding="utf-8") as f:
                f.write(json.dumps(r, sort_keys=True) + "\n")
            print(f"  {label} seed {r['seed']}: RULE ERROR, left out ({r['error']}); see "
                  f"{errors_path(path)}", file=sys.stderr, flush=True)
            return
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(r, sort_keys=True) + "\n")
        print(f"  {label} seed {r['seed']}: winners {r['winners']} ({r['seconds']:.0f} s)",
              file=sys.stderr, flush=True)
    if workers > 1 and len(jobs) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(workers, len(jobs))) as pool:
            for r in pool.imap_unordered(one_game, jobs, chunksize=1):
                write(r)
    else:
        for j in jobs:
            write(one_game(j))


def run_speedup(config: dict, path: str) -> None:
    """Time `simulate`'s games (random seats) on the config's workers; one JSON line."""
    from mercator.interpreter.agents.spec import AgentSpec
    from mercator.interpreter.tools.parallel import run_games as simulate
    key = key_of(config)
    if done_seeds(read_results(path)).get(key):
        return
    prog = _program(config["rulebook"])
    seeds = list(range(config["games"]))
    t0 = time.perf_counter()
    outs = simulate(os.path.join(ROOT, config["rulebook"]), prog, config["players"], seeds,
                    [AgentSpec("random")] * config["players"], workers=config["workers"])
    secs = time.perf_counter() - t0
    line = {"config": config, "seed": 0, "seconds": round(secs, 3),
            "winners": [list(o.winners) for o in outs]}
    _mend(path)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")
    print(f"{describe(config)}: {secs:.2f} s", file=sys.stderr)


def describe(config: dict) -> str:
    name = os.path.basename(config["rulebook"])
    if config["kind"] == "match":
        return f"{name} {config['players']}p {config['agent']} vs {config['vs']}"
    if config["kind"] == "seats":
        return f"{name} {config['players']}p {config['seats']} at every seat"
    return f"{name} {config['players']}p simulate {config['games']} games, " \
        f"{config['workers']} worker{'s' if config['workers'] > 1 else ''}"


# ------------------------------------------------------------------ the report
def report(path: str) -> str:
    """The tables of docs/agents.md and docs/variants.md from the results file (and, first, the
    games a rule error stopped, if any)."""
    results = read_results(path)
    done = done_seeds(results)
    errors = [e for e in read_results(errors_path(path))
              if e["seed"] not in done.get(key_of(e["config"]), set())]
    head = [f"RULE ERRORS: {len(errors)} game(s) stopped by a rule error and left out "
            f"(listed in {errors_path(path)}); the first: {describe(errors[0]['config'])} "
            f"seed {errors[0]['seed']}: {errors[0]['error']}", ""] if errors else []
    by: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by[key_of(r["config"])].append(r)
    notes: list[str] = []
    by = split_by_settings(by, notes)
    lines = ["| rulebook, players | agent vs the others | games | agent's win rate [95% CI] "
             "| fair share | s per decision (CPU) | playouts/s | rollout decisions/s "
             "| random fallbacks | score margin [95% CI] |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    order = [key_of(c) for c, _ in PLAN]
    keys = sorted((k for k in by if json.loads(k)["kind"] == "match"),
                  key=lambda k: (order.index(k) if k in order else len(order), k))
    for k in keys:
        rs = by[k]
        c = rs[0]["config"]
        n = len(rs)
        wins = sum(1.0 / len(r["winners"]) for r in rs if r["tested"] in r["winners"])
        lo, hi = wilson(wins, n)
        a = [r["agent"] for r in rs]
        cpu = sum(x["cpu"] for x in a)
        dec = sum(x["decisions"] for x in a)
        seats_even = len({r["tested"] for r in rs}) == c["players"] and \
            len({sum(1 for r in rs if r["tested"] == p) for p in range(c["players"])}) == 1
        lines.append(
            f"| {os.path.basename(c['rulebook'])[:-6]}, {c['players']} | `{c['agent']}`"
            f"{c.get('as_played', '')} vs "
            f"`{c['vs']}` | {n}{'' if seats_even else ' *'} | {100 * wins / n:.1f}% "
            f"[{100 * lo:.1f}, {100 * hi:.1f}] | {100 / c['players']:.1f}% | "
            f"{cpu / max(1, dec):.3f} | {sum(x['playouts'] for x in a) / cpu if cpu else 0:,.0f} "
            f"| {sum(x['rollout'] for x in a) / cpu if cpu else 0:,.0f} "
            f"| {sum(x['fallbacks'] for x in a)} | {margin_text(rs)} |")
    if any(ln.split("|")[3].endswith("* ") for ln in lines[2:]):
        lines += ["", "(* the tested seat has not sat at every position equally often yet)"]
    if notes:
        lines += ["", "The same spec played with different settings (a default changed between "
                  "runs):", *notes]
    speed = [r for r in results if r["config"]["kind"] == "speedup"]
    if speed:
        lines += ["", "| simulate | workers | seconds | speed-up |", "|---|---:|---:|---:|"]
        base = {(r["config"]["rulebook"], r["config"]["players"], r["config"]["games"]):
                r["seconds"] for r in speed if r["config"]["workers"] == 1}
        for r in speed:
            c = r["config"]
            b = base.get((c["rulebook"], c["players"], c["games"]))
            same = all(x["winners"] == r["winners"] for x in speed
                       if x["config"]["rulebook"] == c["rulebook"]
                       and x["config"]["games"] == c["games"])
            lines.append(f"| {os.path.basename(c['rulebook'])} {c['players']}p, {c['games']} "
                         f"games | {c['workers']} | {r['seconds']:.2f} | "
                         f"{b / r['seconds'] if b else 0:.2f}× |"
                         + ("" if same else " (winners differ!)"))
    lines += stats_report(by, keys)
    lines += ["", *compare_report(by)]
    return "\n".join(head + lines)


def split_by_settings(by: dict[str, list[dict]], notes: list[str]) -> dict[str, list[dict]]:
    """The games of one config apart where the tested seat's spec meant different settings
    when they were played (a default changed between runs): each part its own row, marked
    (settings 1), (settings 2), ..., with a note of what each meant. Games recorded before
    settings were stored stay with the first part."""
    out: dict[str, list[dict]] = {}
    for k, rs in by.items():
        kinds = sorted({t for t in map(tested_settings, rs) if t is not None})
        if len(kinds) < 2:
            out[k] = rs
            continue
        for i, t in enumerate(kinds, 1):
            part = [r for r in rs if tested_settings(r) == t or
                    (i == 1 and tested_settings(r) is None)]
            tag = f" (settings {i})"
            config = dict(part[0]["config"], as_played=tag)
            out[json.dumps(config, sort_keys=True)] = [dict(r, config=config) for r in part]
            notes.append(f"{describe(config)}{tag}: {t}")
    return out


def stats_by_seat(r: dict) -> Optional[list[list[int]]]:
    """Each seat's share of the record's stats: what each counter gained in the steps that
    seat's decisions started (a deal accepted, a boat plundered), by replaying the history;
    chance steps count for no seat. None without a history, or if the replay does not end as
    the game did (the rulebook was changed since: a step of the history is no longer an
    option, or the game ends elsewhere)."""
    if "history" not in r:
        return None
    prog = _program(r["config"]["rulebook"])
    n = r["config"]["players"]
    record = any(seat_spec(x).needs_record for x in r.get("seats", []))
    s = prog.new_game(n, r["seed"], narrate=record, explicit_chance=record)
    out = [[0] * len(prog.stat_names) for _ in range(n)]
    for i in r["history"]:
        if s.over:
            return None
        node = s.pending
        before = list(s.stats)
        try:
            prog.apply(s, i)
        except MercatorError:           # the rulebook has changed since the game was played
            return None
        if isinstance(node, Decision):
            for k, (a, b) in enumerate(zip(before, s.stats)):
                out[node.player][k] += b - a
    if not s.over or list(s.pending.winners) != r["winners"]:
        return None
    return out


def stats_report(by: dict[str, list[dict]], keys: list[str]) -> list[str]:
    """Per match, the mean per game of each stat its rulebook declares (Genoa's `deals`: the
    offers accepted), from the games that recorded them all; in a match, with the part that
    came of the tested seat's own decisions and of each other seat's on average
    (`stats_by_seat`)."""
    out = ["", "| rulebook, players | agent vs the others | games | mean per game |",
           "|---|---|---:|---|"]
    for k in keys:
        rs = by[k]
        c = rs[0]["config"]
        names = _program(c["rulebook"]).stat_names
        rs = [r for r in rs if len(r.get("stats", [])) == len(names)]
        if not names or not rs:
            continue
        parts = [(r, stats_by_seat(r)) for r in rs] if c["kind"] == "match" else []
        parts = [(r, x) for r, x in parts if x is not None]

        def mean(i: int, name: str) -> str:
            text = f"{name} {sum(r['stats'][i] for r in rs) / len(rs):.1f}"
            if parts:
                mine = sum(x[r["tested"]][i] for r, x in parts) / len(parts)
                others = sum(sum(x[p][i] for p in range(len(x)) if p != r["tested"])
                             / (len(x) - 1) for r, x in parts) / len(parts)
                text += f" (the tested seat's decisions {mine:.1f}, another seat's {others:.1f})"
            return text
        means = ", ".join(mean(i, name) for i, name in enumerate(names))
        out.append(f"| {os.path.basename(c['rulebook'])[:-6]}, {c['players']} | `{c['agent']}` "
                   f"vs `{c['vs']}` | {len(rs)} | {means} |")
    return out if len(out) > 3 else []


def margin_text(rs: list[dict]) -> str:
    """The tested seat's mean score less the best other seat's, with the normal 95% interval
    of that mean: a measure that still moves when the tested seat wins no game."""
    ms = [r["scores"][r["tested"]] - max(x for p, x in enumerate(r["scores"]) if p != r["tested"])
          for r in rs if len(r["scores"]) > 1]
    if not ms:
        return ""
    m = sum(ms) / len(ms)
    sd = math.sqrt(sum((x - m) ** 2 for x in ms) / (len(ms) - 1)) if len(ms) > 1 else 0.0
    h = Z95 * sd / math.sqrt(len(ms))
    return f"{m:+.1f} [{m - h:+.1f}, {m + h:+.1f}]"


def compare_report(by: dict[str, list[dict]]) -> list[str]:
    """`compare` of the base Manila against each variant, on the seeds both have played."""
    from mercator.interpreter.cli.design import _fmt, _p_cell
    from mercator.interpreter.tools.designer import GameRecord, compare_records, never_counted
    out: list[str] = []
    shown: set[str] = set()
    for variant in (PIRATES, HOUSE):
        for c, _ in PLAN:
            if c["kind"] != "seats" or c["rulebook"] != variant or key_of(c) in shown:
                continue
            shown.add(key_of(c))           # (a config planned more than once: 30, 100, 200)
            base = dict(c, rulebook=M)
            pa, pb = _program(M), _program(variant)
            # (a record made before a stat was added to the rulebook is replayed for it)
            ra = {r["seed"]: r for r in filter(None, map(restat, by.get(key_of(base), [])))}
            rb = {r["seed"]: r for r in filter(None, map(restat, by.get(key_of(c), [])))}
            common = sorted(set(ra) & set(rb))
            if len(common) < 2:
                continue

            def rec(r: dict) -> GameRecord:
                return GameRecord(r["seed"], tuple(r["winners"]), tuple(r["scores"]),
                                  r["decisions"], r["rounds"], tuple(r["stats"]))
            rows = compare_records([rec(ra[s]) for s in common], [rec(rb[s]) for s in common],
                                   c["players"], pa.stat_names, pb.stat_names,
                                   *never_counted(pa, pb))
            head = ["measure", "A", "B", "B−A", "95% CI of B−A", "p"]
            table = [head] + [[r.measure] + _fmt(r, r.measure.startswith("win rate"))
                              + [_p_cell(r)] for r in rows]
            widths = [max(len(row[i]) for row in table) for i in range(len(head))]
            out += [f"A: {M}", f"B: {variant}",
                    f"{c['players']} players · {len(common)} games each on the same seeds · "
                    f"seats: {c['seats']}", "```"]
            out += ["  ".join(x.ljust(widths[i]) if i == 0 else x.rjust(widths[i])
                              for i, x in enumerate(row)) for row in table]
            out += ["```", ""]
    return out


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook", nargs="?")
    ap.add_argument("--players", type=int)
    ap.add_argument("--agent", default="ismcts:200",
                    help="the tested seat's player: a spec (ismcts:200, random, ...) or "
                         "'heuristic' (the game's anchor, benchmarks/heuristic_<game>.py)")
    ap.add_argument("--vs", default="random",
                    help="the other seats' player (default: random), or one per other seat, "
                         "comma-separated (ismcts:200,random)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--results", default=RESULTS, help="the JSON lines file (appended to)")
    ap.add_argument("--plan", action="store_true", help="run every planned measurement")
    ap.add_argument("--report", action="store_true", help="print the tables and stop")
    ap.add_argument("--todo", action="store_true",
                    help="print what the plan has left to play, with estimated times, and stop")
    a = ap.parse_args(argv)
    if a.report:
        print(report(a.results))
        return
    if a.todo:
        print("\n".join(plan_todo(a.results, a.workers)) or "the plan is done")
        return
    if a.plan:
        for config, games in PLAN:
            if config["kind"] == "speedup":
                run_speedup(config, a.results)
            else:
                run_games(config, games, a.results, a.workers)
        return
    if a.rulebook is None or a.players is None:
        ap.error("give a rulebook and --players (or --plan, or --report)")
    rulebook = os.path.relpath(os.path.abspath(a.rulebook), ROOT)
    run_games(match(rulebook, a.players, a.agent, a.vs), a.games, a.results, a.workers)
    print(report(a.results))


if __name__ == "__main__":
    main()
