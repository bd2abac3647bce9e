"""`mercator sweep`: a balance lab — play a rulebook with its constants set to each of several
values (one constant, or a grid), measure every setting on the same seeds, and recommend the
fair setting nearest today's (interpreter/tools/sweep.py; docs/balance.md)."""
from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any, Optional

from mercator.interpreter.cli.common import (EXIT_OK, EXIT_RULES, Failed, UsageError, err,
                                             load_program, out, player_count, writable_target,
                                             plural, print_diagnostics, runtime_failure,
                                             plot_target, at_least_one, int_arg)
from mercator.interpreter.cli.simulate import (add_bot_flags, add_results_flag, seat_specs,
                                               workers_for)
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.tools.game_detail import rule_names
from mercator.interpreter.tools.parallel import BackendUnavailable, Outcome
from mercator.interpreter.tools.results import (ResultsError, ResultsFile, run_key,
                                                run_resumable)
from mercator.interpreter.tools.overrides import OverrideError, program_with
from mercator.interpreter.tools import sweep as S


def _axes(args: argparse.Namespace, prog: Any, res: Any) -> list[S.Axis]:
    if not args.set:
        raise UsageError("sweep needs at least one --set NAME=VALUES",
                         "e.g. --set start_money=4000..5000:500")
    try:
        return S.axes_for(res.items, res.rulebook.const_types, prog, args.set)
    except S.SweepError as exc:
        raise UsageError(str(exc), exc.hint) from None


def _programs(path: str, axes: list[S.Axis], settings: list[S.Setting],
              sources: dict[str, str]) -> list[Any]:
    """Every setting's program, checked and compiled before any game is played."""
    progs = []
    for s in settings:
        try:
            progs.append(program_with(path, S.overrides(axes, s)))
        except OverrideError as exc:
            print_diagnostics(exc.diagnostics, exc.sources)
            raise UsageError(f"--set: with {S.setting_text(axes, s)} the rulebook does not "
                             "check (see above)", exc.hint) from None
        except RuleError as exc:
            from mercator.interpreter.cli.common import print_rule_error
            print_rule_error(exc.message, exc.span, sources)
            raise UsageError(f"--set: with {S.setting_text(axes, s)} a constant cannot be "
                             "computed (see above)", "leave that value out of the sweep") \
                from None
    return progs


