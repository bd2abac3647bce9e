"""`mercator serve`: play, watch or step through a game in the browser (interpreter/web/)."""
from __future__ import annotations

import argparse
import os
import random
from typing import Any

from mercator.interpreter.cli.common import (EXIT_OK, EXIT_RULES, UsageError, Failed, out, err, checked_save,
                                    load_program, player_count, runtime_failure)
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.tools.saves import SaveError
from mercator.interpreter.tools.session import GameSession, SessionError, parse_seat_kinds, SEAT_KINDS


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got '{text}'") from None
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0: any free port), not {n}")
    return n


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None


def add_command(sub: Any, formatter: Any) -> None:
    """Register `serve` with the subcommand parser."""
    help_ = "play, watch or replay a game in the browser (a local web server)"
    sp = sub.add_parser("serve", help=help_, description=help_, formatter_class=formatter,
                        epilog="example:\n  mercator serve rulebooks/manila.rules --players 3 "
                               "--seats human,random,random\n"
                               "  mercator serve rulebooks/manila.rules --replay game.json\n"
                               "each human seat gets its own secret link, printed at the start; "
                               "open it in a browser.\nanyone else who opens the server's address "
                               "only watches (the spectator's view).")
    sp.set_defaults(func=cmd_serve)
    sp.add_argument("path", metavar="RULEBOOK", help="the rulebook")
    sp.add_argument("--players", type=_int, metavar="N",
                    help="number of players (default: the rulebook's minimum)")
    sp.add_argument("--seats", metavar="SPECS",
                    help=f"one player per seat, comma-separated ({', '.join(SEAT_KINDS)}; a "
                         "searcher: bot:easy|medium|hard, or with a budget, e.g. ismcts:200 or "
                         "ismcts:1s); default: P1 "
                         "human, the others random. Several humans: hot-seat")
    sp.add_argument("--seed", type=_int, metavar="S", help="game seed (default: a random one)")
    sp.add_argument("--host", default="127.0.0.1", metavar="H",
                    help="address to listen on (default: 127.0.0.1, this machine only)")
    sp.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="also answer requests made to this name (repeatable); by default the "
                         "server answers to localhost, 127.0.0.1, ::1 and --host (with "
                         "--host 0.0.0.0: also to any IP address), and refuses other names "
                         "(DNS rebinding)")
    sp.add_argument("--port", type=_port, default=8000, metavar="N",
                    help="port to listen on (default: 8000; 0: any free port)")
    sp.add_argument("--replay", metavar="SAVE",
                    help="step through this saved game with the timeline instead of playing")
    sp.add_argument("--save", metavar="FILE",
                    help="save the game to FILE after every move (replay it with --replay FILE, "
                         "go on with --resume FILE)")
    sp.add_argument("--resume", metavar="SAVE",
                    help="go on playing this saved game (--seats as for a new game; add "
                         "--save SAVE to keep saving it)")
    sp.add_argument("--no-undo", action="store_true",
                    help="refuse undo (by default a human may take back a move until another "
                         "human has moved)")


def _saved_game(args: argparse.Namespace, prog: Any, res: Any, path: str, flag: str) -> Any:
    """The save at `path` (for --replay or --resume), checked against the rulebook and flags."""
    data = checked_save(path, res, args, "serve",
                        "serve it with: mercator serve {rulebook} " + flag + " {path}",
                        "leave out {flag} with " + flag)
    if not prog.min_players <= data.players <= prog.max_players:
        err(f"mercator serve: {path}: {prog.name} is not played by {data.players} players")
        raise Failed(EXIT_RULES)
    return data


def _from_save(prog: Any, res: Any, data: Any, seats: Any, replaying: bool) -> GameSession:
    try:
        return GameSession.from_save(prog, data, seats=seats, sources=res.sources,
                                     replaying=replaying)
    except SaveError as exc:
        err(f"mercator serve: {exc}")
        raise Failed(EXIT_RULES) from None
    except RuleError as exc:
        runtime_failure(exc, res.sources, data.seed, exc.history)
        raise Failed(EXIT_RULES) from None


