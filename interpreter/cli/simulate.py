"""`mercator simulate`: many games between bots (random unless --seats says otherwise); wins
with 95% intervals, scores, the rulebook's declared stats and game length, as a table or JSON."""
from __future__ import annotations

import argparse
import json
import time
from typing import Any, Optional

from mercator.interpreter.agents.search import hidden_information
from mercator.interpreter.agents.spec import AgentSpec, SpecError, check_values, parse_seats
from mercator.interpreter.cli.common import (EXIT_OK, EXIT_RULES, UsageError, err, load_program, out,
                                    plot_target, write_plot_file,
                                    player_count, plural, runtime_failure, score_text,
                                    too_large, decision_log_line)
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.designer import summarize, wilson_interval
from mercator.interpreter.tools.parallel import BackendUnavailable, Outcome, default_workers
from mercator.interpreter.tools.results import (ResultsError, ResultsFile, run_key,
                                                run_resumable)


def seat_specs(args: argparse.Namespace, players: int,
               prog: Optional[Program] = None) -> list[AgentSpec]:
    """The bots of --seats (random by default); a usage error for a spec that names none.
    Given the program, says on stderr when an mcts seat sees what its seat may not."""
    try:
        specs = parse_seats(args.seats or "random", players)
    except SpecError as exc:
        raise UsageError(f"--seats: {exc}", exc.hint or
                         "e.g. --seats random or --seats ismcts:200,random") from None
    if prog is not None:
        valued_seats(specs, prog, players)
    if any(sp.kind == "human" for sp in specs):
        raise UsageError("--seats: a simulation has no human seats",
                         "play with a person: mercator play RULEBOOK --seats human,random")
    if prog is not None and any(not sp.honest for sp in specs) and hidden_information(prog):
        err(f"note: {prog.name} hides information from the players, and an mcts seat searches "
            "the true state: it sees other seats' hidden cards and sealed choices (ismcts does "
            "not)")
    return specs


def valued_seats(specs: list[AgentSpec], prog: Program, players: int) -> None:
    """A usage error for a seat whose learned evaluation (value=FILE) is a model of another
    rulebook or player count, before any game is played."""
    try:
        check_values(specs, prog, players)
    except SpecError as exc:
        raise UsageError(f"--seats: {exc}", exc.hint) from None


def add_bot_flags(parser: argparse.ArgumentParser, default: str = "random") -> None:
    """--seats, --workers, --backend and --ray, for the commands that play many games (the
    seats `default` when --seats is not given)."""
    parser.add_argument("--seats", metavar="SPECS",
                        default=None if default == "random" else default,
                        help="the bots: one for every seat or one per seat, comma-separated: "
                             "random, mcts[:N|:Ts] (sees hidden information), ismcts[:N|:Ts] "
                             "(N iterations or T seconds a decision; default 200 iterations; "
                             "then settings :depth=D, :c=X, :deals=none|random|judge, "
                             ":worlds=W, :reuse=yes, :rave=K, :anytime=all, :root=halving|uct, "
                             ":value=FILE (cut-offs judged by a model of mercator learn), "
                             "docs/agents.md), "
                             f"e.g. ismcts:200,random,random (default: {default})")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="play on N processes (default: every core); the same results "
                             "for any N")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where the games run: this machine's cores, or Ray tasks "
                             "(pip install 'mercator[ray]'; the same results)")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="with --backend ray: the cluster to join ('auto', or "
                             "ray://HOST:PORT); default: a local Ray instance")


def add_results_flag(parser: argparse.ArgumentParser) -> None:
    """--results FILE, for the commands whose long runs can be taken up again."""
    parser.add_argument("--results", metavar="FILE",
                        help="keep every finished game in FILE (JSON lines) and play only the "
                             "games of this run that FILE does not hold yet: stop a long run "
                             "(Ctrl-C) and give the same command again to go on")