def cmd_sweep(args: argparse.Namespace) -> int:
    """Play the rulebook at every setting of the swept constants; report and recommend."""
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}", "e.g. --games 100")
    if args.budget is not None and not args.adaptive:
        raise UsageError("--budget goes with --adaptive", "add --adaptive, or leave --budget out")
    _report_target(args.report)
    prog, res = load_program(args.path)
    players = player_count(prog, args.players)
    axes = _axes(args, prog, res)
    settings = S.grid(axes)
    budget = args.budget if args.budget is not None else 4 * args.games * len(settings)
    if args.adaptive and budget < args.games * len(settings):
        raise UsageError(f"--budget {budget} is less than the first round of games "
                         f"({args.games} × {plural(len(settings), 'setting')})",
                         f"e.g. --budget {4 * args.games * len(settings)}")
    progs = _programs(args.path, axes, settings, res.sources)
    specs = seat_specs(args, players, prog)
    if args.backend == "local":
        workers_for(args, 1)                     # a bad --workers before any game
    total = budget if args.adaptive else args.games * len(settings)
    from mercator.interpreter.cli.terminal import Progress
    bar = Progress(total, "sweeping")
    counts = [0] * len(settings)
    outcomes: list[list[Outcome]] = [[] for _ in settings]
    measures: list[list[S.Measure]] = [[] for _ in settings]
    known: list[int] = []                  # games the results file held, per call
    t0 = time.perf_counter()

    def play(k: int, n: int) -> None:
        """n more games of setting k, on the seeds after those it has (seed, seed+1, ...: the
        same for every setting)."""
        start = counts[k]
        seeds = range(args.seed + start, args.seed + start + n)
        key = (args.path, S.overrides(axes, settings[k]))
        results = None
        if args.results:
            run = run_key(progs[k], players, specs, args.max_decisions)
            run["setting"] = S.setting_text(axes, settings[k])
            results = ResultsFile(args.results, run)
        base = sum(counts)
        try:
            got = run_resumable(results, key, progs[k], players, seeds, specs,
                                args.max_decisions, workers_for(args, n),
                                on_done=lambda d: bar.update(base + d),
                                on_known=lambda d: known.append(d),
                                backend=args.backend, ray_address=args.ray, detail=True)
        except BackendUnavailable as exc:
            raise UsageError(str(exc), "or run on this machine's cores: --backend local") \
                from None
        except ResultsError as exc:
            raise UsageError(f"--results: {exc}", exc.hint) from None
        counts[k] += n
        outcomes[k] += got
        measures[k] = S.setting_measures(outcomes[k], players, progs[k].stat_names,
                                         rule_names(progs[k]))

    try:
        for k in range(len(settings)):
            play(k, args.games)
        if args.adaptive:
            while True:
                picks = S.next_batch(settings, measures, players, budget - sum(counts),
                                     args.games)
                if not picks:
                    break
                for k in picks:
                    play(k, args.games)
    except KeyboardInterrupt:
        bar.close(sum(counts))
        if args.results:
            err(f"\n{args.results}: the games finished before the interrupt are kept; give "
                "the same command again to go on")
        raise
    finally:
        bar.close(sum(counts))
    secs = time.perf_counter() - t0
    if args.results and sum(known):
        err(f"{args.results}: {sum(known)} of the {sum(counts)} games were there already; "
            f"played the other {sum(counts) - sum(known)}")
    shown = False
    for k, outs in enumerate(outcomes):
        bad = [o for o in outs if o.failure is not None]
        if not bad:
            continue
        if not shown and bad[0].failure == "rule":      # the first rule error, located
            runtime_failure(bad[0].error(), res.sources, bad[0].seed, list(bad[0].history))
            shown = True
        err(f"note: with {S.setting_text(axes, settings[k])}, {len(bad)} of "
            f"{plural(len(outs), 'game')} failed (first, seed {bad[0].seed}: "
            f"{bad[0].message}); left out of the measures")
    rec = S.recommend(axes, settings, measures, players)
    table = _table(axes, settings, measures, outcomes, players)
    if args.report:
        title = (f"{prog.name}: sweep of {', '.join(a.label for a in axes)} · "
                 f"{plural(players, 'player')} · seats {_seats(specs)}")
        try:
            S.write_report(args.report, S.sweep_figures(axes, settings, measures, players),
                           title, table, rec.text)
        except OSError as exc:
            err(f"cannot write the report {args.report}: {exc.strerror or exc}")
            raise Failed(EXIT_RULES) from None
        err(f"report written to {args.report}")
    if args.json:
        out(json.dumps(_json(args, axes, settings, measures, counts, outcomes, players, specs,
                             rec, secs)))
        return EXIT_OK
    out(f"{args.path} ({prog.name}) · {plural(players, 'player')} · seats: {_seats(specs)}")
    out(f"{plural(len(settings), 'setting')} · {_games_text(counts)} on seeds from "
        f"{args.seed} (the same seeds for every setting) · {secs:.1f} s")
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        out("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                      for i, c in enumerate(row)))
    out("win rate: with its 95% interval; fair: every seat's interval holds "
        f"1/{players}; decisive: the share of the game before the winner leads for good; "
        "lead chg: changes of the leading seat a game (docs/balance.md); * today's rulebook")
    for line in _dominant_lines(axes, settings, measures, players):
        out(line)
    out(rec.text)
    return EXIT_OK


def _report_target(path: Optional[str]) -> None:
    """Check `--report FILE` before any game: a .png or .html name, matplotlib installed, a
    file we may write."""
    plot_target(path, "--report", "a report", "e.g. --report sweep.html (the figures, the "
                "table and the recommendation) or --report sweep.png")


def _dominant_lines(axes: list[S.Axis], settings: list[S.Setting],
                    measures: list[list[S.Measure]], players: int) -> list[str]:
    """The dominant options (docs/balance.md), a line for each decision and option: the seats
    and settings where a seat took it so often, with the range of its shares."""
    found: dict[str, list[tuple[int, int, float]]] = {}      # "decision -> option": (k, seat, share)
    for k, m in enumerate(measures):
        for r in m:
            head, _, what = r.name.partition(": ")
            if head.startswith("dominant option seat "):
                seat = int(head.removeprefix("dominant option seat "))
                found.setdefault(what, []).append((k, seat, r.value))
    lines = []
    for what, where in found.items():
        seats = sorted({seat for _, seat, _ in where})
        ks = sorted({k for k, _, _ in where})
        shares = [v for _, _, v in where]
        who = "every seat" if len(seats) == players else \
            "seat " + ", ".join(str(p) for p in seats)
        at = "in every setting" if len(ks) == len(settings) else \
            "with " + "; ".join(S.setting_text(axes, settings[k]) for k in ks)
        share = f"{100 * min(shares):.0f}%" if min(shares) == max(shares) else \
            f"{100 * min(shares):.0f}–{100 * max(shares):.0f}%"
        lines.append(f"dominant option: {what}: {who}, {at} ({share} of the decisions there)")
    return lines


def _seats(specs: list[Any]) -> str:
    names = [str(sp) for sp in specs]
    return names[0] if len(set(names)) == 1 else ",".join(names)


def _games_text(counts: list[int]) -> str:
    if len(set(counts)) == 1:
        return f"{plural(counts[0], 'game')} each"
    return f"{sum(counts)} games ({min(counts)} to {max(counts)} a setting)"


def _pct(x: Optional[float]) -> str:
    return "—" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def _table(axes: list[S.Axis], settings: list[S.Setting], measures: list[list[S.Measure]],
           outcomes: list[list[Outcome]], players: int) -> list[list[str]]:
    """The table the terminal and the HTML report show: a row per setting."""
    head = ["setting", "games"] + [f"win P{p + 1} [95%]" for p in range(players)] + \
        ["max |adv|", "fair", "decisions", "decisive", "lead chg"]
    rows = [head]
    for s, m, outs in zip(settings, measures, outcomes):
        byn = S.by_name(m)
        failed = sum(1 for o in outs if o.failure is not None)
        cells = [S.setting_text(axes, s) + (" *" if S.is_today(axes, s) else ""),
                 str(len(outs) - failed) + (f" ({failed} failed)" if failed else "")]
        for p in range(players):
            w = byn.get(f"win rate P{p + 1}")
            cells.append("—" if w is None else
                         f"{100 * w.value:.1f}% [{100 * (w.low or 0):.0f}, "
                         f"{100 * (w.high or 0):.0f}]")
        adv = S.largest_advantage(m, players) if m else math.nan
        cells.append("—" if math.isnan(adv) else f"{100 * adv:.1f}")
        cells.append(("yes" if S.is_fair(m, players) else "no") if m else "—")
        for name, form in (("decisions", "{:.0f}"), ("decisiveness", "{:.2f}"),
                           ("lead changes", "{:.1f}")):
            d = byn.get(name)
            cells.append("—" if d is None or math.isnan(d.value) else form.format(d.value))
        rows.append(cells)
    return rows


def _json(args: argparse.Namespace, axes: list[S.Axis], settings: list[S.Setting],
          measures: list[list[S.Measure]], counts: list[int], outcomes: list[list[Outcome]],
          players: int, specs: list[Any], rec: S.Recommendation, secs: float) -> dict[str, Any]:
    def num(x: Optional[float]) -> Optional[float]:
        return None if x is None or math.isnan(x) else x
    return {
        "rulebook": args.path, "players": players, "seats": [str(sp) for sp in specs],
        "games": args.games, "seed": args.seed, "adaptive": bool(args.adaptive),
        "seconds": round(secs, 3),
        "axes": [{"name": a.name, "key": a.key, "label": a.label, "values": list(a.values),
                  "today": a.today} for a in axes],
        "settings": [{
            "values": {a.label: v for a, v in zip(axes, s)},
            "today": S.is_today(axes, s),
            "games": n, "failed": sum(1 for o in outs if o.failure is not None),
            "fair": S.is_fair(m, players) if m else None,
            "largest_advantage": num(S.largest_advantage(m, players)) if m else None,
            "measures": [{"measure": r.name, "value": num(r.value),
                          "ci95": None if r.low is None or r.high is None else [r.low, r.high],
                          **({"unit": r.unit} if r.unit else {}),
                          **({"note": r.note} if r.note else {})}
                         for r in m]}
            for s, m, n, outs in zip(settings, measures, counts, outcomes)],
        "recommendation": {"values": None if rec.setting is None else
                           {a.label: v for a, v in zip(axes, rec.setting)},
                           "fair": rec.fair, "text": rec.text}}


def add_command(sub: "argparse._SubParsersAction[argparse.ArgumentParser]",
                raw: "type[argparse.RawDescriptionHelpFormatter]") -> None:
    """Register sweep on the main parser."""
    c = sub.add_parser(
        "sweep", help="play a rulebook at several values of its constants: which is fair?",
        description="Play the rulebook with one or more of its constants (const, table, or an "
        "element of a table) set to each of several values — several --set make a grid — on "
        "the same seeds, and report for every setting each seat's win rate with a 95% "
        "interval, its advantage (win rate − 1/N), scores, game length and the declared "
        "stats; then recommend the setting nearest today's where every seat's interval holds "
        "the fair share (docs/balance.md).", formatter_class=raw,
        epilog="example:\n  mercator sweep rulebooks/die_haendler.rules --players 3 "
        "--set start_money=4000..5000:500 --games 40\n"
        "  mercator sweep rulebooks/genoa.rules --players 3 --set 'rounds_for[3]=8..12' "
        "--seats prefer --games 20 --report genoa.html\n"
        "  mercator sweep rulebooks/manila.rules --players 3 --set start_pesos=20,30,40 "
        "--set insurance_bonus=5,10 --games 30 --results sweep.jsonl")
    c.set_defaults(func=cmd_sweep)
    c.add_argument("path", metavar="RULEBOOK", help="the rulebook (or variant) to sweep")
    c.add_argument("--set", action="append", metavar="NAME=VALUES",
                   help="a constant and its values: NAME=25,30,35, NAME=20..40 or "
                        "NAME=20..40:5 (whole numbers, both ends), NAME=true,false, enum "
                        "members by name; an element of a table NAME[KEY]=... (a map's key, or "
                        "a list's index from 0); give several to sweep a grid")
    c.add_argument("--players", type=int_arg, metavar="N", help="number of players (default: the "
                   "rulebook's smallest)")
    c.add_argument("--games", type=int_arg, metavar="G", default=100,
                   help="games per setting, on seeds S..S+G-1 for every setting (default: 100); "
                        "with --adaptive, the first round and each further batch")
    c.add_argument("--seed", type=int_arg, metavar="S", default=0, help="the first seed (default: 0)")
    c.add_argument("--max-decisions", type=at_least_one, metavar="D", default=100_000,
                   help="stop a game that takes more decisions than this (default: 100000)")
    c.add_argument("--adaptive", action="store_true",
                   help="after the first G games of every setting, give G more at a time to "
                        "the settings still in question (every seat's interval holds 1/N), the "
                        "widest intervals first, until --budget games in all")
    c.add_argument("--budget", type=int_arg, metavar="B",
                   help="with --adaptive: the games in all (default: 4 × G × settings)")
    c.add_argument("--json", action="store_true",
                   help="print one JSON object (every setting's measures and the "
                        "recommendation) instead of a table")
    c.add_argument("--report", metavar="FILE",
                   help="also draw every measure against the swept values: FILE.png, or "
                        "FILE.html (a page with the figures, the table and the "
                        "recommendation); needs matplotlib (pip install 'mercator[plot]')")
    add_bot_flags(c, default="ismcts")
    add_results_flag(c)
