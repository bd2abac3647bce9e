"""The `mercator` command: check, play, simulate, replay and format rulebooks (and the designer's,
the server's and the learned evaluation's commands, registered from their modules)."""
from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Any, Callable, Optional, Sequence, TextIO

from mercator.dsl.diagnostics import Diagnostic, render
from mercator.dsl.loader import LoadResult, load, refusal
from mercator.interpreter.cli.common import (EXIT_OK, at_least_one, checked_save, int_arg, EXIT_RULES, EXIT_USAGE,
                                    EXIT_INTERRUPTED, UsageError, Failed, out, err, score_text,
                                    too_large, plural, print_diagnostics, require_file, load_program,
                                    player_count, runtime_failure,
                                    writable_target, name_rulebooks, decision_log_line,
                                    print_rule_error)
from mercator.interpreter.cli.check import cmd_check
from mercator.interpreter.cli.simulate import (add_bot_flags, add_results_flag, cmd_simulate,
                                               valued_seats)
from mercator.interpreter.agents.search import hidden_information
from mercator.interpreter.agents.spec import AgentSpec, SpecError, for_rulebook, make_agent
from mercator.interpreter.agents.spec import parse_seats as parse_seat_specs
from mercator.interpreter.agents.base import (Agent, GameTooLong, HumanAgent, QuitGame, agent_seed,
                                play_out)
from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.saves import SaveError, load_save, replay, save
from mercator.interpreter.tools.version import engine_version
from mercator.interpreter.engine.people import people
from mercator.interpreter.engine.seen import ALL, readable_log
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.view import printable

# ------------------------------------------------------------------ play
def print_result(prog: Program, node: Terminal, state: Any = None,
                 viewer: Optional[int] = None) -> None:
    """The final ranking, scores and winners; with the state, the score's parts as the view's
    `scoring` declares them, as `viewer` may see them."""
    out(f"game over — {prog.name}")
    out("rank  seat  score")
    for rank, p in enumerate(node.ranking, start=1):
        tag = "  winner" if p in node.winners else ""
        out(f"{rank:>4}  P{p + 1:<3} {score_text(node.scores[p]):>5}{tag}")
    names = ", ".join(f"P{w + 1}" for w in node.winners)
    if not node.winners:
        out("no winner: no player may win ('eligible')")
    else:
        out(f"{'shared win' if len(node.winners) > 1 else 'winner'}: {names}")
    if state is not None:
        from mercator.interpreter.engine.view_summary import score_lines
        lines = score_lines(prog, state, viewer)
        if lines:
            out("the score in its parts" + (f" (as P{viewer + 1} may see them)"
                                            if isinstance(viewer, int) else "") + ":")
            for line in lines:
                out(f"  {line}")


