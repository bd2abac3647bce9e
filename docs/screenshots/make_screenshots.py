"""Make the screenshots of docs/web.md: one game of each of the four rulebooks in the browser.

Run from the repository root, with Debian's chromium and chromium-driver installed:

    .venv/bin/python docs/screenshots/make_screenshots.py

For each game it serves a new game (P1 human, the others random bots, a fixed seed), opens P1's
secret link in headless Chromium (tests/browser.py, the browser tests' own), plays some moves by
clicking the page's buttons (on to a decision with a few options), and saves the whole page as docs/screenshots/GAME.png.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

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
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