def build_session(args: argparse.Namespace) -> GameSession:
    """The game session the flags ask for: a new game, a saved one to go on with (--resume),
    or a saved one to step through (--replay)."""
    prog, res = load_program(args.path)
    if args.replay and (args.save or args.resume):
        raise UsageError(f"{'--save' if args.save else '--resume'} and --replay do not go "
                         "together", "a replay changes nothing: serve it alone, or go on "
                         "playing it with --resume SAVE")
    if args.replay:
        if args.seats is not None:
            raise UsageError("--seats has no meaning with --replay (nobody moves)",
                             "leave out --seats; every seat gets a link to see its own view")
        data = _saved_game(args, prog, res, args.replay, "--replay")
        return _from_save(prog, res, data, None, replaying=True)
    if args.resume:
        data = _saved_game(args, prog, res, args.resume, "--resume")
        try:
            seats = parse_seat_kinds(args.seats, data.players)
        except SessionError as exc:
            raise UsageError(exc.message, exc.hint) from None
        session = _from_save(prog, res, data, seats, replaying=False)
        session.undo_allowed = not args.no_undo
    else:
        players = player_count(prog, args.players)
        try:
            seats = parse_seat_kinds(args.seats, players)
        except SessionError as exc:
            raise UsageError(exc.message, exc.hint) from None
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
        try:
            session = GameSession(prog, players, seed, seats, args.path, res.sources,
                                  undo=not args.no_undo)
        except RuleError as exc:
            runtime_failure(exc, res.sources, seed, exc.history)
            err("  the game could not start: the rule error happens before the first decision")
            raise Failed(EXIT_RULES) from None
        except SessionError as exc:
            err(f"mercator serve: {exc.message}")
            raise Failed(EXIT_RULES) from None
    if args.save:
        if os.path.isdir(args.save):
            raise UsageError(f"cannot write {args.save}: it is a folder",
                             f"give a file name inside it, e.g. {os.path.join(args.save, 'game.json')}")
        try:
            session.save(args.save)      # at once: a path that cannot be written is refused now
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot write {args.save}: {getattr(exc, 'strerror', None) or exc}",
                             "save somewhere else") from None
        session.save_path = args.save
    return session


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a game in the browser until interrupted."""
    session = build_session(args)
    try:
        from mercator.interpreter.web.app import SeatLinks, make_app
        from mercator.interpreter.web.guard import HostRule
        from mercator.interpreter.web.server import BindError, Served, bind
    except ImportError as exc:
        err(f"mercator serve: the web server is not installed ({exc.name} is missing)")
        err("  hint: pip install 'mercator[web]' (in a checkout: make setup)")
        return EXIT_RULES
    linked = list(range(session.players)) if session.replaying else \
        [i for i in range(session.players) if session.human(i)]
    humans = [i for i in range(session.players) if session.human(i)]
    links = SeatLinks(linked, table=not session.replaying and len(humans) > 1)
    try:
        sock = bind(args.host, args.port)
    except BindError as exc:
        raise UsageError(str(exc), exc.hint) from None
    served = Served(make_app(session, links, hosts=HostRule(args.host, args.allow_host)), sock)
    what = f"replay of {args.replay}" if session.replaying else \
        " · ".join(f"P{i + 1} {k}" for i, k in enumerate(session.seats)) + \
        (f" · resumed after {len(session.decisions)} decisions" if args.resume else "")
    out(f"{session.program.name} · {session.players} players · seed {session.seed} · {what}")
    out(f"watch (spectator): {served.url}/")
    for seat in linked:
        out(f"P{seat + 1} ({session.seats[seat]}): {served.url}{links.path(seat)}")
    if links.table is not None:
        out(f"one shared screen for the humans (hot-seat): {served.url}{links.table_path()}")
    if linked:
        out("each link is secret: it shows that seat's cards. Give each player only their own.")
    err("serving; press Ctrl-C to stop")
    try:
        served.run()
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    if args.save:
        err(f"game saved to {args.save}")
    return EXIT_OK