def cmd_play(args: argparse.Namespace) -> int:
    """Play a game in the terminal against bots or at a shared keyboard."""
    prog, res = load_program(args.path)
    decisions: list[int] = []
    labels: list[str] = []
    prior: list[str] = []
    if args.resume:
        data = checked_save(args.resume, res, args, "play",
                            "resume it with: mercator play {rulebook} --resume {path}",
                            "leave out {flag} when resuming")
        players, seed = data.players, data.seed
    else:
        players = player_count(prog, args.players)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    if not prog.min_players <= players <= prog.max_players:
        err(f"mercator play: {args.resume}: not a Mercator save of this rulebook: "
            f"{prog.name} is not played by {players} players")
        raise Failed(EXIT_RULES)
    seats_text = args.seats
    if args.resume and seats_text is None and data.seats is not None:
        seats_text = ",".join(data.seats)     # the seats the game was saved with
        where = f"{args.resume}: the seats it was saved with: "
    else:
        where = ""
    try:
        specs = play_seats(seats_text, players, prog)
    except UsageError as exc:
        if not where:
            raise
        err(f"mercator play: {where}{exc}")
        err("  name the seats again with --seats")
        raise Failed(EXIT_USAGE) from None
    seats = [sp.kind if sp.kind in ("human", "random") else str(sp) for sp in specs]
    record = any(sp.needs_record for sp in specs)     # ismcts resamples: chance as steps
    if args.resume:
        if record and not data.explicit_chance:
            raise UsageError("an ismcts seat needs a game that keeps its chance as steps, and "
                             "this save was not played so",
                             "resume it without ismcts seats (e.g. random), or start a new game")
        record = data.explicit_chance
    viewer = narration_viewer(args.as_, seats)
    if args.save:
        writable_target(args.save, "--save")
    from mercator.interpreter.agents.human import UndoRequest
    from mercator.interpreter.tools.session import undo_point
    humans = [i for i, k in enumerate(seats) if k == "human"]
    human = None
    movers: list[int] = []          # who made each decision (-1: chance), for undo

    def undo_refusal(seat: int) -> Optional[str]:
        return undo_point(movers, seat, lambda m: seats[m] == "human")[1]
    console = None
    if humans:
        from mercator.interpreter.cli.terminal import RichScreen, console_for, rules_summary
        console = console_for(sys.stdout)
        human = HumanAgent(screen=RichScreen(console),
                           rules=rules_summary(prog, args.path), handover=len(humans) > 1,
                           undo=undo_refusal)
    agents: list[Agent] = [human if sp.kind == "human" and human is not None
                           else make_agent(for_rulebook(sp, prog.bot_settings), agent_seed(seed, i))
                           for i, sp in enumerate(specs)]
    if console is not None and console.is_terminal:      # a person waits for the searches
        from mercator.interpreter.cli.terminal import ThinkingBot
        agents = [ThinkingBot(a, console, f"P{i + 1} ({seats[i]})")
                  if specs[i].kind in ("mcts", "ismcts") else a for i, a in enumerate(agents)]
    out(f"{prog.name} · {players} players · seed {seed} · "
        + " · ".join(f"P{i + 1} {k}" for i, k in enumerate(seats)))
    if args.resume:
        try:
            state, prior = replay(prog, data, viewer=viewer)
        except SaveError as exc:
            err(f"mercator play: {exc}")
            raise Failed(EXIT_RULES) from None
        except RuleError as exc:
            runtime_failure(exc, res.sources, seed, exc.history)
            raise Failed(EXIT_RULES) from None
        decisions, labels = list(data.decisions), list(data.labels)
        movers[:] = deciders(prog, players, seed, decisions, data.explicit_chance)
        out(f"resumed after {plural(len(decisions), 'decision')}; the story so far:")
        for line in prior[-12:]:
            out(f"  {line}")
    else:
        state = start_game(prog, res, players, seed, narrate=True, explicit_chance=record)
        if human is None:
            for line in readable_log(state.record, viewer, people(prog, state).label):
                out(line)
    seen = len(state.record)
    if human is not None:
        # a human sees what happened before each of their decisions (HumanAgent); the lines
        # after the last one are shown when the game ends
        human.log_from = seen if args.resume else 0
    told = seen          # the record up to here was shown to the narration's viewer

    def tell(s: Any) -> None:
        nonlocal told
        # as the narration's viewer saw it, in words
        for line in readable_log(s.record[told:], viewer, people(prog, s).label):
            out(line)
        told = len(s.record)

    def on_step(s: Any, node: Any, idx: int, label: str) -> None:
        nonlocal seen, told
        decisions.append(idx)
        labels.append(label)
        movers.append(node.player if isinstance(node, Decision) else -1)
        if human is None:
            tell(s)
        elif isinstance(node, Decision) and seats[node.player] == "human":
            told = seen     # the human was shown the record up to their decision
        seen = len(s.record)

    def write_save(target: str) -> bool:
        try:
            save(target, args.path, res.sources, players, seed, decisions, labels,
                 explicit_chance=record, seats=[str(sp) for sp in specs])
            return True
        except OSError as exc:
            err(f"mercator play: cannot write {target}: {exc.strerror or exc}")
            err(f"  to rebuild it by hand: seed {seed}, players {players}, decisions {decisions}")
            return False

    def keep(reason: str, resumable: bool = True, target: Optional[str] = None) -> None:
        """Save the game to `target`, else where --save says (a game that failed is given the
        per-user cache's file without --save, failure_save_path: nothing is lost, and a bot
        searching by time would not play it again)."""
        target = target or args.save
        if not target:
            err(f"{reason}; the game was not saved (use --save FILE to keep it)")
        elif write_save(target):
            err(f"{reason}; game saved to {target} after {plural(len(decisions), 'decision')}")
            then = "resume" if resumable else "reproduce the error"
            cmd = f"play {args.path} --resume" if resumable else "replay"
            err(f"  {then} with: mercator {cmd} {target}")

    try:
        while True:
            try:
                play_out(prog, state, agents, on_step)
                break
            except UndoRequest as req:
                # back to the seat's last decision: the same game replayed without it and
                # what followed (the bots will decide afresh)
                k, _ = undo_point(movers, req.seat, lambda m: seats[m] == "human")
                assert k is not None and human is not None
                gone = len(decisions) - k
                del decisions[k:], labels[k:], movers[k:]
                state = start_game(prog, res, players, seed, narrate=True,
                                   explicit_chance=record)
                for idx in decisions:
                    prog.apply(state, idx)
                seen = told = len(state.record)
                human.taken_back(len(state.record))
                out(f"── P{req.seat + 1} takes back {plural(gone, 'decision')} "
                    "(their last and what followed) ──")
    except QuitGame as exc:
        keep(str(exc))
        return EXIT_OK if exc.requested else EXIT_RULES
    except KeyboardInterrupt:
        err("")
        keep("interrupted")
        return EXIT_INTERRUPTED
    except RuleError as exc:
        # the failing choice is in exc.history but on_step never saw it: keep it, so a replay
        # of the save reproduces the error
        node = state.pending
        for idx in exc.history[len(decisions):]:
            decisions.append(idx)
            labels.append(node.option(idx).label if 0 <= idx < node.count else "?")
        kept_at = args.save or failure_save_path(args.path, seed)
        if kept_at:
            runtime_failure(exc, res.sources, seed, decisions)   # (the log shortened)
        else:       # nothing else keeps the game: the whole log reproduces it
            print_rule_error(exc.message, exc.span, res.sources)
            err(decision_log_line(seed, decisions, whole=True))
        keep("the game stopped on a rule error", resumable=False, target=kept_at)
        if not args.save and "human" not in seats and not any(sp.seconds for sp in specs):
            # bots that do not search by time: the same command plays the same game again
            err(f"  reproduce with: mercator play {args.path} --players {players} --seed {seed} "
                f"--seats {','.join(seats)}")
        return EXIT_RULES
    except Exception:
        keep("the game stopped on an internal error (a bug in Mercator, not in the rulebook)",
             target=args.save or failure_save_path(args.path, seed))
        raise
    assert isinstance(state.pending, Terminal)
    if human is not None:
        tell(state)
    print_result(prog, state.pending, state, viewer)
    if args.save and write_save(args.save):
        err(f"game saved to {args.save}")
    return EXIT_OK


