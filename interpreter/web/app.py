"""The web application of `mercator serve`: pages, JSON views and moves over one game session.

Routes (TOKEN is a seat's secret; without a valid one a request gets the spectator's view):

  GET  /                          the spectator's page          GET /view.json, /poll likewise
  GET  /play/TOKEN                the seat's page (?step=K: the timeline's step K)
  GET  /play/TOKEN/view.json      the seat's view as JSON
  GET  /play/TOKEN/poll           {"digest": ...} of the seat's view (the page reloads on change)
  POST /play/TOKEN/move           option=INDEX (a form, or JSON {"option": INDEX or LABEL})
  POST /play/TOKEN/undo           take back the seat's last move (see tools/session.py)

With two or more human seats there is also one shared screen for them all (hot-seat), by its
own secret TABLE token:

  GET  /table/TABLE               the page of the human to decide, once they said it is them;
                                  until then a handover screen that shows nothing of anyone's
  POST /table/TABLE/confirm       seat=N: "I am PN" (only the seat to decide may confirm)
  POST /table/TABLE/move, /undo   as the seat's own links, for the seat holding the screen
  GET  /table/TABLE/poll          the digest of what the screen shows

Every refusal is a 4xx page (or JSON, for a JSON request) with a message and a hint, never a
traceback. A lock serialises the requests: the session is not thread-safe. Before any route,
guard.py checks the Host, a POST's Origin and the body's size, and adds the security headers.
"""
from __future__ import annotations

import hmac
import json
import os
import re
import secrets
import sys
import threading
from urllib.parse import parse_qs
from typing import Any, Callable, Optional

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mercator.interpreter.tools.session import GameSession, RuleFailure, SessionError
from mercator.interpreter.web.guard import MAX_BODY_BYTES, Guard, HostRule, policy
from mercator.interpreter.engine.view_summary import mark_key
from mercator.interpreter.web.boards import grid_svg
from mercator.interpreter.web.cards import hand_svg, pile_svg
from mercator.interpreter.web.render import graph_svg, is_hidden, label, lane_svg, show
from mercator.dsl.errors import MercatorError

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
MANY_OPTIONS = 40          # more values than this are offered in a list box, not as buttons
MAX_FORM_BYTES = MAX_BODY_BYTES


def _same(a: str, b: str) -> bool:
    """Are two secrets (tokens, digests) equal? In constant time, whatever text they hold
    (hmac.compare_digest refuses str with characters outside ASCII)."""
    return hmac.compare_digest(a.encode("utf-8", "surrogatepass"),
                               b.encode("utf-8", "surrogatepass"))


def _text(s: str) -> str:
    """`s` as text that can be sent (a lone surrogate from a request becomes U+FFFD)."""
    return s.encode("utf-8", "replace").decode("utf-8", "replace") if s else s


def _is_text(data: Any) -> bool:
    """Does a value read from JSON hold only encodable text (no lone surrogates)?"""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(data, dict):
        return all(_is_text(k) and _is_text(v) for k, v in data.items())
    if isinstance(data, list):
        return all(_is_text(v) for v in data)
    return True


class SeatLinks:
    """A random secret token per seat that joins by link; looks a token up in constant time."""

    def __init__(self, seats: list[int], tokens: Optional[dict[int, str]] = None,
                 table: bool = False):
        self.tokens = dict(tokens) if tokens else {s: secrets.token_urlsafe(18) for s in seats}
        # the shared screen of a hot-seat game (several humans at one browser)
        self.table: Optional[str] = secrets.token_urlsafe(18) if table else None

    def is_table(self, token: str) -> bool:
        """Is this the shared screen's token?"""
        return self.table is not None and _same(self.table, token)

    def table_path(self) -> str:
        """The shared screen's secret path."""
        assert self.table is not None
        return f"/table/{self.table}"

    def seat_of(self, token: str) -> Optional[int]:
        """The seat this token belongs to, or None."""
        found = None
        for seat, t in self.tokens.items():
            if _same(t, token):
                found = seat
        return found

    def path(self, seat: int) -> str:
        """The secret link's path for a seat."""
        return f"/play/{self.tokens[seat]}"


