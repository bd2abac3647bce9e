"""A headless Chromium for the browser tests and the screenshot script: Debian's `chromium` and
`chromium-driver` packages driven by Selenium, started and stopped by the caller.

Nothing is downloaded: the driver is the one at /usr/bin/chromedriver (or $MERCATOR_CHROMEDRIVER)
and the browser the one beside it (or $MERCATOR_CHROMIUM). `why_no_browser()` says why the tests
must skip and how to enable them.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Optional

import socket

from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.session import GameSession

CHROMIUM = os.environ.get("MERCATOR_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = os.environ.get("MERCATOR_CHROMEDRIVER") or shutil.which("chromedriver") or \
    "/usr/bin/chromedriver"
ENABLE = ("install Debian's browser and its driver (apt-get install -y chromium chromium-driver; "
          ".ci/run does) and the test extra (pip install -e '.[test]', which brings selenium)")


def why_no_browser() -> Optional[str]:
    """None when a browser test can run, else why not and how to enable it."""
    try:
        import selenium  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed: {ENABLE}"
    for path, what in ((CHROMIUM, "chromium"), (DRIVER, "chromedriver")):
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            return f"no {what} at {path}: {ENABLE}"
    return None


class Browser:
    """One headless Chromium with a fresh profile; `driver` is the Selenium WebDriver."""

    def __init__(self, width: int = 1280, height: int = 1000):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.profile = tempfile.mkdtemp(prefix="mercator-chromium-")
        opts = webdriver.ChromeOptions()
        opts.page_load_strategy = "eager"
        opts.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                     "--hide-scrollbars", f"--window-size={width},{height}",
                     f"--user-data-dir={self.profile}"):
            opts.add_argument(flag)
        self.driver: Any = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
        self.driver.set_page_load_timeout(20)

    def full_screenshot(self, path: str, width: int = 1280) -> None:
        """A PNG of the whole page (the window grown to the page's height first)."""
        height = self.driver.execute_script(
            "return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)")
        self.driver.set_window_size(width, min(max(int(height) + 40, 600), 4000))
        self.driver.save_screenshot(path)

    def close(self) -> None:
        """Quit the browser and remove its profile."""
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def free_socket() -> socket.socket:
    """A socket listening on a free port of 127.0.0.1."""
    from mercator.interpreter.web.server import bind
    return bind("127.0.0.1", 0)


def serve_session(session: GameSession, seats: Optional[list[int]] = None,
                  table: bool = False) -> tuple[Any, Any]:
    """Serve `session` in a background thread on a free local port; links for `seats` (default:
    the human seats, or every seat of a replay), and with `table` the shared screen's."""
    if seats is None:
        seats = list(range(session.players)) if session.replaying else \
            [i for i in range(session.players) if session.human(i)]
    from mercator.interpreter.web.app import SeatLinks, make_app
    from mercator.interpreter.web.server import Served
    links = SeatLinks(seats, table=table)
    served = Served(make_app(session, links), free_socket()).start()
    return served, links


def new_session(rulebook: str, players: int, seed: int, seats: list[str]) -> GameSession:
    """A fresh game of a rulebook."""
    res = load(rulebook)
    assert res.rulebook is not None, res.diagnostics
    return GameSession(compile_program(res.rulebook), players, seed, seats, rulebook, res.sources)


def choose_in_page(driver: Any, rng: Any) -> bool:
    """Pick a random option on the seat's page (not an any-time action when there is another
    choice) and wait for the next page; False when the page offers nothing to choose."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    old = page_digest(driver)
    buttons = driver.find_elements(By.CSS_SELECTOR, "#options button[data-label]:not(.action)")
    selects = driver.find_elements(By.ID, "option-select")
    if not buttons and not selects:
        buttons = driver.find_elements(By.CSS_SELECTOR, "#options button[data-label]")
    if not buttons and not selects:
        return False
    if selects and (not buttons or rng.random() < 0.7):
        box = Select(selects[0])
        box.select_by_index(rng.randrange(len(box.options)))
        driver.find_element(By.ID, "choose").click()
    else:
        rng.choice(buttons).click()
    wait_for_new_page(driver, old)
    return True


def page_digest(driver: Any) -> Optional[str]:
    """The digest of the view the page shows (None while a page is loading)."""
    from selenium.common.exceptions import WebDriverException
    try:
        return driver.execute_script("return document.readyState === 'loading' ? null : "
                                     "(document.body && document.body.dataset.digest) || null")
    except WebDriverException:
        return None


def wait_for_new_page(driver: Any, old: Optional[str], timeout: float = 10) -> str:
    """Wait until the browser shows a page of another view than `old`; its digest."""
    import time
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        now = page_digest(driver)
        if now is not None and now != old:
            return now
        time.sleep(0.01)
    raise TimeoutError(f"the page did not change within {timeout} s")
