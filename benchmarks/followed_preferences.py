"""How often did a searcher take the option the rulebook prefers most? The games of a results
file (benchmarks/bench_agents.py or anchor_answers.py, which keep each game's decisions) are
replayed, and at each decision of the tested seat that a preference covers (`prefer`,
docs/language.md §2.19c) its choice is compared with the most preferred options (any of them,
where several tie). Printed by prompt (its first `--width` characters): the decisions, those
where it took another option (an any-time action counts as another), and their share — where a
searcher with `trust` overturns its rulebook's judgement, and how often (docs/agents.md,
"Trust in the preferences").

    .venv/bin/python benchmarks/followed_preferences.py benchmarks/results/s38/dh_default_cpu1s.jsonl

`--show TEXT` lists each decision whose prompt contains TEXT and where the choice was not a
most preferred option: the seed, the round, the most preferred option and the one chosen.
The replay uses the rulebook of today: a file written before a rule changed may not replay
(its games then stop with an error naming the seed).
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agents import _program  # noqa: E402
from money_by_decision import games  # noqa: E402

from mercator.interpreter.engine.nodes import Decision  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="a results file of bench_agents.py or anchor_answers.py")
    ap.add_argument("--rulebook", help="the rulebook (anchor_answers.py's files do not name it)")
    ap.add_argument("--width", type=int, default=34, help="characters of a prompt shown")
    ap.add_argument("--show", help="list the decisions whose prompt contains this text "
                                   "where another option than a most preferred was taken")
    a = ap.parse_args(argv)
    rows = games(a.results, a.rulebook)
    if not rows:
        print(f"{a.results}: no game with its decisions", file=sys.stderr)
        return 2
    prog = _program(rows[0][0])
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    uncovered: dict[str, int] = defaultdict(int)
    for _, players, seed, me, history, recorded in rows:
        s = prog.new_game(players, seed, narrate=recorded, explicit_chance=recorded)
        try:
            for h in history:
                p = s.pending
                if isinstance(p, Decision) and p.player == me and p.count > 1:
                    m = p.count - len(p.actions)
                    prefs = prog.preferences(s, m)
                    key = p.prompt[:a.width]
                    if prefs is None:
                        uncovered[key] += 1
                    else:
                        top = max(prefs)
                        other = h >= m or prefs[h] != top
                        t = tally[key]
                        t[0] += 1
                        t[1] += other
                        if other and a.show and a.show in p.prompt:
                            best = prefs.index(top)
                            chosen = p.options[h].label if h < len(p.options) else f"#{h}"
                            print(f"seed {seed} round {s.round}: preferred "
                                  f"{p.options[best].label} | took {chosen}")
                prog.apply(s, h)
        except Exception as exc:            # a file older than a rule: say which game
            print(f"seed {seed}: does not replay on today's rulebook ({exc})",
                  file=sys.stderr)
    print(f"{len(rows)} games of {a.results}; the tested seat's decisions a preference covers")
    print(f"{'decisions':>9} {'other':>6} {'share':>6}  prompt")
    for key, (n, k) in sorted(tally.items(), key=lambda kv: -kv[1][0]):
        print(f"{n:9d} {k:6d} {k / n:6.0%}  {key}")
    n_all = sum(t[0] for t in tally.values())
    k_all = sum(t[1] for t in tally.values())
    if n_all:
        print(f"{n_all:9d} {k_all:6d} {k_all / n_all:6.0%}  (all)")
    for key, n in sorted(uncovered.items(), key=lambda kv: -kv[1]):
        print(f"{n:9d} {'':>6} {'':>6}  (no preference) {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