def play_games(args: argparse.Namespace, path: str, prog: Program, players: int,
               specs: list[AgentSpec], seeds: range, on_done: Any) -> list[Outcome]:
    """The games of `seeds` (tools/parallel.py), through --results when it is given; a bad
    backend or results file is a usage error."""
    results = None
    if getattr(args, "results", None):
        results = ResultsFile(args.results, run_key(prog, players, specs, args.max_decisions))

    def known(k: int) -> None:
        if k:
            err(f"{args.results}: {k} of the {len(seeds)} games of {path} are there already; "
                f"playing the other {len(seeds) - k}")
    try:
        return run_resumable(results, path, prog, players, seeds, specs, args.max_decisions,
                             workers_for(args, len(seeds)), on_done=on_done, on_known=known,
                             backend=args.backend, ray_address=args.ray)
    except BackendUnavailable as exc:       # Ray missing, or its cluster unreachable
        raise UsageError(str(exc), "or run on this machine's cores: --backend local") from None
    except ResultsError as exc:
        raise UsageError(f"--results: {exc}", exc.hint) from None
    except KeyboardInterrupt:
        if results is not None:
            err(f"\n{args.results}: {plural(results.added, 'game')} of this run added before "
                "the interrupt; give the same command again to go on")
        raise


def workers_for(args: argparse.Namespace, games: int) -> int:
    """--workers (default: every core), never more than there are games."""
    n = default_workers() if args.workers is None else args.workers
    if n < 1:
        raise UsageError(f"--workers must be at least 1, not {n}", "e.g. --workers 2")
    return max(1, min(n, games))


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play many games between bots and report wins, scores, length and declared stats."""
    prog, res = load_program(args.path)
    players = player_count(prog, args.players)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, not {args.games}", "e.g. --games 1000")
    plot_target(args.plot)
    seed = args.seed
    specs = seat_specs(args, players, prog)
    wins = [0.0] * players
    scores: list[list[int]] = [[] for _ in range(players)]
    stats: list[list[int]] = [[] for _ in prog.stat_names]
    lengths: list[int] = []
    shared = no_winner = 0
    from mercator.interpreter.cli.terminal import Progress      # rich: imported only when used
    bar = Progress(args.games)
    t0 = time.perf_counter()
    try:
        outcomes = play_games(args, args.path, prog, players, specs,
                              range(seed, seed + args.games), bar.update)
    finally:                  # an error or an interrupt too: end the bar's line, show the cursor
        bar.close(args.games)
    seats = ",".join(str(sp) for sp in specs)
    for i, o in enumerate(outcomes):
        gs = o.seed
        if o.failure is not None:
            if o.failure == "rule":
                runtime_failure(o.error(), res.sources, gs, list(o.history))
            else:
                err(f"{args.path}: error: {o.message} (a rulebook that never ends?)")
                err(decision_log_line(gs, list(o.history)))
            err(f"  in game {i + 1} of {args.games}; reproduce with: mercator simulate "
                f"{args.path} --players {players} --games 1 --seed {gs} --seats {seats}")
            return EXIT_RULES
        if too_large(o.scores):
            err(f"{args.path}: error: score too large to report: game {i + 1} (seed {gs}) "
                f"ended with scores {', '.join(score_text(v) for v in o.scores)}")
            err(f"  see the game with: mercator play {args.path} --players {players} "
                f"--seed {gs} --seats {seats}")
            return EXIT_RULES
        for w in o.winners:
            wins[w] += 1 / len(o.winners)      # a win shared by k players: 1/k to each
        shared += len(o.winners) > 1
        no_winner += not o.winners
        for p in range(players):
            scores[p].append(o.scores[p])
        for k, v in enumerate(o.stats):
            stats[k].append(v)
        lengths.append(o.decisions)
    secs = time.perf_counter() - t0
    report = simulate_report(args, prog, players, wins, scores, stats, lengths, shared,
                             no_winner, secs)
    if args.json:
        out(json.dumps(report))
    else:
        print_simulation(prog, report)
    if args.plot:
        from mercator.interpreter.tools.plots import Sample
        sample = Sample(prog.name, players, tuple(wins), tuple(tuple(v) for v in scores),
                        tuple(lengths), tuple((n, tuple(v)) for n, v in zip(prog.stat_names,
                                                                             stats)))
        title = (f"{prog.name} · {players} players · {plural(args.games, 'game')} "
                 f"(seeds {seed}..{seed + args.games - 1}) · seats: "
                 + (seats.split(",")[0] if len(set(seats.split(","))) == 1 else seats))
        if not write_plot_file(args.plot, [sample], title, simulation_table(report)):
            return EXIT_RULES
    return EXIT_OK


def simulation_table(r: dict[str, Any]) -> list[list[str]]:
    """The simulation's numbers as rows of text (a header first), for the HTML report."""
    rows = [["measure", "value", "95% interval"]]
    for p in range(r["players"]):
        lo, hi = r["win_rate_ci95"][p]
        rows.append([f"win rate P{p + 1}", f"{100 * r['win_rate'][p]:.1f}%",
                     f"[{100 * lo:.1f}, {100 * hi:.1f}]"])
    for p in range(r["players"]):
        rows.append([f"score P{p + 1}", f"{r['mean_scores'][p]:.1f} ± {r['sd_scores'][p]:.1f} sd",
                     ""])
    rows.append(["decisions per game", f"{r['mean_decisions']:.1f} ± {r['sd_decisions']:.1f} sd",
                 ""])
    for name, st in r["stats"].items():
        rows.append([f"stat {name} per game", f"{st['mean']:.2f} ± {st['sd']:.2f} sd",
                     f"[{st['ci95'][0]:.2f}, {st['ci95'][1]:.2f}]"])
    return rows