def failure_save_path(rulebook: str, seed: int) -> Optional[str]:
    """Where `play` saves a game that stopped on an error when no --save was given: the
    per-user cache's failed-games/ (NAME-seed-S-TIME.json; the oldest removed beyond
    FAILED_KEPT), or None where there is no private per-user cache (dsl/parse_cache)."""
    from mercator.dsl.parse_cache import cache_dir
    root = cache_dir()
    if root is None:
        return None
    where = os.path.join(root, "failed-games")
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
    except OSError:
        return None
    import time
    try:                                # the newest FAILED_KEPT are kept, the others removed
        old = sorted((os.path.join(where, f) for f in os.listdir(where) if f.endswith(".json")),
                     key=os.path.getmtime)
        for f in old[:max(0, len(old) - FAILED_KEPT + 1)]:
            os.remove(f)
    except OSError:
        pass
    stem = os.path.splitext(os.path.basename(rulebook))[0]
    return os.path.join(where, f"{stem}-seed-{seed}-{time.strftime('%Y%m%d-%H%M%S')}.json")


FAILED_KEPT = 20     # games stopped by an error kept in the per-user cache


def play_seats(text: Optional[str], players: int, prog: Program) -> list[AgentSpec]:
    """The seats of `play --seats` (default: P1 human, the others random): one player per
    seat (or one for all), each a spec of agents/spec.py."""
    if text is None:
        text = ",".join(["human"] + ["random"] * (players - 1))
    try:
        specs = parse_seat_specs(text, players)
    except SpecError as exc:
        raise UsageError(f"--seats: {exc}", exc.hint or "e.g. --seats " + ",".join(
            ["human"] + ["random"] * (players - 1)) + " (or bot:easy, bot:medium, bot:hard for "
            "a searching bot)") from None
    valued_seats(specs, prog, players)
    if any(not sp.honest for sp in specs) and hidden_information(prog):
        err(f"note: {prog.name} hides information from the players, and an mcts seat searches "
            "the true state: it sees other seats' hidden cards and sealed choices (ismcts does "
            "not)")
    return specs


