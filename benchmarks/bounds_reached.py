"""What random play reaches of the sizes `bounds { ... }` declares, and how many action ids a
decision takes (interpreter/engine/encoding.py): the numbers behind a rulebook's bounds
(docs/design/research.md).

    .venv/bin/python benchmarks/bounds_reached.py rulebooks/manila.rules [--games 100]

For each player count the rulebook allows, `--games` games of uniformly random choices (seeds
0 .. games-1); then, over all of them: the smallest and largest integer any option or chance
outcome held, the longest collection an option held, the most decisions of a game, the most
moves (ids taken one at a time, for the option chosen), the least and most number an
observation tensor shows the seat to decide, the lowest and highest final score, the ids a decision took on average when its options are taken
one id at a time (choosing each next id uniformly), and the most items each collection field
of the state held (what `length FIELD N` bounds) — beside the declared bounds.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine.encoding import ActionCodec  # noqa: E402
from mercator.interpreter.engine.nodes import Decision, Terminal  # noqa: E402
from mercator.interpreter.engine.observation import observer_for  # noqa: E402
from mercator.interpreter.engine.observation_bounds import NUMBER, cell_kinds  # noqa: E402


class _Reach(ActionCodec):
    """A codec that records the integers and lengths it writes instead of refusing them."""

    lo = hi = 0
    longest = 0

    def _int(self, v: int) -> int:
        _Reach.lo, _Reach.hi = min(_Reach.lo, v), max(_Reach.hi, v)
        return self.int_base

    def _length(self, n: int) -> None:
        _Reach.longest = max(_Reach.longest, n)

    def _atom(self, t: object) -> None:       # every value through write (and _int, _length)
        return None

    def _writer(self, t: object) -> None:
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulebook")
    ap.add_argument("--games", type=int, default=100, help="games per player count (100)")
    a = ap.parse_args()
    res = load(a.rulebook)
    if not res.ok or res.rulebook is None:
        print(f"{a.rulebook}: does not check", file=sys.stderr)
        return 1
    prog = compile_program(res.rulebook)
    g = res.rulebook.game
    most = most_moves = 0
    numbers = [0, 0]                  # the least and most of an observation's number cells
    scores: list[int] = []
    taken = decisions_seen = 0
    rb = res.rulebook
    fields = [(k, f) for k, f in enumerate(rb.table_fields)
              if (f.type.args[0] if f.type.kind == "opt" else f.type).kind in ("list", "bag", "map")]
    pfields = [(k, f) for k, f in enumerate(rb.player_fields)
               if (f.type.args[0] if f.type.kind == "opt" else f.type).kind in ("list", "bag", "map")]
    longest: dict[str, int] = {}

    def size(v: object) -> int:
        if isinstance(v, dict) and v and all(isinstance(x, int) for x in v.values()) and \
                not isinstance(v, list):
            return len(v)
        return len(v) if isinstance(v, (list, dict)) else 0

    def measure(s: object) -> None:
        for k, f in fields:
            longest[f.name] = max(longest.get(f.name, 0), size(s.table[k]))  # type: ignore
        for row in s.players:                                                 # type: ignore
            for k, f in pfields:
                longest[f.name] = max(longest.get(f.name, 0), size(row[k]))
    for n in range(g.min_players, g.max_players + 1):
        codec = _Reach(prog, n)
        for seed in range(a.games):
            s = prog.new_game(n, seed)
            rng = random.Random(seed)
            count = moves = 0
            observer = observer_for(prog, n)
            kinds = np.array(cell_kinds(observer)) == NUMBER if observer is not None else None
            while not s.over:
                node = s.pending
                seqs = codec.sequences(s, node)
                if observer is not None and isinstance(node, Decision):
                    cells = np.asarray(observer.tensor(s, node.player))[kinds]
                    numbers[0] = min(numbers[0], int(cells.min()))
                    numbers[1] = max(numbers[1], int(cells.max()))
                if isinstance(node, Decision):
                    count += 1
                    ids: tuple[int, ...] = ()
                    first = True
                    while codec.decode(seqs, ids) is None:
                        ids = codec.settle(seqs, ids + (rng.choice(codec.legal_ids(seqs, ids)),))
                        taken += 1
                        first = False
                    taken += first          # a decision is asked at least once
                    decisions_seen += 1
                i = rng.randrange(node.count)
                if isinstance(node, Decision):
                    moves += codec.moves(seqs, i)
                prog.apply(s, i)
                measure(s)
            most = max(most, count)
            most_moves = max(most_moves, moves)
            end = prog.pending(s)
            assert isinstance(end, Terminal)
            scores += end.scores
    b = res.rulebook.bounds
    print(f"{a.rulebook}: {a.games} random games at each of {g.min_players}..{g.max_players} "
          "players")
    print(f"  integers in options {_Reach.lo}..{_Reach.hi}"
          + (f"   (bounds: options {b.options[0]}..{b.options[1]})" if b and b.options else ""))
    print(f"  longest collection in an option {_Reach.longest}"
          + (f"   (bounds: lists {b.lists})" if b and b.lists is not None else ""))
    print(f"  most decisions in a game {most}"
          + (f"   (bounds: decisions {b.decisions})" if b and b.decisions else ""))
    print(f"  most moves in a game {most_moves} (action ids taken one at a time)"
          + (f"   (bounds: moves {b.moves})" if b and b.moves else ""))
    print(f"  numbers in the observation of the seat to decide {numbers[0]}..{numbers[1]}"
          + (f"   (bounds: values {b.values[0]}..{b.values[1]})" if b and b.values else ""))
    print(f"  final scores {min(scores)}..{max(scores)}"
          + (f"   (bounds: score {b.score[0]}..{b.score[1]})" if b and b.score else ""))
    lengths = b.lengths if b else {}
    print("  longest state fields: " + ", ".join(
        f"{n} {m}" + (f" (bounds: length {lengths[n]})" if n in lengths else "")
        for n, m in sorted(longest.items())))
    print(f"  action ids per decision {taken / max(decisions_seen, 1):.2f} "
          f"over {decisions_seen} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
