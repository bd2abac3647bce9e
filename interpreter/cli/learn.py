"""`mercator learn`: a learned evaluation for any rulebook (issue 36's moonshot, agents/learned.py).
Games of the seats given (by default the rulebook's `prefer` player at every seat: cheap
self-play) are played and each seat's position recorded at every step of the game's top level;
a model of the final margin is fitted to them and saved, for a searcher's `value=FILE`."""
from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from mercator.interpreter.agents.base import agent_seed
from mercator.interpreter.cli.common import (EXIT_OK, EXIT_RULES, Failed, UsageError, err,
                                             load_program, out, player_count, plural,
                                             runtime_failure, writable_target, int_arg)
from mercator.interpreter.cli.simulate import seat_specs
from mercator.interpreter.engine.exprs import RuleError

DEFAULT_GAMES = 300
DEFAULT_SEATS = "prefer"


def cmd_learn(args: argparse.Namespace) -> int:
    """Play games, fit a model of each seat's final margin, report it and save it."""
    from mercator.interpreter.agents import learned as L
    try:
        L.np_module()
    except L.ModelError as exc:
        raise UsageError(f"{exc}", exc.hint) from None
    if args.games < 5:
        raise UsageError(f"--games must be at least 5, not {args.games}: the games of every "
                         "fifth seed are held out to say how well the model predicts",
                         f"e.g. --games {DEFAULT_GAMES}")
    prog, res = load_program(args.path)
    players = player_count(prog, args.players)
    path = args.out or f"{os.path.splitext(os.path.basename(args.path))[0]}-{players}p.npz"
    if ":" in path or "," in path:
        raise UsageError(f"--out {path}: a model is named in a seat spec (value=FILE), where "
                         "':' and ',' separate settings and seats", "choose a file name "
                         "without them")
    writable_target(path, "--out")
    args.seats = args.seats or DEFAULT_SEATS
    specs = seat_specs(args, players, prog)
    try:
        fx = L.Features(prog, players)
    except L.ModelError as exc:
        err(f"mercator learn: {args.path}: error: {exc}")
        if exc.hint:
            err(f"  hint: {exc.hint}")
        raise Failed(EXIT_RULES) from None
    from mercator.interpreter.agents.spec import for_rulebook, make_agent

    def seats(seed: int) -> list[Any]:
        return [make_agent(for_rulebook(sp, prog.bot_settings), agent_seed(seed, p), 1)
                for p, sp in enumerate(specs)]
    seeds = range(args.seed, args.seed + args.games)
    seats_text = ",".join(str(sp) for sp in specs)
    from mercator.interpreter.cli.terminal import Progress      # rich: imported only when used
    bar = Progress(args.games, what="playing")
    t0 = time.perf_counter()
    try:
        x, y, g = L.record(prog, players, seeds, seats, on_game=bar.update, fx=fx,
                           narrate=any(sp.needs_record for sp in specs))
    except RuleError as exc:
        bar.close(0)
        runtime_failure(exc, res.sources, exc.seed, exc.history)
        err(f"  reproduce with: mercator simulate {args.path} --players {players} --games 1 "
            f"--seed {exc.seed} --seats {seats_text}")
        return EXIT_RULES
    except L.GameTooLong as exc:
        bar.close(0)
        err(f"mercator learn: {args.path}: error: {exc} ({exc.hint})")
        return EXIT_RULES
    finally:
        bar.close(args.games)
    played = time.perf_counter() - t0
    if not args.json:
        err(f"{plural(args.games, 'game')} played in {played:.0f} s; fitting the "
            f"{'network' if args.model == 'mlp' else 'line'}…")
    arrays, report = L.fit_model(x, y, g, args.model, fx.estimate)
    model = L.Model(args.model, arrays, L.rulebook_sha256(prog), prog.name, players, fx.names(),
                    path)
    try:
        model.save(path)
    except OSError as exc:
        err(f"mercator learn: cannot write {path}: {exc.strerror or exc}")
        return EXIT_RULES
    secs = time.perf_counter() - t0
    r2e, r2m = report.get("r2_estimate"), report["r2_model"]
    if args.json:
        out(json.dumps({"rulebook": args.path, "game": prog.name, "players": players,
                        "games": args.games, "seed": args.seed, "seats": [str(sp) for sp in specs],
                        "model": args.model, "positions": report["rows"],
                        "features": report["features"],
                        "held_out_positions": report["held_out_rows"],
                        "estimate": fx.estimate,
                        "r2_estimate": None if r2e is None else round(r2e, 6),
                        "r2_model": None if r2m is None else round(r2m, 6),
                        "out": path, "seconds": round(secs, 3)}))
        return EXIT_OK
    who = seats_text.split(",")[0] if len(set(seats_text.split(","))) == 1 else seats_text
    out(f"{prog.name} · {players} players · {plural(args.games, 'game')} (seeds {seeds[0]}.."
        f"{seeds[-1]}) · seats: {who}")
    out(f"{report['rows']:,} positions (a seat at a step of the game) of {report['features']} "
        f"features; held out: the {report['held_out_rows']:,} of the games whose seed is a "
        "multiple of 5")
    out("how well each predicts a seat's final margin there (held-out R²):")

    def r2(v: Any) -> str:
        return "n/a (the held-out margins do not vary)" if v is None else f"{v:.3f}"
    rows = [("the rulebook's estimate alone (a line through its lead)",
             r2(r2e) if fx.estimate else "(it declares no estimate)"),
            (f"the model ({args.model})", r2(r2m))]
    for what, v in rows:
        out(f"  {what:<56} {v}")
    out(f"model written to {path}; a searcher judges its cut-offs by it with value=: "
        f"--seats ismcts:300:value={path}")
    return EXIT_OK


