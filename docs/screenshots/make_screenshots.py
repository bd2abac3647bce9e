"""Make the screenshots of docs/web.md and docs/playing.md: one game of each of the four
rulebooks in the browser, the shared hot-seat screen's handover, and the terminal's screen
(drawn by rich, as `mercator play` draws it, and photographed in the same browser).

Run from the repository root, with Debian's chromium and chromium-driver installed:

    .venv/bin/python docs/screenshots/make_screenshots.py

For each game it serves a new game (P1 human, the others random bots, a fixed seed), opens P1's
secret link in headless Chromium (tests/browser.py, the browser tests' own), plays some moves by
clicking the page's buttons (on to a decision with a few options), and saves the whole page as
docs/screenshots/GAME.png; then each game on a phone, 400 px wide, at its start, in the middle
and at its end, as GAME_phone_start.png, GAME_phone.png and GAME_phone_end.png, and each game
at its start and its end, 1280 px wide, as GAME_start.png and GAME_end.png.
Then handover.png (a hot-seat game's shared screen between two players) and terminal_manila.png,
terminal_felinia.png (the terminal at a decision: what happened, what changed, the view, the
options with what they do).
"""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser import Browser, choose_in_page, new_session, serve_session, why_no_browser  # noqa: E402


# game, players, seed, moves clicked before the picture
GAMES = [("manila", 3, 7, 14), ("die_haendler", 3, 4, 24), ("genoa", 3, 2, 30),
         ("felinia", 2, 3, 40)]


def main() -> int:
    """Take the four screenshots; exit 1 (saying why) when no browser can run."""
    why = why_no_browser()
    if why is not None:
        print(f"make_screenshots: {why}", file=sys.stderr)
        return 1
    out = Path(__file__).resolve().parent
    browser = Browser(width=1280, height=900)
    try:
        for name, players, seed, moves in GAMES:
            session = new_session(str(ROOT / "rulebooks" / f"{name}.rules"), players, seed,
                                  ["human"] + ["random"] * (players - 1))
            served, links = serve_session(session)
            try:
                browser.driver.get(served.url + links.path(0))
                rng = random.Random(seed)
                for _ in range(moves):
                    if not choose_in_page(browser.driver, rng):
                        break
                for _ in range(40):      # then on to a decision with a few options to show
                    if len(session.options(0)) - sum(o["kind"] != "value" for o in
                                                     session.options(0)) >= 3:
                        break
                    if not choose_in_page(browser.driver, rng):
                        break
                path = out / f"{name}.png"
                browser.full_screenshot(str(path))
                print(f"{path.relative_to(ROOT)}: {session.program.name}, step {len(session.decisions)}")
            finally:
                served.stop()
        _handover(browser, out)
        for name, players, seed, until in TERMINAL:
            _terminal(browser, out, name, players, seed, until)
    finally:
        browser.close()
    _phone(out)
    _start_and_end(out)
    return 0


def _play_at_random(session, rng: random.Random, moves: Optional[int] = None) -> None:
    """P1's moves at random (no any-time action where there is another choice; the bots move
    in between) until the game ends, another seat is to decide, or after `moves` of them."""
    made = 0
    while not session.state.over and session.to_decide() == 0 and \
            (moves is None or made < moves):
        opts = session.options(0)
        session.move(0, rng.choice([o for o in opts if o["kind"] != "action"] or opts)["index"])
        made += 1


def _start_and_end(out: Path) -> None:
    """Each game at its start and at its end, 1280 px wide (GAME_start.png, GAME_end.png): the
    first decision, and the final screen with the scores in their parts and what the view
    reveals at the end (P1 plays at random, as the others do)."""
    browser = Browser(width=1280, height=900)
    try:
        for name, players, seed, _ in GAMES:
            session = new_session(str(ROOT / "rulebooks" / f"{name}.rules"), players, seed,
                                  ["human"] + ["random"] * (players - 1))
            rng = random.Random(seed)
            for when in ("start", "end"):
                if when == "end":
                    _play_at_random(session, rng)
                served, links = serve_session(session)
                try:
                    browser.driver.get(served.url + links.path(0))
                    path = out / f"{name}_{when}.png"
                    browser.full_screenshot(str(path))
                    print(f"{path.relative_to(ROOT)}: {session.program.name} at its {when}")
                finally:
                    served.stop()
    finally:
        browser.close()


