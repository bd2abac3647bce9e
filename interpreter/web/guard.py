"""What every request to `mercator serve` passes before the application sees it, and what every
answer carries (docs/web.md, "Security model"):

- the Host header names this server (HostRule): a page of another site whose name was made to
  point at this machine (DNS rebinding) is refused, so it cannot read the spectator's view;
- a POST sent by a page of another site is refused: its Sec-Fetch-Site is not `same-origin`,
  or (a client that does not send Sec-Fetch-Site) its Origin is not this server's. Under
  Referrer-Policy no-referrer a browser sends `Origin: null` with the page's own forms, so
  `null` passes only with Sec-Fetch-Site `same-origin`;
- a request body is read up to MAX_BODY_BYTES and no further (413), whether its length is
  declared (Content-Length) or not (chunked);
- every answer forbids framing, sniffing, referrers, and any script or style but the inline
  ones of the templates, allowed by their SHA-256 hashes (`policy`): they never change from
  one answer to the next (no nonce), so a seat's page stays byte for byte the same while its
  view does.
"""
from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import re
from typing import Any, Awaitable, Callable, Optional, Sequence

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")
MAX_BODY_BYTES = 64 * 1024
POLICY = "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Refuse = Callable[[Scope, int, str, str], Any]    # (scope, status, message, hint) -> a Response


def inline_hashes(html: str, tag: str) -> list[str]:
    """The CSP source expressions ('sha256-…') of every inline <tag>…</tag> of `html`."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.DOTALL)
    return [f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
            for s in found]


def policy(templates: str) -> str:
    """The Content-Security-Policy of every answer: the inline scripts and styles of the
    templates in folder `templates` (written without a Jinja expression inside, so their
    hashes are known before any page is made), polls of this server and forms posted to it;
    nothing else, and no framing."""
    scripts: list[str] = []
    styles: list[str] = []
    for name in sorted(os.listdir(templates)):
        if name.endswith(".html"):
            with open(os.path.join(templates, name), encoding="utf-8") as f:
                text = f.read()
            scripts += [h for h in inline_hashes(text, "script") if h not in scripts]
            styles += [h for h in inline_hashes(text, "style") if h not in styles]
    none = "'none'"
    return (f"default-src 'none'; script-src {' '.join(scripts) or none}; "
            f"style-src {' '.join(styles) or none}; img-src 'self' data:; connect-src 'self'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def host_name(header: str) -> str:
    """The name in a Host header, without its port or an IPv6 address's brackets, lower case."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    if h.count(":") == 1:
        h = h.split(":")[0]
    return h.rstrip(".")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostRule:
    """The names a request's Host header may give: the local names, the address the server is
    bound to, the names allowed by --allow-host, and, when it listens on every interface
    (0.0.0.0 or ::), any IP address (a DNS rebinding attack needs a name, never an address)."""

    def __init__(self, bound: str, allowed: Sequence[str] = ()):
        self.bound = bound
        self.names = {host_name(n) for n in (*LOCAL_NAMES, bound, *allowed) if n}
        self.any_address = bound.strip("[]") in WILDCARDS

    def allows(self, header: Optional[str]) -> bool:
        """May a request with this Host header (None: none) be answered?"""
        if not header:
            return False
        name = host_name(header)
        return name in self.names or (self.any_address and _is_address(name))

    def shown(self) -> str:
        """The allowed names, for a refusal's message."""
        more = ", or any IP address of this machine" if self.any_address else ""
        return ", ".join(sorted(n for n in self.names if n not in WILDCARDS)) + more


def _header(scope: Scope, name: bytes) -> Optional[str]:
    for k, v in scope.get("headers", []):
        if k == name:
            return v.decode("latin-1")
    return None


class Guard:
    """ASGI middleware around the application: the checks of the module docstring, refusals
    made by `refuse` (the application's own 4xx pages), the security headers on every answer."""

    def __init__(self, app: Any, refuse: Refuse, hosts: Optional[HostRule] = None,
                 csp: str = POLICY, max_body: int = MAX_BODY_BYTES):
        self.app, self.refuse, self.hosts, self.max_body = app, refuse, hosts, max_body
        self.headers = [(b"content-security-policy", csp.encode()), *SECURITY_HEADERS]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._with_headers(send)
        why = self._refusal(scope)
        if why is not None:
            await self.refuse(scope, *why)(scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        body = await self._body(scope, receive)
        if body is None:            # the client went away while sending
            return
        if isinstance(body, tuple):
            response = self.refuse(scope, *body)
            response.headers["connection"] = "close"   # the rest of the body is never read
            await response(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)

    def _refusal(self, scope: Scope) -> Optional[tuple[int, str, str]]:
        """(status, message, hint) when the Host or Origin is wrong; None when both are fine."""
        host = _header(scope, b"host")
        if self.hosts is not None and not self.hosts.allows(host):
            return (400, f"this server does not answer to the name '{(host or '')[:100]}'",
                    f"open the link printed by 'mercator serve' (it answers to "
                    f"{self.hosts.shown()}); to reach it by another name, start it with "
                    "--allow-host NAME")
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return None
        origin = _header(scope, b"origin")
        site = _header(scope, b"sec-fetch-site")
        own = f"{scope.get('scheme', 'http')}://{host or ''}".lower()
        if site is not None:
            foreign = site.strip().lower() != "same-origin"
        else:
            foreign = origin is not None and origin.strip().lower() != own
        if foreign:
            return (403, f"a page of another site ({(origin or site or '')[:100]}) may not "
                    "move or undo here", "make your moves on the game's own page")
        return None

    async def _body(self, scope: Scope, receive: Receive) -> Any:
        """The request body (bytes), (413, message, hint) once it is longer than the limit, or
        None if the client disconnected."""
        too_large = (413, f"the request is too large (more than {self.max_body // 1024} KB)",
                     "send one option")
        declared = _header(scope, b"content-length")
        if declared is not None:
            if not declared.strip().isascii() or not declared.strip().isdigit():
                return (400, "the request's Content-Length is not a number",
                        "send the body's length in bytes")
            if len(declared.strip()) > 12 or int(declared) > self.max_body:
                return too_large
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _with_headers(self, send: Send) -> Send:
        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in have]
                message = {**message, "headers": headers}
            await send(message)
        return sending


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body read already, then what the client sends next."""
    done = False

    async def again() -> dict[str, Any]:
        nonlocal done
        if done:
            return await receive()
        done = True
        return {"type": "http.request", "body": body, "more_body": False}
    return again
