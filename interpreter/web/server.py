"""Running the web application: bind the socket first (so a port in use is a clear error, and
port 0 picks a free one), then serve it with uvicorn until stopped."""
from __future__ import annotations

import socket
import threading
from typing import Any, Optional

import uvicorn
from mercator.dsl.errors import MercatorError


class BindError(MercatorError):
    """The server cannot listen where asked; the message says why, the hint what to do."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one); BindError if that is impossible."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise BindError(f"cannot listen on host '{host}': {getattr(exc, 'strerror', None) or exc}",
                        "use --host 127.0.0.1 (this machine only, the default) or an address "
                        "of this machine") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:        # answers go out at once (accepted sockets inherit it), not 40 ms later
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    try:
        sock.bind(addr)
        sock.listen(64)
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        hint = ("choose another port with --port N, or --port 0 for any free one"
                if exc.errno in (98, 48, 10048) else
                "ports below 1024 need privileges: use --port 8000 or above"
                if exc.errno == 13 else "use --host 127.0.0.1 or an address of this machine")
        raise BindError(f"cannot listen on {host}:{port}: {why}", hint) from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """http://HOST:PORT/ of a bound socket (IPv6 addresses in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class Served:
    """An application served by uvicorn on a bound socket, in this thread or a background one."""

    def __init__(self, app: Any, sock: socket.socket):
        self.sock = sock
        self.url = url_of(sock)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread: Optional[threading.Thread] = None

    def run(self) -> None:
        """Serve until interrupted (Ctrl-C) or stop()."""
        self.server.run(sockets=[self.sock])

    def start(self) -> "Served":
        """Serve in a background thread (for tests and scripts); returns once it is listening."""
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            threading.Event().wait(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)
        self.sock.close()