def _phone(out: Path) -> None:
    """Each game on a phone, 400 px wide (the device emulated: a window cannot be that
    narrow), the top of the page: at its start (GAME_phone_start.png), in the middle of a game
    (GAME_phone.png) and at its end (GAME_phone_end.png, the final scores)."""
    browser = Browser(width=400, height=900)
    try:
        browser.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": 400, "height": 1600, "deviceScaleFactor": 1,
                                        "mobile": False})
        for name, players, seed, moves in GAMES:
            for when in ("start", "middle", "end"):
                session = new_session(str(ROOT / "rulebooks" / f"{name}.rules"), players, seed,
                                      ["human"] + ["random"] * (players - 1))
                if when != "start":
                    _play_at_random(session, random.Random(seed),
                                    moves if when == "middle" else None)
                served, links = serve_session(session)
                try:
                    browser.driver.get(served.url + links.path(0))
                    path = out / (f"{name}_phone.png" if when == "middle" else
                                  f"{name}_phone_{when}.png")
                    browser.driver.save_screenshot(str(path))
                    print(f"{path.relative_to(ROOT)}: {session.program.name} at 400 px, {when}")
                finally:
                    served.stop()
    finally:
        browser.close()


# game, players, seed, the decision to show (its prompt's start)
TERMINAL = [("manila", 3, 7, "place an accomplice"), ("felinia", 2, 3, "board a ship")]


def _handover(browser: Browser, out: Path) -> None:
    """The shared screen of a hot-seat game, after P1's move: P2 is to take it."""
    session = new_session(str(ROOT / "rulebooks" / "manila.rules"), 3, 7,
                          ["human", "human", "random"])
    served, links = serve_session(session, table=True)
    try:
        first = session.to_decide()
        assert first is not None
        session.move(first, session.options(first)[1]["index"])
        browser.driver.set_window_size(1280, 420)        # the page is short: no empty window
        browser.driver.get(served.url + links.table_path())
        path = out / "handover.png"
        browser.driver.save_screenshot(str(path))
        print(f"{path.relative_to(ROOT)}: the shared screen, P{(session.to_decide() or 0) + 1} to take it")
    finally:
        served.stop()


def _terminal(browser: Browser, out: Path, name: str, players: int, seed: int,
              until: str) -> None:
    """The terminal's screen at a human's decision: drawn by the terminal's own RichScreen on a
    recording console 110 columns wide, exported as SVG, photographed in the browser."""
    import tempfile

    from rich.console import Console

    from mercator.interpreter.agents.human import HumanAgent
    from mercator.interpreter.cli.terminal import RichScreen
    from mercator.interpreter.engine.nodes import Decision
    session = new_session(str(ROOT / "rulebooks" / f"{name}.rules"), players, seed,
                          ["human"] + ["random"] * (players - 1))
    prog, state = session.program, session.state.clone()
    console = Console(record=True, width=110, force_terminal=True, color_system="truecolor",
                      highlight=False, markup=False, emoji=False, file=open(os.devnull, "w"))
    screen = RichScreen(console)
    from mercator.interpreter.engine.declared_view import declared_view
    rng = random.Random(seed)
    human = HumanAgent(screen=screen)
    while True:
        assert not state.over, f"{name}: no decision '{until}' for P1 in this game"
        node = state.pending
        if isinstance(node, Decision) and node.player == 0 and node.prompt.startswith(until):
            # the human's screen as HumanAgent draws it before asking
            recent = human._log(prog, state, 0, human.seen.get(0, 0))
            from mercator.interpreter.engine.view_summary import view_changes
            screen.set_changes(view_changes(human.views.get(0), declared_view(prog, state, 0), 0))
            screen.turn(prog, state, node, recent[-8:], max(0, len(recent) - 8))
            break
        if isinstance(node, Decision) and node.player == 0:      # P1 decides (at random)
            human.seen[0] = len(state.record)
            human.views[0] = declared_view(prog, state, 0)
        prog.apply(state, rng.randrange(node.count))
    with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False, encoding="utf-8") as f:
        f.write('<!doctype html><html><body style="margin:0">'
                + console.export_svg(title=f"mercator play rulebooks/{name}.rules")
                + "</body></html>")
        svg = f.name
    try:
        browser.driver.get(Path(svg).as_uri())
        path = out / f"terminal_{name}.png"
        d = browser.driver
        height = d.execute_script("return document.querySelector('svg').getBoundingClientRect()"
                                  ".height")
        d.set_window_size(1100, min(int(height) + 200, 4000))
        d.find_element("css selector", "svg").screenshot(str(path))     # the drawing alone
        print(f"{path.relative_to(ROOT)}: the terminal at '{until}'")
    finally:
        os.unlink(svg)


if __name__ == "__main__":
    sys.exit(main())
