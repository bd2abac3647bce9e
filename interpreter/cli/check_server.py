"""`mercator check --server`: a process that stays open and checks the changed files of every
later `mercator check FILE` of this user (issue 37: an editor runs that command on each change).

A new `mercator check` of an edited file spends most of its time before and around the check:
Python's start, importing the language, the checker and the compiler, lark's tables, compiling
the generated code into Python's. The server pays those once and keeps what the last checks
worked out, as `check --watch` does (the files' unchanged declarations parsed, Python's code of
the unchanged generated functions); the command (check.py) asks it for the outcome of each file
the per-user cache has no answer for, and prints that outcome as if it had checked the file
itself (the same lines, the same exit code), keeping it in the cache as it would. When no server
answers (none runs, it runs other code, it fails), the command checks the file itself.

Where: a Unix socket in the per-user cache directory (dsl/parse_cache.cache_dir: a directory of
this user's, mode 0700; the socket 0600), named by a digest of the code that checks and of
lark's version (check_cache: the digest the kept answers are keyed by), so a command only ever
asks a server running the same code as its own. Not on a system without Unix sockets, nor where
the socket's path would be longer than such a path may be (then every check runs in its own
process, as without a server).

The exchange: one JSON line each way per connection. The command sends {"cwd", "path", "env"}
(its current directory, the file as it was named, the environment variables that change a
check: MERCATOR_NATIVE); the server checks the file from that directory (so its diagnostics
name it as the command was given it) and answers {"outcome": ...} (check_cache.valid_outcome)
or {"error": why}. {"ping": true} is answered {"pong": pid}.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Any, Callable, Optional

from mercator.interpreter.cli import check_cache

IDLE_MINUTES = 30.0        # a server with no request for this long quits
CONNECT_TIMEOUT = 1.0      # seconds for the command to reach the server ...
ANSWER_TIMEOUT = 30.0      # ... and for the server to answer (then the command checks the file itself)
MAX_REQUEST = 1 << 16      # bytes of one request line
MAX_SOCKET_PATH = 100      # (Linux allows 107 bytes, macOS 103)
ENV = ("MERCATOR_NATIVE",)  # the environment variables a check reads


def socket_path(root: Optional[str]) -> Optional[str]:
    """The server's socket in the cache directory `root`, or None (no cache directory, no Unix
    sockets, or a path too long for one)."""
    import socket
    if root is None or not hasattr(socket, "AF_UNIX"):
        return None
    key = hashlib.sha256((check_cache.code_digest(check_cache.CODE) + " " +
                          check_cache.lark_digest()).encode()).hexdigest()[:16]
    path = os.path.join(root, f"server-{key}.sock")    # (no cache's prefix)
    return path if len(path.encode("utf-8", "surrogateescape")) <= MAX_SOCKET_PATH else None


def _env() -> dict[str, str]:
    return {k: os.environ.get(k, "") for k in ENV}


def _exchange(path: str, request: dict[str, Any]) -> Any:
    """Send one request to the socket at `path`; its answer (OSError, ValueError if none)."""
    import socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(CONNECT_TIMEOUT)
        s.connect(path)
        s.settimeout(ANSWER_TIMEOUT)
        s.sendall(json.dumps(request).encode("utf-8", "surrogatepass") + b"\n")
        chunks = []
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    return json.loads(b"".join(chunks).decode("utf-8", "surrogatepass"))


def ask(root: Optional[str], path: str) -> Optional[dict[str, Any]]:
    """The outcome of checking `path` (named as the command was given it, from the current
    directory) by the server of this code for the cache directory `root`; None when no server
    answers with one (the command then checks the file itself)."""
    sock = socket_path(root)
    if sock is None or not os.path.exists(sock):
        return None
    try:
        answer = _exchange(sock, {"cwd": os.getcwd(), "path": path, "env": _env()})
    except (OSError, ValueError):
        return None
    got = answer.get("outcome") if isinstance(answer, dict) else None
    return got if check_cache.valid_outcome(got) else None


def running(sock: str) -> Optional[int]:
    """The process id of the server answering at `sock`, or None."""
    try:
        answer = _exchange(sock, {"ping": True})
    except (OSError, ValueError):
        return None
    pid = answer.get("pong") if isinstance(answer, dict) else None
    return pid if isinstance(pid, int) else None


def serve(root: Optional[str], idle_minutes: float, check: Callable[[str], dict[str, Any]],
          say: Callable[[str], None]) -> int:
    """Serve checks until no request has come for `idle_minutes` (or until interrupted); 0, or
    2 with a message when there can be no server here. check(path): the outcome of checking
    path afresh from the current directory (check.py's `afresh`); say: a line for the log."""
    import socket
    sock = socket_path(root)
    if sock is None:
        why = "no private per-user cache directory" if root is None else \
            "this system has no Unix sockets" if not hasattr(socket, "AF_UNIX") else \
            f"the socket's path in {root} would be too long"
        say(f"error: a check server cannot run here: {why} (set MERCATOR_CACHE_DIR to a "
            "short private directory)")
        return 2
    pid = running(sock)
    if pid is not None:
        say(f"a check server for this version of Mercator is already running (process {pid}, "
            f"{sock})")
        return 0
    try:
        os.unlink(sock)                  # (one left by a server that was killed)
    except OSError:                      # (none; or not a file: bind says so below)
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)                # the socket: this user's only
    try:
        srv.bind(sock)
    except OSError as exc:
        srv.close()
        say(f"error: a check server cannot listen at {sock}: {exc.strerror or exc}")
        return 2
    finally:
        os.umask(old)
    mine = os.stat(sock).st_ino
    home = os.getcwd()
    import signal
    try:
        try:       # a terminated server takes its socket away too (as an interrupted one)
            signal.signal(signal.SIGTERM, _interrupted)
        except (ValueError, AttributeError):      # (not the main thread; no SIGTERM)
            pass
        srv.listen(16)
        srv.settimeout(idle_minutes * 60)
        say(f"check server ready (process {os.getpid()}, {sock}); `mercator check FILE` now "
            f"asks it; it quits after {idle_minutes:g} idle minutes (Ctrl-C stops it)")
        while True:
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                say(f"no check for {idle_minutes:g} minutes: the check server quits")
                return 0
            with conn:
                _answer(conn, check, say)
            os.chdir(home)
    except KeyboardInterrupt:
        return 0
    finally:
        srv.close()
        try:
            if os.stat(sock).st_ino == mine:
                os.unlink(sock)
        except OSError:
            pass


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _answer(conn: Any, check: Callable[[str], dict[str, Any]], say: Callable[[str], None]
            ) -> None:
    """Read one request from the connection and answer it (a request that cannot be read is
    answered with an error, or not at all: the command then checks the file itself)."""
    conn.settimeout(CONNECT_TIMEOUT * 10)
    try:
        data = b""
        while not data.endswith(b"\n") and len(data) <= MAX_REQUEST:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            data += chunk
        req = json.loads(data.decode("utf-8", "surrogatepass"))
    except (OSError, ValueError):
        return
    if isinstance(req, dict) and req.get("ping") is True:
        reply: dict[str, Any] = {"pong": os.getpid()}
    elif not (isinstance(req, dict) and isinstance(req.get("cwd"), str) and
              isinstance(req.get("path"), str) and isinstance(req.get("env"), dict)):
        reply = {"error": "not a request"}
    elif req["env"] != _env():
        reply = {"error": "the command's environment differs from the server's"}
        say(f"checked {os.path.join(req['cwd'], req['path'])}: not here ({reply['error']}: "
            f"{', '.join(ENV)}); the command checks it itself")
    else:
        started = time.perf_counter()
        try:
            os.chdir(req["cwd"])
            reply = {"outcome": check(req["path"])}
        except Exception as exc:  # noqa: BLE001 - the command then checks the file itself
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        took = (time.perf_counter() - started) * 1000
        say(f"checked {os.path.join(req['cwd'], req['path'])} in {took:.0f} ms" +
            (f" (failed: {reply['error']}; the command checks it itself)" if "error" in reply
             else ""))
    try:
        conn.sendall(json.dumps(reply).encode("utf-8", "surrogatepass") + b"\n")
    except OSError:
        pass


def log_line(text: str) -> None:
    """A line of the server's log (stderr), flushed at once (an editor may read it)."""
    print(f"mercator check --server: {text}", file=sys.stderr, flush=True)