def start_game(prog: Program, res: LoadResult, players: int, seed: int,
               narrate: bool = False, explicit_chance: bool = False) -> State:
    """prog.new_game, with a rule error in the setup or before the first decision reported like
    any other (located, with the seed) and exit 1."""
    try:
        return prog.new_game(players, seed, narrate=narrate, explicit_chance=explicit_chance)
    except RuleError as exc:
        runtime_failure(exc, res.sources, seed, exc.history)
        err("  the game could not start: the rule error happens before the first decision")
        raise Failed(EXIT_RULES) from None


def deciders(prog: Program, players: int, seed: int, decisions: Sequence[int],
             explicit_chance: bool) -> list[int]:
    """Who made each decision of a saved game (-1: chance), by replaying it."""
    state = prog.new_game(players, seed, explicit_chance=explicit_chance)
    out = []
    for idx in decisions:
        node = state.pending
        out.append(node.player if isinstance(node, Decision) else -1)
        prog.apply(state, idx)
    return out


def narration_viewer(given: Optional[str], seats: Sequence[str]) -> Any:
    """Whose eyes `play` narrates with: --as if given (a seat, 'spectator' or 'all'), else the
    one human's, else a spectator's. Never more than a human at the table may see."""
    humans = [i for i, k in enumerate(seats) if k == "human"]
    if given is None:
        return humans[0] if len(humans) == 1 else None
    v = parse_viewer(given, len(seats))
    if humans and v is not None and (v == ALL or len(humans) > 1 or v != humans[0]):
        shown = "everything" if v == ALL else f"P{v + 1}'s view"
        raise UsageError(f"--as {given} would show {shown} to the humans at the table",
                         "leave out --as (each human sees only what the rules show them), "
                         "or use --as spectator")
    return v


def parse_viewer(given: str, players: int) -> Any:
    """'P2' -> seat 1, 'spectator' -> None, 'all' -> ALL; UsageError otherwise."""
    t = given.strip().lower()
    if t == "spectator":
        return None
    if t == "all":
        return ALL
    if t.startswith("p") and t[1:].isdigit() and 1 <= int(t[1:]) <= players:
        return int(t[1:]) - 1
    raise UsageError(f"--as {given}: not a seat of this {players}-player game",
                     f"use P1–P{players}, 'spectator' or 'all'")


