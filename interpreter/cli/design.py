"""`mercator diff` and `mercator compare`: the designer's commands for variants."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from mercator.dsl.loader import load
from mercator.interpreter.cli.common import (EXIT_OK, EXIT_RULES, Failed, UsageError, plot_target,
                                    at_least_one, int_arg,
                                    write_plot_file,
                                    build_program, err, load_program, out, player_count, plural,
                                    print_diagnostics, print_rule_error, require_file,
                                    runtime_failure, score_text, too_large)
from mercator.interpreter.cli.simulate import (add_bot_flags, add_results_flag, play_games, seat_specs,
                                                valued_seats, workers_for)
from mercator.interpreter.tools.designer import (GameRecord, Row, compare_records, never_counted,
                                               rule_diff)
from mercator.interpreter.engine.program import Program


def cmd_diff(args: argparse.Namespace) -> int:
    """Print the rule-level differences between two rulebooks (a base and a variant)."""
    results = []
    for path in (args.base, args.variant):
        require_file(path)
        res = load(path)
        if not res.ok:
            print_diagnostics(res.diagnostics, res.sources)
            err(f"{path}: has errors; fix them first")
            raise Failed(EXIT_RULES)
        results.append(res)
    changes = rule_diff(results[0].items, results[1].items,
                        {**results[0].sources, **results[1].sources})
    if not changes:
        out(f"no rule differs between {args.base} and {args.variant}")
        return EXIT_OK
    out(f"--- {args.base}\n+++ {args.variant}")
    for c in changes:
        out(f"\n{c.what} {c.kind} {c.name}")
        for line in (c.old or "").splitlines():
            out(f"  - {line}")
        for line in (c.new or "").splitlines():
            out(f"  + {line}")
    counts = {w: sum(1 for c in changes if c.what == w) for w in ("changed", "added", "removed")}
    out("\n" + ", ".join(f"{n} {w}" for w, n in counts.items() if n))
    return EXIT_OK


def _play(prog: Program, path: str, sources: dict, players: int, args: argparse.Namespace,
          bar: Any, offset: int) -> list[GameRecord]:
    specs = seat_specs(args, players, prog if offset == 0 else None)
    if offset:                  # (the note on mcts once; a model checked against both sides)
        valued_seats(specs, prog, players)
    try:
        outs = play_games(args, path, prog, players, specs,
                          range(args.seed, args.seed + args.games),
                          lambda done: bar.update(offset + done))
    except UsageError:
        bar.close(offset)
        raise
    bad = next((o for o in outs if o.failure is not None), None)
    if bad is not None:
        bar.close(offset)
        gs = bad.seed
        if bad.failure == "rule":
            runtime_failure(bad.error(), sources, gs, list(bad.history))
        else:
            err(f"{path}: error: {bad.message} (a rulebook that never ends?)")
        err(f"  reproduce with: mercator simulate {path} --players {players} --games 1 --seed {gs}"
            f" --seats {','.join(str(sp) for sp in specs)}")
        raise Failed(EXIT_RULES) from None
    return [o.record for o in outs]


MISSING = "—"       # a statistic the rulebook on that side does not declare


def _fmt(row: Row, pct: bool) -> list[str]:
    """A, B, B−A and the interval of B−A as table cells (— where a side has no value)."""
    def num(x: "float | None", sign: str = "") -> str:
        if x is None:
            return MISSING
        return f"{100 * x:{sign}.1f}%" if pct else f"{x:{sign}.2f}"
    if row.low is None or row.high is None:
        ci = MISSING
    elif pct:
        ci = f"[{100 * row.low:+.1f}, {100 * row.high:+.1f}]"
    else:
        ci = f"[{row.low:+.2f}, {row.high:+.2f}]"
    return [num(row.a), num(row.b), num(row.diff, "+"), ci]


def _p_cell(row: Row) -> str:
    """The p column: the p-value (starred when p < 0.05), or which side lacks the statistic."""
    if row.p is None:
        return f"not in {row.missing}" if row.missing else MISSING
    return f"{row.p:.3f}" + (" *" if row.significant else "")


def cmd_compare(args: argparse.Namespace) -> int:
    """Simulate two rulebooks on the same seeds and compare them measure by measure."""
    if args.games < 2:
        raise UsageError(f"--games must be at least 2, not {args.games}", "e.g. --games 1000")
    plot_target(args.plot)
    pa, ra = load_program(args.a)
    pb, rb = load_program(args.b)
    players = player_count(pa, args.players)
    player_count(pb, players)
    from mercator.interpreter.cli.terminal import Progress      # rich: imported only when used
    bar = Progress(2 * args.games, "comparing")
    t0 = time.perf_counter()
    try:
        recs_a = _play(pa, args.a, ra.sources, players, args, bar, 0)
        recs_b = _play(pb, args.b, rb.sources, players, args, bar, args.games)
    finally:                  # an interrupt too: end the bar's line, show the cursor
        bar.close(2 * args.games)
    for path, recs in ((args.a, recs_a), (args.b, recs_b)):
        big = next((r for r in recs if too_large(r.scores) or too_large(r.stats)), None)
        if big is not None:
            err(f"{path}: error: score too large to report: the game with seed {big.seed} ended "
                f"with scores {', '.join(score_text(v) for v in big.scores)}"
                + ("" if too_large(big.scores) else " (a declared statistic is too large)"))
            return EXIT_RULES
    secs = time.perf_counter() - t0
    zero_a, zero_b = never_counted(pa, pb)
    rows = compare_records(recs_a, recs_b, players, pa.stat_names, pb.stat_names, zero_a, zero_b)
    head = ["measure", "A", "B", "B−A", "95% CI of B−A", "p"]
    table = [head] + [[r.measure] + _fmt(r, r.measure.startswith("win rate"))
                      + [_p_cell(r)] for r in rows]
    if args.plot:
        from mercator.interpreter.tools.plots import sample_from_records
        samples = [sample_from_records(f"A: {os.path.basename(args.a)}", recs_a, players,
                                       pa.stat_names, zero_a),
                   sample_from_records(f"B: {os.path.basename(args.b)}", recs_b, players,
                                       pb.stat_names, zero_b)]
        title = (f"A: {pa.name} ({os.path.basename(args.a)}) vs B: {pb.name} "
                 f"({os.path.basename(args.b)}) · {players} players · "
                 f"{plural(args.games, 'game')} each")
        if not write_plot_file(args.plot, samples, title, table):
            return EXIT_RULES
    if args.json:
        out(json.dumps({
            "a": args.a, "b": args.b, "players": players, "games": args.games, "seed": args.seed,
            "seconds": round(secs, 3),
            "rows": [{"measure": r.measure, "a": r.a, "b": r.b, "diff": r.diff,
                      "ci95": None if r.low is None else [r.low, r.high], "p": r.p,
                      "test": r.test, "significant": r.significant,
                      "missing": r.missing or None, "zero_in": r.zero or None}
                     for r in rows]}))
        return EXIT_OK
    out(f"A: {args.a} ({pa.name})\nB: {args.b} ({pb.name})")
    seats = [str(sp) for sp in seat_specs(args, players)]
    out(f"{players} players · {args.games} games each on seeds {args.seed}..{args.seed + args.games - 1}"
        f" · seats: {seats[0] if len(set(seats)) == 1 else ', '.join(seats)}")
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        out("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                      for i, c in enumerate(row)))
    sig = sum(r.significant for r in rows)
    tested = sum(r.p is not None for r in rows)
    out(f"* p < 0.05 ({sig} of {tested} measures; with many measures, about 1 in 20 is "
        "flagged by chance)" if sig else "no significant difference at p < 0.05")
    zeros = [r for r in rows if r.zero]
    if zeros:
        sides = " and ".join(sorted({r.zero for r in zeros}))
        names = [r.measure.removeprefix("stat ").removesuffix(" per game") for r in zeros]
        out(f"{plural(len(zeros), 'stat')} counted as 0 in {sides}: {', '.join(names)} "
            "(the event is not declared there, so it cannot happen)")
    only = [r for r in rows if r.missing]
    if only:
        out(f"not in A / not in B: {plural(len(only), 'stat')} only the other rulebook "
            "declares (its mean is shown, nothing is compared)")
    return EXIT_OK


def explore_rulebook(path: str, res: Any, args: argparse.Namespace) -> bool:
    """`check --explore N`: play N Hypothesis-chosen games; report; True when nothing broke."""
    from mercator.interpreter.tools.explore import explore, explore_novelty
    from mercator.interpreter.tools.saves import save
    prog = build_program(res)
    if args.players is not None:
        player_count(prog, args.players)
    from mercator.interpreter.cli.terminal import Progress
    bar = Progress(args.explore, "exploring")
    bar_done = [0]
    shrink_line = [False]           # the progress bar gave way to a 'shrinking' line

    def game_done(g: int) -> None:
        bar_done[0] = g
        bar.update(g)

    def shrinking(decisions: int, secs: float) -> None:
        if not bar.live:
            return
        if not shrink_line[0]:
            bar.close(bar_done[0])
            shrink_line[0] = True
        sys.stderr.write(f"\rshrinking: shortest so far {plural(decisions, 'decision')} "
                         f"({secs:.0f} s of at most {args.shrink_time:g} s)\x1b[K")
        sys.stderr.flush()

    strategy = getattr(args, "strategy", "hypothesis")
    workers = workers_for(args, args.explore) if hasattr(args, "workers") else 1
    try:
        if strategy == "novelty":
            report = explore_novelty(prog, args.explore, seed=args.seed, players=args.players,
                                     on_game=game_done, workers=workers)
        else:
            report = explore(prog, args.explore, seed=args.seed, players=args.players,
                             on_game=game_done, shrink_time=args.shrink_time,
                             on_shrink=shrinking, workers=workers)
    except BaseException:
        bar.close(bar_done[0])
        raise
    if shrink_line[0]:
        sys.stderr.write("\n")
    else:
        bar.close(report.games)
    f = report.finding
    pct = 100 * report.ops_run / max(report.ops_total, 1)
    out(f"{path}: explored {plural(report.games, 'game')} (seed {args.seed}"
        f"{', novelty search' if strategy == 'novelty' else ''}); rule coverage "
        f"{pct:.0f}% of {plural(report.ops_total, 'step')}")
    if report.ended_at_limit and report.other_ending:
        out(f"  {report.ended_at_limit} of {plural(report.games, 'game')} ended only at the "
            f"round limit ({plural(report.round_limit or 0, 'round')})")
    for u in report.uncovered:
        what = "never called" if not u.called else "never ran" if u.never \
            else "lines never reached"
        lines = ", ".join(str(x) for x in u.lines[:12]) + (" ..." if len(u.lines) > 12 else "")
        out(f"  {u.body}: {what}: {lines}")
    for c in report.unchosen:
        out(f"  {c.where} '{c.prompt}': options never chosen: {', '.join(c.never[:8])}"
            + (" ..." if len(c.never) > 8 else ""))
    if f is None:
        return True
    if f.kind == "runtime error" and f.span is not None:     # located like play and replay
        print_rule_error(f.message, f.span, res.sources)
    else:
        where = f"{f.span}: " if f.span is not None and f.span.line else f"{path}: "
        err(f"{where}error: {f.kind}: {f.message}")
        src = res.sources.get(f.span.path) if f.span is not None else None
        if src is not None and f.span is not None and 1 <= f.span.line <= len(src.splitlines()):
            err(f" {f.span.line} | {src.splitlines()[f.span.line - 1]}")   # err() escapes it
    target = args.save_failure or f"{path}.failure.json"
    try:
        save(target, path, res.sources, f.players, f.seed, f.decisions, f.labels)
    except OSError as exc:
        err(f"  cannot write {target}: {exc.strerror or exc}; the failing game: "
            f"{plural(f.players, 'player')}, seed {f.seed}, decisions {f.decisions}")
        return False
    what = "shortest game found" if not report.shrink_stopped else \
        f"shrinking stopped by the time limit (--shrink-time {args.shrink_time:g}); " \
        "shortest game so far"
    err(f"  {what}: {plural(f.players, 'player')}, seed {f.seed}, "
        f"{plural(len(f.decisions), 'decision')}")
    err(f"  saved to {target}; reproduce with: mercator replay {target}")
    return False


def add_commands(sub: "argparse._SubParsersAction[argparse.ArgumentParser]",
                 raw: "type[argparse.RawDescriptionHelpFormatter]") -> None:
    """Register diff, compare and sweep on the main parser."""
    d = sub.add_parser("diff", help="show which named rules a variant changes",
                       description="Show the rule-level differences between two rulebooks: which "
                       "constants, tables, procedures, phases, triggers and actions were changed, "
                       "added or removed, with the old and the new text.", formatter_class=raw,
                       epilog="example:\n  mercator diff rulebooks/manila.rules "
                       "rulebooks/variants/manila_pirates.rules")
    d.set_defaults(func=cmd_diff)
    d.add_argument("base", metavar="BASE", help="the base rulebook")
    d.add_argument("variant", metavar="VARIANT", help="the variant (or any other rulebook)")
    c = sub.add_parser("compare", help="simulate two rulebooks on the same seeds and compare them",
                       description="Simulate A and B with the same bots (random by default) on "
                       "the same seeds and print, "
                       "side by side, win rate and score by seat, game length and the rulebooks' "
                       "declared statistics, each with a 95% interval and a p-value.",
                       formatter_class=raw,
                       epilog="example:\n  mercator compare rulebooks/manila.rules "
                       "rulebooks/variants/manila_pirates.rules --players 4 --games 500 --seed 1\n"
                       "  mercator compare rulebooks/manila.rules "
                       "rulebooks/variants/manila_pirates.rules --players 4 --plot pirates.png")
    c.set_defaults(func=cmd_compare)
    c.add_argument("a", metavar="A", help="the first rulebook (usually the base)")
    c.add_argument("b", metavar="B", help="the second rulebook (usually the variant)")
    c.add_argument("--players", type=int_arg, metavar="N", help="number of players")
    c.add_argument("--games", type=int_arg, metavar="G", default=200,
                   help="games per rulebook (default: 200)")
    c.add_argument("--seed", type=int_arg, metavar="S", default=0,
                   help="game i uses seed S+i in both (default: 0)")
    c.add_argument("--max-decisions", type=at_least_one, metavar="D", default=100_000,
                   help="stop a game that takes more decisions than this (default: 100000)")
    c.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_bot_flags(c)
    add_results_flag(c)
    c.add_argument("--plot", metavar="FILE",
                   help="also draw A and B side by side (win rate by seat, scores, game length, "
                        "the declared stats): FILE.png or FILE.html (a report with the table); "
                        "needs matplotlib (pip install 'mercator[plot]')")
    from mercator.interpreter.cli.sweep import add_command as add_sweep
    add_sweep(sub, raw)