def simulate_report(args: argparse.Namespace, prog: Program, players: int, wins: list[float],
                    scores: list[list[int]], stats: list[list[int]], lengths: list[int],
                    shared: int, no_winner: int, secs: float) -> dict[str, Any]:
    """What `simulate` found, as the JSON object `--json` prints (the table shows the same)."""
    g = args.games
    sc = [summarize(s) for s in scores]
    dec = summarize(lengths)
    seats = [str(sp) for sp in parse_seats(getattr(args, "seats", None) or "random", players)]
    return {"rulebook": args.path, "game": prog.name, "games": g, "players": players,
            "seed": args.seed, "seats": seats, "wins_by_seat": [round(w, 6) for w in wins],
            "win_rate": [round(w / g, 6) for w in wins],
            "win_rate_ci95": [[round(x, 6) for x in wilson_interval(w, g)] for w in wins],
            "mean_scores": [round(s.mean, 6) for s in sc],
            "sd_scores": [round(s.sd, 6) for s in sc],
            "stats": {name: {"mean": round(s.mean, 6), "sd": round(s.sd, 6),
                             "ci95": [round(s.low, 6), round(s.high, 6)]}
                      for name, s in zip(prog.stat_names, (summarize(v) for v in stats))},
            "shared_wins": shared, "no_winner_games": no_winner,
            "mean_decisions": round(dec.mean, 6), "sd_decisions": round(dec.sd, 6),
            "seconds": round(secs, 6),
            "games_per_second": round(g / secs, 3) if secs > 0 else None}


def print_simulation(prog: Program, r: dict[str, Any]) -> None:
    """The table of a simulation: wins with their 95% intervals, scores, stats, length."""
    g = r["games"]
    seats = r["seats"]
    who = seats[0] if len(set(seats)) == 1 else ", ".join(seats)
    out(f"{prog.name} · {r['players']} players · seed {r['seed']} · {plural(g, 'game')} · "
        f"seats: {who}")
    out("seat    wins    win%   95% CI of win%   mean score    ± sd")
    for p in range(r["players"]):
        w = r["wins_by_seat"][p]
        lo, hi = r["win_rate_ci95"][p]
        wtxt = f"{w:.0f}" if abs(w - round(w)) < 1e-9 else f"{w:.1f}"
        ci = f"[{100 * lo:.1f}, {100 * hi:.1f}]"
        out(f"{p + 1:<4} {wtxt:>7} {100 * w / g:>6.1f}%   {ci:<14}   "
            f"{r['mean_scores'][p]:>10.1f}  {r['sd_scores'][p]:>6.1f}")
    if r["stats"]:
        width = max(len("stat (per game)"), *(len(n) for n in r["stats"]))
        out("")
        out(f"{'stat (per game)':<{width}}      mean    ± sd   95% CI of the mean")
        for name, s in r["stats"].items():
            out(f"{name:<{width}}  {s['mean']:>8.2f}  {s['sd']:>6.2f}   "
                f"[{s['ci95'][0]:.2f}, {s['ci95'][1]:.2f}]")
    secs = r["seconds"]
    rate = "∞" if secs <= 0 else f"{g / secs:.0f}" if g / secs >= 10 else f"{g / secs:.2f}"
    notes = []
    if r["shared_wins"]:
        notes.append(f"{plural(r['shared_wins'], 'shared win')} (each winner counts 1/k of a "
                     "win shared by k)")
    if r["no_winner_games"]:
        notes.append(f"{plural(r['no_winner_games'], 'game')} without a winner")
    out(f"games {g} · decisions/game {r['mean_decisions']:.1f} (± {r['sd_decisions']:.1f}) · "
        f"{rate} games/s" + "".join(f" · {n}" for n in notes))