# ------------------------------------------------------------------ replay / fmt
def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a saved game, verifying it, and print its log."""
    try:
        data = load_save(args.file)
    except SaveError as exc:
        err(f"mercator replay: {exc}")
        return EXIT_RULES
    prog, res = load_program(data.rulebook)
    if not prog.min_players <= data.players <= prog.max_players:
        err(f"mercator replay: {args.file}: not a Mercator save of this rulebook: "
            f"{prog.name} is not played by {data.players} players")
        return EXIT_RULES
    viewer = parse_viewer(args.as_, data.players) if args.as_ else None
    try:
        state, lines = replay(prog, data, viewer=viewer)
    except SaveError as exc:
        err(f"mercator replay: {exc}")
        return EXIT_RULES
    except ValueError as exc:   # players outside the rulebook's range
        err(f"mercator replay: {args.file}: {exc}")
        return EXIT_RULES
    except RuleError as exc:
        runtime_failure(exc, res.sources, data.seed, exc.history)
        return EXIT_RULES
    out(f"{prog.name} · {data.players} players · seed {data.seed} · "
        f"{plural(len(data.decisions), 'decision')}")
    for line in lines:
        out(line)
    node = state.pending
    if isinstance(node, Terminal):
        print_result(prog, node)
    else:
        who = f"P{node.player + 1}" if node.player >= 0 else "chance"
        out(f"(saved mid-game: {who} to decide" + (f" '{node.prompt}')" if getattr(
            node, "prompt", "") else ")"))
    return EXIT_OK


def cmd_fmt(args: argparse.Namespace) -> int:
    """Print a rulebook in canonical form, with its comments where they were."""
    from mercator.dsl.parser import comments, parse
    require_file(args.file)
    problem = refusal(args.file)
    if problem is not None:
        err(f"{args.file}: error: cannot read the file ({problem})")
        return EXIT_RULES
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        err(f"{args.file}: error: cannot read the file ({exc})")
        return EXIT_RULES
    tree, diags = parse(text, args.file)
    if tree is None or any(d.is_error for d in diags):
        print_diagnostics(diags, {args.file: text})
        return EXIT_RULES
    try:
        from mercator.dsl.fmt import format_rulebook
    except ImportError:
        err("mercator fmt: the formatter (dsl/fmt.py) is not available in this build")
        return EXIT_RULES
    sys.stdout.write(format_rulebook(tree, comments(text)))
    return EXIT_OK


# ------------------------------------------------------------------ parser
_int_arg = int_arg


def _games_arg(text: str) -> int:
    n = _int_arg(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more games, got '{text}'")
    return n


def _seconds_arg(text: str) -> float:
    try:
        secs = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got '{text}'") from None
    if not 0 <= secs < float("inf"):
        raise argparse.ArgumentTypeError(f"expected 0 or more seconds, got '{text}'")
    return secs


def _minutes_arg(text: str) -> float:
    try:
        minutes = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got '{text}'") from None
    if not 0 < minutes <= 7 * 24 * 60:
        raise argparse.ArgumentTypeError(f"expected more than 0 minutes and at most a week "
                                         f"(10080), got '{text}'")
    return minutes


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `mercator` and its subcommands."""
    raw = argparse.RawDescriptionHelpFormatter
    p = argparse.ArgumentParser(prog="mercator", formatter_class=raw,
                                description="Mercator: board games as rulebooks in plain text.",
                                epilog="example:\n  mercator check rulebooks/manila.rules\n"
                                       "  mercator simulate rulebooks/manila.rules --players 4 "
                                       "--games 1000 --seed 7")
    p.add_argument("--version", action="version", version=f"mercator {engine_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def cmd(name: str, fn: Callable[[argparse.Namespace], int], help_: str,
            example: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_, formatter_class=raw,
                            epilog=f"example:\n  {example}")
        sp.set_defaults(func=fn)
        return sp

    c = cmd("check", cmd_check, "check rulebooks and report errors with their location",
            "mercator check rulebooks/manila.rules broken.rules\n"
            "  mercator check rulebooks/manila.rules --explore 200 --seed 1\n"
            "  mercator check --watch rulebooks/manila.rules\n"
            "  mercator check --server &    # then every `mercator check FILE` asks it")
    c.add_argument("paths", nargs="*", metavar="PATH", help="rulebook files")
    c.add_argument("--verbose", action="store_true",
                   help="also show informational notes (e.g. events nothing reacts to)")
    c.add_argument("--no-cache", action="store_true",
                   help="check afresh: neither use nor keep the answer in the per-user cache "
                        "(an unchanged file is otherwise answered from it; docs/performance.md)")
    c.add_argument("--watch", action="store_true",
                   help="stay open: check again whenever a file the check read changes (for an "
                        "editor; each check's time is shown); Ctrl-C stops")
    c.add_argument("--server", action="store_true",
                   help="stay open and check the changed files of every later `mercator check "
                        "FILE` of this user (for an editor that runs that command on each "
                        "change: an edited game's answer then comes three to four times "
                        "sooner); without a server the command checks the file itself")
    c.add_argument("--idle", type=_minutes_arg, metavar="MINUTES", default=None,
                   help="with --server: quit after this many minutes without a check "
                        "(default: 30)")
    c.add_argument("--explore", type=_games_arg, metavar="N", default=0,
                   help="also play N games chosen by Hypothesis, checking every invariant after "
                        "every decision; a failure is shrunk to the shortest game and saved")
    c.add_argument("--seed", type=_int_arg, metavar="S", default=0,
                   help="seed of the exploration (default: 0)")
    c.add_argument("--strategy", choices=("hypothesis", "novelty"), default="hypothesis",
                   help="how --explore chooses: 'hypothesis' (random decision sequences, a "
                        "failure shrunk to the shortest game) or 'novelty' (at every decision "
                        "the option whose consequences run the most rule lines not yet run; "
                        "a failure is reported as found)")
    c.add_argument("--players", type=_int_arg, metavar="N",
                   help="explore only this player count (default: every allowed count)")
    c.add_argument("--save-failure", metavar="FILE",
                   help="where to save the shrunk failing game (default: PATH.failure.json)")
    c.add_argument("--shrink-time", type=_seconds_arg, metavar="SECONDS", default=60.0,
                   help="stop shrinking a failure after this many seconds and report the "
                        "shortest failing game found so far (default: 60)")
    c.add_argument("--workers", type=int, metavar="N",
                   help="explore on N processes (default: every core); the same report for "
                        "any N")
    pl = cmd("play", cmd_play, "play a game in the terminal against bots or friends",
             "mercator play rulebooks/manila.rules --players 3 --seats human,random,random "
             "--save game.json")
    pl.epilog = (pl.epilog or "") + (
        "\n\nat a prompt: #N picks option N; a bare number is a value (at a bid, 3 bids 3; "
        "where\nthe choice is not of numbers it is refused); a label, or its start, picks that "
        "option;\n'help' explains the commands (options, view, log, rules, quit)")
    pl.add_argument("path", metavar="PATH", help="the rulebook")
    pl.add_argument("--players", type=_int_arg, metavar="N",
                    help="number of players (default: the rulebook's minimum)")
    pl.add_argument("--seats", metavar="SPECS",
                    help="one player per seat, comma-separated: human, random, "
                         "bot:easy|medium|hard (a searching bot thinking 0.2, 1 or 3 s a move; easy "
                         "on its own judgment, not the rulebook's trust in its preferences), "
                         "ismcts[:N|:Ts] (a search: N iterations or T seconds a decision; "
                         "settings such as :depth=D follow, docs/agents.md), "
                         "mcts[:N|:Ts] (sees hidden information); default: P1 human, the "
                         "others random")
    pl.add_argument("--seed", type=_int_arg, metavar="S", help="game seed (default: a random one)")
    pl.add_argument("--save", metavar="FILE", help="save the game here when it ends or is stopped")
    pl.add_argument("--resume", metavar="FILE", help="continue the game saved in FILE")
    pl.add_argument("--as", dest="as_", metavar="WHO",
                    help="narrate as this seat sees the game (P1, P2, ...), as a 'spectator' or "
                         "'all' (everything; only with no human seats). Default: the one human's "
                         "view, else a spectator's")
    sm = cmd("simulate", cmd_simulate, "play many games between bots and summarise them",
             "mercator simulate rulebooks/manila.rules --players 4 --games 1000 --seed 7\n"
             "  mercator simulate rulebooks/manila.rules --players 3 --games 100 "
             "--seats ismcts:200,random,random\n"
             "  mercator simulate rulebooks/genoa.rules --games 300 --plot genoa.html")
    sm.add_argument("path", metavar="PATH", help="the rulebook")
    sm.add_argument("--players", type=_int_arg, metavar="N",
                    help="number of players (default: the rulebook's minimum)")
    sm.add_argument("--games", type=_int_arg, metavar="G", default=100,
                    help="how many games (default: 100)")
    sm.add_argument("--seed", type=_int_arg, metavar="S", default=0,
                    help="game i uses seed S+i (default: 0)")
    sm.add_argument("--max-decisions", type=at_least_one, metavar="D", default=100_000,
                    help="stop a game that takes more decisions than this (default: 100000)")
    sm.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_bot_flags(sm)
    add_results_flag(sm)
    sm.add_argument("--plot", metavar="FILE",
                    help="also draw win rate by seat, scores, game length and the declared stats: "
                         "FILE.png (one picture) or FILE.html (a report with the numbers); "
                         "needs matplotlib (pip install 'mercator[plot]')")
    rp = cmd("replay", cmd_replay, "replay a saved game and print its log",
             "mercator replay game.json")
    rp.add_argument("file", metavar="FILE", help="a save written by 'mercator play --save'")
    rp.add_argument("--as", dest="as_", metavar="WHO",
                    help="show the game as this seat saw it (P1, P2, ...), as a spectator "
                         "(the default: only what is public), or 'all' (everything)")
    fm = cmd("fmt", cmd_fmt, "print a rulebook in canonical form",
             "mercator fmt rulebooks/manila.rules > manila.rules.new")
    fm.add_argument("file", metavar="FILE", help="the rulebook")
    from mercator.interpreter.cli.design import add_commands
    add_commands(sub, raw)
    from mercator.interpreter.cli.serve import add_command as add_serve
    add_serve(sub, raw)
    from mercator.interpreter.cli.learn import add_command as add_learn
    add_learn(sub, raw)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the mercator command line; return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # --help, --version, or an argparse usage error
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    name_rulebooks(args)
    try:
        return args.func(args)
    except UsageError as exc:
        err(f"mercator {args.command}: error: {exc}")
        if exc.hint:
            err(f"  hint: {exc.hint}")
        return EXIT_USAGE
    except Failed as exc:
        return exc.code
    except KeyboardInterrupt:
        err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except RuleError as exc:    # the rulebook's mistake, wherever it surfaced
        if os.environ.get("MERCATOR_DEBUG"):
            raise
        print_rule_error(exc.message, exc.span, {})
        err(decision_log_line(exc.seed, exc.history, whole=True))
        err("  reproduce it with the seed and decision log above (mercator play --seed S "
            "--save FILE keeps a game to replay)")
        return EXIT_RULES
    except Exception as exc:               # Mercator's own mistake
        if os.environ.get("MERCATOR_DEBUG"):
            raise
        err(f"mercator {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(set MERCATOR_DEBUG=1 for a traceback)")
        return EXIT_RULES


if __name__ == "__main__":
    # run the imported module's main, not this __main__ copy: interpreter.cli.design raises
    # interpreter.cli.main's exception classes, which a second copy of this module would not catch
    from mercator.interpreter.cli.main import main as _main
    sys.exit(_main())
