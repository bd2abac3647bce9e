"""Steps per second through the research adapters beside the raw engine, in one run.

    .venv/bin/python benchmarks/bench_adapters.py [--rulebook manila] [--players 4] [--games 5]
                                                  [--repeat 3] [--against CHECKOUT]

For the same rulebook and player count, `--games` games (seeds 0 ..) of uniformly random play:
- engine      the apply loop, a random option index per decision (explicit chance off);
- same games  the same loop on the games the lines below play (a random legal id at a time,
              which plays other games than a random option: Manila's are longer, with more
              bids), their option indices found first, untimed: the engine's own cost of them;
- engine+ids  the same loop, but every decision's options written out as action ids and taken
              one id at a time, the way the adapters do (interpreter/engine/encoding.py
              ActionCodec.menu; on a checkout without menus, its sequences, legal_ids and
              take, through a wrapper that costs it two calls a step);
- chance      the engine line with chance as steps (explicit_chance=True: each roll, draw and
              shuffle step a chance node, an outcome picked at random, each alike), as the
              openspiel line has it; decisions counted, not chance steps (other games again);
- openspiel   pyspiel states of interpreter/research/openspiel.py: legal_actions() or
              chance_outcomes() then apply_action(), a random one, to the end (chance as nodes,
              narration on, as OpenSpiel needs for information states);
- pettingzoo  the AEC environment of interpreter/research/pettingzoo.py: last() (the
              observation tensor and action mask), then step() with a random legal id,
              picked by Python's random.Random(seed).choice on np.flatnonzero of the mask,
              as the engine lines pick (numpy's Generator.choice costs 12 µs a call; it
              picked before 2026-12-06, so older numbers are not comparable).
Each line: decisions of the rules per second, and moves per second where a move is one id.
The ratio column is the engine's decisions/s over that line's. Needs the openspiel and
pettingzoo extras (a missing one is skipped, saying so). Rates are of CPU time (process_time:
on a shared machine, wall-clock rates moved by a third from one round to the next). Each path
runs --repeat rounds, in turn with the others, and prints its best. With --against CHECKOUT,
this script also runs once a round on another checkout (its engine and adapters: PYTHONPATH
set to it; a codec without `take` is driven by settle and decode), and once on this checkout
the same way, each a fresh process of one round; both checkouts' best rates of those are
printed below, with how many times faster this checkout's are. (Rounds in one long process
are not comparable with a fresh process's one round: OpenSpiel's codec stays warm from round
to round, and the engine line ran 10% slower in the long process.) Each path's round starts
after gc.collect(): otherwise the objects the paths before it made (in Manila 4p, 151,000
live after the four others, 57,000 without) came due as a full pass of the collector in the
next path's round — in a fresh process, PettingZoo's first round ran at 0.8x the rate of its
later ones (2026-12-06, session 29).

    .venv/bin/python benchmarks/bench_adapters.py --spec

prints instead the spec of every shipped game at its smallest and largest player count: ids,
the most ids a decision takes, the longest game in moves, the observation tensor's cells and
the information-state tensor's.
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))    # this checkout
if not os.environ.get("PYTHONPATH"):      # another checkout on PYTHONPATH (--against) is measured
    sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # bench_common (no engine)
from bench_common import checkout_error, run_fresh  # noqa: E402
from mercator.interpreter.engine.encoding import ActionCodec  # noqa: E402
from mercator.interpreter.research.common import program_for  # noqa: E402


def clock() -> float:
    """CPU seconds of this process: what other work on a shared machine takes from it is not
    counted (wall-clock rates there moved by a third from one round to the next)."""
    return time.process_time()


def _take(codec, seqs, taken, a):
    """codec.take, or settle then decode on a checkout whose codec has no take."""
    if hasattr(codec, "take"):
        return codec.take(seqs, taken, a)
    now = codec.settle(seqs, taken + (a,))
    return now, codec.decode(seqs, now)


class _Seqs:
    """The menu of a decision on a checkout whose codec has no `menu`: its sequences, taken by
    its legal_ids and take (two calls more a step than a menu's own)."""

    __slots__ = ("codec", "seqs")

    def __init__(self, codec, s):
        self.codec = codec
        self.seqs = codec.sequences(s, s.pending)

    def legal(self, taken):
        return self.codec.legal_ids(self.seqs, taken)

    def take(self, taken, a):
        return _take(self.codec, self.seqs, taken, a)


def _pick(codec, s, rng) -> tuple[int, int]:
    """The decision s waits at, taken a random legal id at a time, the way the adapters take
    it: (the option named, the ids taken)."""
    menu = codec.menu(s, s.pending) if hasattr(codec, "menu") else _Seqs(codec, s)
    taken: tuple[int, ...] = ()
    n = 0
    while True:
        taken, i = menu.take(taken, rng.choice(menu.legal(taken)))
        n += 1
        if i is not None:
            return i, n


def engine(prog, players: int, games: int) -> tuple[int, int, float]:
    t = clock()
    dec = 0
    for g in range(games):
        s = prog.new_game(players, g)
        rng = random.Random(g)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            dec += 1
    return dec, dec, clock() - t


def engine_chance(prog, players: int, games: int) -> tuple[int, int, float]:
    """The apply loop with chance as steps (explicit_chance=True), as OpenSpiel's games have
    it: a random option index at a decision, a random outcome (each alike, as the openspiel
    line picks them) at a chance node; only decisions counted."""
    from mercator.interpreter.engine.nodes import Chance
    t = clock()
    dec = 0
    for g in range(games):
        s = prog.new_game(players, g, explicit_chance=True)
        rng = random.Random(g)
        while not s.over:
            node = s.pending
            prog.apply(s, rng.randrange(len(node.values) if node.__class__ is Chance
                                        else node.count))
            dec += node.__class__ is not Chance
    return dec, dec, clock() - t


def replayed(prog, players: int, games: int) -> tuple[int, int, float]:
    """The apply loop on the games engine_ids plays (a random id at a time): their option
    indices, found first (untimed), applied by the raw engine, chance inside apply as in the
    first line — the engine's own cost of the very games the adapters play."""
    logs = []
    codec = ActionCodec(prog, players)
    for g in range(games):
        s = prog.new_game(players, g)
        rng = random.Random(g)
        while not s.over:
            prog.apply(s, _pick(codec, s, rng)[0])
        logs.append(s.history)
    t = clock()
    dec = 0
    for g, log in enumerate(logs):
        s = prog.new_game(players, g)
        for i in log:
            prog.apply(s, i)
        dec += len(log)
    return dec, dec, clock() - t


def engine_ids(prog, players: int, games: int) -> tuple[int, int, float]:
    codec = ActionCodec(prog, players)
    t = clock()
    dec = moves = 0
    for g in range(games):
        s = prog.new_game(players, g)
        rng = random.Random(g)
        while not s.over:
            i, n = _pick(codec, s, rng)
            moves += n
            prog.apply(s, i)
            dec += 1
    return dec, moves, clock() - t


def openspiel(name: str, players: int, games: int) -> tuple[int, int, float]:
    import pyspiel
    import mercator.interpreter.research.openspiel  # noqa: F401
    game = pyspiel.load_game("mercator", {"rulebook": name, "players": players})
    t = clock()
    dec = moves = 0
    for g in range(games):
        rng = random.Random(g)
        st = game.new_initial_state()
        while not st.is_terminal():
            chance = st.is_chance_node()
            if chance:
                a = rng.choice(st.chance_outcomes())[0]
            else:
                a = rng.choice(st.legal_actions())
                moves += 1
            before = len(st._s.history)
            st.apply_action(a)
            if not chance and len(st._s.history) > before:
                dec += 1                      # a decision of the rules completed
    return dec, moves, clock() - t


def pettingzoo(name: str, players: int, games: int) -> tuple[int, int, float]:
    import numpy as np
    from mercator.interpreter.research.pettingzoo import env
    e = env(name, players)
    t = clock()
    dec = moves = 0
    for g in range(games):
        e.reset(seed=g)
        rng = random.Random(g)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            moves += 1
        dec += len(e._s.history)
    return dec, moves, clock() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rulebook", default="manila")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds of every path; each path's best round is printed (3)")
    ap.add_argument("--spec", action="store_true", help="print the specs of the shipped games")
    ap.add_argument("--against", metavar="CHECKOUT",
                    help="also run this script on CHECKOUT once a round (another checkout of "
                         "this project, e.g. the commit before: git worktree add ../before "
                         "COMMIT) and print its rates beside")
    a = ap.parse_args()
    if a.against and checkout_error(a.against):
        ap.error(f"--against {checkout_error(a.against)}")
    if a.spec:
        from mercator.interpreter.engine.infostate import InfoStateEncoder
        from mercator.interpreter.engine.observation import Observer
        print(f"{'rulebook':<14} {'players':>7} {'ids':>6} {'ids/decision':>12} "
              f"{'max length':>10} {'cells':>6} {'info cells':>10}")
        for name in ("manila", "die_haendler", "felinia", "genoa"):
            prog = program_for(name)
            g = prog.rb.game
            for n in sorted({g.min_players, g.max_players}):
                spec = ActionCodec(prog, n).spec()
                try:
                    cells = str(Observer(prog, n).total)
                    info = str(InfoStateEncoder(prog, n).total)
                except Exception as exc:          # a field or bound missing: say which
                    cells, info = f"- ({exc})", "-"
                print(f"{name:<14} {n:>7} {spec.num_distinct_actions:>6} "
                      f"{spec.max_steps_per_decision or '-':>12} "
                      f"{spec.max_game_length or '-':>10} {cells:>6} {info:>10}")
        return 0
    prog = program_for(a.rulebook)
    base = None
    print(f"{a.rulebook}, {a.players} players, {a.games} random games each, "
          f"the best of {a.repeat} rounds")
    print(f"{'path':<12} {'decisions/s':>12} {'moves/s':>10} {'engine / this':>14}")
    paths = [("engine", lambda: engine(prog, a.players, a.games)),
             ("same games", lambda: replayed(prog, a.players, a.games)),
             ("engine+ids", lambda: engine_ids(prog, a.players, a.games)),
             ("chance", lambda: engine_chance(prog, a.players, a.games)),
             ("openspiel", lambda: openspiel(a.rulebook, a.players, a.games)),
             ("pettingzoo", lambda: pettingzoo(a.rulebook, a.players, a.games))]
    best: dict[str, tuple[int, int, float]] = {}
    skipped: dict[str, str] = {}
    old: dict[str, tuple[float, float]] = {}
    fresh: dict[str, tuple[float, float]] = {}     # this checkout's, as --against measures
    for _ in range(a.repeat):        # rounds of every path in turn: a load that comes and
        for label, run in paths:     # goes slows each path alike; each keeps its best round
            if label in skipped:
                continue
            gc.collect()             # each path starts owing the collector nothing (below)
            try:
                got = run()
            except ImportError as exc:
                skipped[label] = str(exc)
                continue
            if label not in best or got[2] < best[label][2]:
                best[label] = got
        if a.against:                # both checkouts as fresh processes, one round each
            for into, checkout in ((old, a.against), (fresh, HERE)):
                for label, rates in _rates_at(checkout, a).items():
                    if label not in into or rates[0] > into[label][0]:
                        into[label] = rates
    for label, _ in paths:
        if label in skipped:
            print(f"{label:<12} skipped: {skipped[label]} (install the extra)")
            continue
        dec, moves, secs = best[label]
        rate = dec / secs
        base = base or rate
        print(f"{label:<12} {rate:12,.0f} {moves / secs:10,.0f} {base / rate:13.1f}x")
    if a.against:
        for title, rates in ((f"--against {a.against}, in the same rounds:", old),
                             ("this checkout, measured the same way:", fresh)):
            print(title)
            first = rates.get("engine", (0.0, 0.0))[0]
            for label, _ in paths:
                if label in rates:
                    r, m = rates[label]
                    mine = fresh.get(label, (0.0, 0.0))[0]
                    print(f"{label:<12} {r:12,.0f} {m:10,.0f} {first / r:13.1f}x" +
                          (f"   (this checkout: {mine / r:.1f}x its rate)"
                           if rates is old else ""))
    return 0


def _rates_at(checkout: str, a: argparse.Namespace) -> dict[str, tuple[float, float]]:
    """One round of this script on another checkout (its engine and adapters: PYTHONPATH set
    to it, the same measuring code): (decisions/s, moves/s) per path, read from what it
    prints."""
    out = run_fresh(checkout, __file__, ["--rulebook", a.rulebook, "--players", str(a.players),
                                         "--games", str(a.games), "--repeat", "1"])
    out.check_returncode()
    rates: dict[str, tuple[float, float]] = {}
    for line in out.stdout.splitlines():
        label, parts = line[:12].strip(), line[12:].split()
        if len(parts) == 3 and parts[2].endswith("x") and parts[0].replace(",", "").isdigit():
            rates[label] = (float(parts[0].replace(",", "")), float(parts[1].replace(",", "")))
    return rates


if __name__ == "__main__":
    sys.exit(main())