def _games(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of games, got '{text}'") \
            from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more games, got '{text}'")
    return n


_whole = int_arg


def add_command(sub: "argparse._SubParsersAction[argparse.ArgumentParser]",
                formatter: Any) -> None:
    """Register `mercator learn`."""
    help_ = "learn an evaluation of positions from games, for a searcher's value=FILE"
    lp = sub.add_parser("learn", help=help_, description=help_ + " (needs numpy: pip install "
                        "'mercator[learn]'; docs/agents.md)", formatter_class=formatter,
                        epilog="example:\n  mercator learn rulebooks/felinia.rules --players 3 "
                               "--games 300 --out felinia-3p.npz\n"
                               "  mercator simulate rulebooks/felinia.rules --players 3 --games 20 "
                               "--seats ismcts:300:value=felinia-3p.npz,prefer,prefer")
    lp.set_defaults(func=cmd_learn)
    lp.add_argument("path", metavar="RULEBOOK", help="the rulebook")
    lp.add_argument("--players", type=_whole, metavar="N",
                    help="number of players (default: the rulebook's minimum); a model serves "
                         "this player count only")
    lp.add_argument("--games", type=_games, metavar="G", default=DEFAULT_GAMES,
                    help=f"how many games to learn from, at least 5 (default: {DEFAULT_GAMES}); "
                         "those of every fifth seed are held out to measure the model")
    lp.add_argument("--seats", metavar="SPECS",
                    help="who plays the games: one spec for every seat or one per seat, as in "
                         "simulate (default: prefer — the rulebook's preferences, a random "
                         "option where it declares none: cheap self-play)")
    lp.add_argument("--model", choices=("linear", "mlp"), default="linear",
                    help="a line (ridge regression; the default) or a small network (mlp) over "
                         "the features")
    lp.add_argument("--out", metavar="FILE",
                    help="where to write the model (default: RULEBOOK's name and the player "
                         "count, e.g. felinia-3p.npz, in the current directory)")
    lp.add_argument("--seed", type=_whole, metavar="S", default=0,
                    help="game i uses seed S+i (default: 0)")
    lp.add_argument("--json", action="store_true",
                    help="print one JSON object (the held-out R², the file) instead of text")
