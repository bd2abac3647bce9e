"""How close the generated code of a fn comes to hand-written Python, on Manila's placement
options (a quarter of a Manila rollout): at the placement decisions of seeded random games,
the compiled fns `free_paid_spaces`, `is_blind_passenger` and `placeable_spaces` are timed
beside (a) the same three passes written by hand over the same state and (b) one hand-written
pass that finds the free spaces, the cheapest and the affordable ones together (what
benchmarks/plain_manila.py does). Every hand-written answer is checked against the
rulebook's. The fns' memory is off, so each call computes its value, as the first call of a
decision does.

  .venv/bin/python benchmarks/bench_generated.py --states 40 --number 2000
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import timeit
from typing import Any, Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine import limits  # noqa: E402

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rulebooks",
                     "manila.rules")
PROMPT = "place an accomplice"


def placement_states(prog: Any, count: int) -> list[tuple[Any, int]]:
    """(state, player) at the first `count` placement decisions of seeded random games."""
    out: list[tuple[Any, int]] = []
    seed = 0
    while len(out) < count:
        s = prog.new_game(4, seed)
        rng = random.Random(seed)
        while not s.over and len(out) < count:
            d = s.pending
            if PROMPT in str(getattr(d, "prompt", "")):
                out.append((s.clone(), d.player))
            prog.apply(s, rng.randrange(d.count))
        seed += 1
    return out


def hand_written(prog: Any) -> dict[str, Callable]:
    """The placement options by hand, over the state's own lists (field numbers looked up by
    name): the three passes the rulebook makes, and one pass."""
    t = {f.name: i for i, f in enumerate(prog.rb.table_fields)}
    pf = {f.name: i for i, f in enumerate(prog.rb.player_fields)}
    c = prog.consts
    space = {m: i for i, m in enumerate(prog.rb.enums["Space"].members)}
    LOADED, CREW, OFFICE, PIRATES = t["loaded"], t["crew"], t["office"], t["pirates"]
    PESOS, SHARES = pf["pesos"], pf["shares"]
    boat = set(c["boat_spaces"])
    good, seats, fixed = c["space_good"], c["seat_costs"], c["fixed_space_cost"]
    pirate, insurance, loan = space["pirate"], space["insurance"], c["loan_value"]
    pirate_seats = c["pirate_seats"]
    spaces = list(range(len(space)))

    def free(s: Any, sp: int) -> bool:
        tb = s.table
        if sp in boat:
            g = good[sp]
            return g in tb[LOADED] and len(tb[CREW][g]) < len(seats[g])
        if sp == pirate:
            return len(tb[PIRATES]) < pirate_seats
        return tb[OFFICE][sp] is None

    def cost(s: Any, sp: int) -> int:
        return seats[good[sp]][len(s.table[CREW][good[sp]])] if sp in boat else fixed[sp]

    def budget(s: Any, p: int) -> int:
        q = s.players[p]
        return q[PESOS] + loan * sum(q[SHARES].values())

    def free_paid(s: Any) -> list[int]:
        return [sp for sp in spaces if sp != insurance and free(s, sp)]

    def blind(s: Any, p: int) -> bool:
        fp = free_paid(s)
        return len(fp) > 0 and budget(s, p) < min(cost(s, sp) for sp in fp)

    def three_passes(s: Any, p: int) -> list[int]:
        if blind(s, p):
            return free_paid(s)
        b = budget(s, p)
        return [sp for sp in spaces if free(s, sp) and cost(s, sp) <= b]

    def one_pass(s: Any, p: int) -> list[int]:
        b = budget(s, p)
        fp, ok, cheapest = [], [], None
        for sp in spaces:
            if not free(s, sp):
                continue
            k = cost(s, sp)
            if sp != insurance:
                fp.append(sp)
                cheapest = k if cheapest is None or k < cheapest else cheapest
            if k <= b:
                ok.append(sp)
        return fp if cheapest is not None and b < cheapest else ok

    return {"free_paid_spaces": lambda s, p: free_paid(s), "is_blind_passenger": blind,
            "placeable_spaces (three passes)": three_passes,
            "placeable_spaces (one pass)": one_pass}


def main(argv: "list[str] | None" = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=40, help="placement decisions timed")
    ap.add_argument("--number", type=int, default=2000, help="calls per state and function")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many timings")
    a = ap.parse_args(argv)
    prog = compile_program(load(RULES).rulebook)
    states = placement_states(prog, a.states)
    ns = prog.ex.ns
    ns["_MEMO"][0] = None                     # each call computes its value
    limits.METER[0] = 10 ** 15                # (the step budget of no game)
    hand = hand_written(prog)
    pairs = [("free_paid_spaces", lambda s, p: ns["F_free_paid_spaces"](s)),
             ("is_blind_passenger", ns["F_is_blind_passenger"]),
             ("placeable_spaces (three passes)", ns["F_placeable_spaces"]),
             ("placeable_spaces (one pass)", ns["F_placeable_spaces"])]
    print(f"Manila 4p, {len(states)} placement decisions, {a.number} calls each, best of "
          f"{a.repeat}; microseconds a call")
    print(f"{'function':34s} {'generated':>10s} {'by hand':>10s} {'generated / hand':>17s}")
    for name, gen in pairs:
        by_hand = hand[name]
        for s, p in states:
            if by_hand(s, p) != gen(s, p):
                raise SystemExit(f"{name}: the hand-written answer differs at a state")

        def run(f: Callable) -> float:
            best = min(timeit.repeat(lambda: [f(s, p) for s, p in states], number=a.number,
                                     repeat=a.repeat))
            return best / a.number / len(states) * 1e6
        g, h = run(gen), run(by_hand)
        print(f"{name:34s} {g:10.2f} {h:10.2f} {g / h:16.2f}x")


if __name__ == "__main__":
    main()