class Refusal(MercatorError):
    """A request refused with an HTTP status, a message and a hint."""

    def __init__(self, status: int, message: str, hint: str = ""):
        super().__init__(message)
        self.status, self.message, self.hint = status, message, hint


def _wants_json(request: Request) -> bool:
    return request.url.path.endswith(".json") or request.url.path.endswith("/poll") or \
        "application/json" in request.headers.get("content-type", "") or \
        request.headers.get("accept", "").startswith("application/json")


def make_app(session: GameSession, links: SeatLinks, title: str = "",
             hosts: Optional[HostRule] = None) -> Guard:
    """The application serving `session` to the seats holding `links`' tokens, behind the
    guard (guard.py); `hosts`: the names it answers to (None: any, for tests in process)."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
    env.filters["show"] = show
    env.filters["label"] = label
    env.filters["grid"] = grid_svg
    env.filters["graph"] = graph_svg
    env.filters["lane"] = lane_svg
    env.filters["hand"] = hand_svg
    env.filters["pile"] = pile_svg
    env.tests["hidden"] = is_hidden
    env.globals["mark_key"] = mark_key
    lock = threading.Lock()
    game = title or session.program.name

    def step_of(request: Request) -> Optional[int]:
        raw = request.query_params.get("step")
        if raw is None or raw == "":
            return None
        try:
            return int(raw)
        except ValueError:
            raise Refusal(400, f"step '{raw[:20]}' is not a whole number",
                          "use ?step=K with K from the timeline") from None

    def view(seat: Optional[int], step: Optional[int]) -> dict[str, Any]:
        try:
            with lock:
                return session.view(seat, step)
        except SessionError as exc:
            raise Refusal(exc.status, exc.message, exc.hint) from None

    def page(request: Request, seat: Optional[int], base: str, status: int = 200,
             banner: str = "", banner_hint: str = "") -> Response:
        v = view(seat, step_of(request))
        # the seats whose bots search (a second or more a move): after a person's move the
        # page says it waits for them, since they move before the answer comes back
        searchers = [f"P{i + 1} ({k})" for i, k in enumerate(session.seats)
                     if k.split(":")[0] in ("mcts", "ismcts")]
        return html_page("page.html", status, v=v, base=base, seat=seat, many=MANY_OPTIONS,
                         banner=banner, banner_hint=banner_hint, kinds=session.seats,
                         searchers=searchers, me=None if seat is None else f"P{seat + 1}")

    def html_page(template: str, code: int = 200, **context: Any) -> Response:
        """A template as an HTML answer (its inline style and scripts are the ones the
        Content-Security-Policy allows by their hashes: guard.py)."""
        html = env.get_template(template).render(game=game, **context)
        return HTMLResponse(html, status_code=code, headers={"Cache-Control": "no-store"})

    def seat_or_refuse(request: Request) -> int:
        seat = links.seat_of(request.path_params["token"])
        if seat is None:
            raise Refusal(403, "this link is not a seat of this game (a wrong or old token)",
                          "open the link printed by 'mercator serve' for your seat; "
                          "without one you can only watch")
        return seat

    def spectator(request: Request) -> Response:
        return page(request, None, "")

    def no_token(request: Request) -> Response:
        return page(request, None, "", 403, "this link names no seat: you are watching",
                    "open the link printed by 'mercator serve' for your seat")

    def seat_page(request: Request) -> Response:
        seat = links.seat_of(request.path_params["token"])
        if seat is None:      # the spectator's view only, with the reason
            return page(request, None, "", 403,
                        "this link is not a seat of this game (a wrong or old token): you are "
                        "watching", "open the link printed by 'mercator serve' for your seat")
        return page(request, seat, links.path(seat))

    def spectator_json(request: Request) -> Response:
        return JSONResponse(view(None, step_of(request)))

    def seat_json(request: Request) -> Response:
        seat = links.seat_of(request.path_params["token"])
        if seat is None:
            return JSONResponse({"error": "this link is not a seat of this game",
                                 "hint": "use the link printed by 'mercator serve' for your seat",
                                 "view": view(None, step_of(request))}, status_code=403)
        return JSONResponse(view(seat, step_of(request)))

    def poll(request: Request) -> Response:
        token = request.path_params.get("token")
        seat = None if token is None else links.seat_of(token)
        return JSONResponse({"digest": view(seat, None)["digest"]},
                            headers={"Cache-Control": "no-store"})

    async def form_of(request: Request) -> dict[str, Any]:
        body = await request.body()        # the guard has read at most MAX_BODY_BYTES
        if len(body) > MAX_FORM_BYTES:
            raise Refusal(413, "the request is too large", "send one option")
        if "application/json" in request.headers.get("content-type", ""):
            try:        # a number of more than 4300 digits is a ValueError too
                data = json.loads(body or b"{}")
            except (ValueError, RecursionError):
                raise Refusal(400, "the request body is not JSON",
                              'send {"option": INDEX} or {"option": "LABEL"}') from None
            if not isinstance(data, dict):
                raise Refusal(400, "the request body is not a JSON object",
                              'send {"option": INDEX} or {"option": "LABEL"}')
            if not _is_text(data):
                raise Refusal(400, "the request body holds text that is not Unicode (a lone "
                              "surrogate)", 'send {"option": INDEX} or {"option": "LABEL"}')
            return data
        try:        # an HTML form (application/x-www-form-urlencoded): one value per name
            fields = parse_qs(body.decode("utf-8"), max_num_fields=16)
        except (UnicodeDecodeError, ValueError):
            raise Refusal(400, "the form could not be read", "send option=INDEX") from None
        return {k: v[-1] for k, v in fields.items()}

    def act(request: Request, seat: int, what: Callable[[], Any],
            back: Optional[str] = None) -> Response:
        try:
            with lock:
                what()
        except RuleFailure as exc:       # the rulebook's fault: its designer reads the terminal
            print(f"mercator serve: {exc.message}\n  {exc.hint}", file=sys.stderr, flush=True)
            raise Refusal(exc.status, exc.message, exc.hint) from None
        except SessionError as exc:
            raise Refusal(exc.status, exc.message, exc.hint) from None
        if _wants_json(request):
            return JSONResponse(view(seat, None) if back is None else {"ok": True})
        return RedirectResponse(back or links.path(seat), status_code=303)

    # ------------------------------------------------------------ the shared screen
    holder: dict[str, Optional[int]] = {"seat": None}   # who said "I am PN" at the table

    def table_or_refuse(request: Request) -> str:
        if not links.is_table(request.path_params["token"]):
            raise Refusal(403, "this link is not this game's shared screen (a wrong or old "
                          "token)", "open the shared-screen link printed by 'mercator serve'")
        return links.table_path()

    def table_state() -> tuple[Optional[int], Optional[int]]:
        """(the human seat to decide now, or None; the seat holding the screen)"""
        with lock:
            seat = session.to_decide()
            if seat is not None and (session.replaying or not session.human(seat)):
                seat = None
            return seat, holder["seat"]

    def handover_digest(seat: int) -> str:
        with lock:
            return f"handover-{seat}-{len(session.steps)}"

    def table_page(request: Request) -> Response:
        if not links.is_table(request.path_params["token"]):
            return page(request, None, "", 403, "this link is not this game's shared screen: "
                        "you are watching", "open the shared-screen link printed by "
                        "'mercator serve'")
        base = links.table_path()
        seat, held = table_state()
        if seat is None:            # the game is over (or waits on no person): everyone's view
            return page(request, None, base)
        if seat != held:            # hide the last seat's view until the next one is there
            return html_page("handover.html", base=base, seat=seat,
                             digest=handover_digest(seat))
        return page(request, seat, base)

    async def table_confirm(request: Request) -> Response:
        base = table_or_refuse(request)
        data = await form_of(request)
        raw = str(data.get("seat", ""))
        seat, _ = table_state()     # ASCII digits only: int() would read '²' as a digit, fail
        if not re.fullmatch(r"[0-9]{1,6}", raw) or seat is None or int(raw) != seat:
            raise Refusal(409, "that seat is not the one to decide now",
                          "the screen names the player to decide: only they may take it")
        with lock:
            holder["seat"] = seat
        return RedirectResponse(base, status_code=303)

    def held_or_refuse(request: Request) -> int:
        table_or_refuse(request)
        seat, held = table_state()
        if held is None or seat != held:
            raise Refusal(409, "nobody has taken the shared screen for this decision",
                          "the player to decide confirms on the screen first")
        return held

    async def table_move(request: Request) -> Response:
        seat = held_or_refuse(request)
        data = await form_of(request)
        choice = data.get("option")
        if choice is None or isinstance(choice, (bool, list, dict, float)):
            raise Refusal(400, "no option chosen", 'send option=INDEX (or JSON {"option": ...})')
        seen = data.get("digest")

        def checked_move() -> None:
            if isinstance(seen, str) and seen and \
                    not _same(seen, session.view(seat, None)["digest"]):
                raise SessionError("the game has moved on since this page was shown",
                                   "look at the new position and choose again", status=409)
            session.move(seat, choice)
        return await run_in_threadpool(act, request, seat, checked_move, links.table_path())

    async def table_undo(request: Request) -> Response:
        seat = held_or_refuse(request)
        return await run_in_threadpool(act, request, seat, lambda: session.undo(seat),
                                       links.table_path())

    def table_poll(request: Request) -> Response:
        table_or_refuse(request)
        seat, held = table_state()
        digest = view(None, None)["digest"] if seat is None else \
            handover_digest(seat) if seat != held else view(seat, None)["digest"]
        return JSONResponse({"digest": digest}, headers={"Cache-Control": "no-store"})

    async def move(request: Request) -> Response:
        seat = seat_or_refuse(request)
        data = await form_of(request)
        choice = data.get("option")
        if choice is None or isinstance(choice, (bool, list, dict, float)):
            raise Refusal(400, "no option chosen", 'send option=INDEX (or JSON {"option": ...})')
        seen = data.get("digest")

        def checked_move() -> None:      # under the lock: nothing moves in between
            if isinstance(seen, str) and seen and \
                    not _same(seen, session.view(seat, None)["digest"]):
                raise SessionError("the game has moved on since this page was shown",
                                   "look at the new position and choose again", status=409)
            session.move(seat, choice)
        return await run_in_threadpool(act, request, seat, checked_move)

    async def undo(request: Request) -> Response:
        seat = seat_or_refuse(request)
        return await run_in_threadpool(act, request, seat, lambda: session.undo(seat))

    def refused(request: Request, status: int, message: str, hint: str) -> Response:
        message, hint = _text(message), _text(hint)
        if _wants_json(request):
            return JSONResponse({"error": message, "hint": hint}, status_code=status)
        return html_page("error.html", status, status=status, message=message, hint=hint)

    async def on_refusal(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refusal)
        return refused(request, exc.status, exc.message, exc.hint)

    async def on_http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        hints = {404: "the pages are / (watch) and the seat links printed by 'mercator serve'",
                 405: "moves are sent with POST from the game's page"}
        return refused(request, exc.status_code, str(exc.detail), hints.get(exc.status_code, ""))

    async def on_error(request: Request, exc: Exception) -> Response:
        return refused(request, 500, "internal error in Mercator (a bug, not your move)",
                       "the server's terminal shows the details; the game is unchanged")

    routes = [
        Route("/", spectator), Route("/view.json", spectator_json), Route("/poll", poll),
        Route("/play", no_token), Route("/play/", no_token),
        Route("/play/{token}", seat_page), Route("/play/{token}/view.json", seat_json),
        Route("/play/{token}/poll", poll),
        Route("/play/{token}/move", move, methods=["POST"]),
        Route("/play/{token}/undo", undo, methods=["POST"]),
        Route("/table/{token}", table_page), Route("/table/{token}/poll", table_poll),
        Route("/table/{token}/confirm", table_confirm, methods=["POST"]),
        Route("/table/{token}/move", table_move, methods=["POST"]),
        Route("/table/{token}/undo", table_undo, methods=["POST"]),
    ]
    app = Starlette(routes=routes, exception_handlers={
        Refusal: on_refusal, HTTPException: on_http, Exception: on_error})
    return Guard(app, lambda scope, status, message, hint:
                 refused(Request(scope), status, message, hint), hosts, policy(TEMPLATES))
