"""`mercator check --server` (interpreter/cli/check_server.py, issue 37): a kept process that
checks the changed files of later `mercator check FILE` commands. A served check prints what
the command would have printed checking the file itself (the same lines, the same exit code,
the file named as it was given), for a game, a broken edit, a library's edit, a relative path
from another directory; a command the server cannot serve (another environment, a server gone,
a socket left behind, a request it cannot read) checks the file itself; and the server's own
command line: one at a time, its flags alone, quitting when idle or terminated, its socket
removed."""
from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
TINY = (ROOT / "tests" / "fixtures" / "tiny.rules").read_text(encoding="utf-8")
pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets")


class Server:
    """A `mercator check --server` child, ready once made, and the lines of its log."""

    def __init__(self, cwd: Path, env: dict[str, str], *flags: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "mercator.interpreter.cli", "check",
                                      "--server", *flags], cwd=cwd, env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.proc.stderr or ()],
                         daemon=True).start()
        assert "check server ready" in self.line()

    def line(self) -> str:
        return self.lines.get(timeout=60)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        return self.proc.wait(timeout=30)


@pytest.fixture
def place() -> Iterator[tuple[Path, dict[str, str]]]:
    """A folder with g.rules (tiny, using lib.rules) and a private cache with a short path (a
    Unix socket's path is limited to about a hundred bytes)."""
    top = Path(tempfile.mkdtemp(prefix="mcs-", dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        (top / "g.rules").write_text('use "lib.rules"\n' + TINY, encoding="utf-8")
        (top / "lib.rules").write_text("const extra = 1\n", encoding="utf-8")
        env = {**os.environ, "MERCATOR_CACHE_DIR": str(top / "c")}
        env.pop("MERCATOR_NATIVE", None)
        yield top, env
    finally:
        shutil.rmtree(top, ignore_errors=True)


def check(cwd: Path, env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "mercator.interpreter.cli", "check", *argv],
                       cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def served(server: Server, path: str) -> str:
    """The server's log line for the next check it served (fails if it serves none)."""
    got = server.line()
    assert got.startswith("mercator check --server: checked ") and path in got, got
    return got


def test_a_served_check_prints_what_checking_the_file_itself_prints(
        place: tuple[Path, dict[str, str]]) -> None:
    top, env = place
    server = Server(top, env)
    try:
        edits = ["", "\n# a comment\n", "\nconst broken = nowhere\n", "\nconst fine = 2\n"]
        text = (top / "g.rules").read_text(encoding="utf-8")
        for k, edit in enumerate(edits):
            (top / "g.rules").write_text(text + edit, encoding="utf-8")
            got = check(top, env, "g.rules")
            served(server, "g.rules")
            alone = check(top, env, "--no-cache", "g.rules")
            assert got == alone, (k, got, alone)
            assert got[0] == (1 if "broken" in edit else 0)
            if "broken" in edit:
                assert "g.rules:" in got[2] and "error[E100]" in got[2], got
        # the answer was kept in the per-user cache: the same file again is not served
        assert check(top, env, "g.rules") == alone
        # a library's edit, and a path named from another directory
        (top / "lib.rules").write_text("const extra = nowhere\n", encoding="utf-8")
        (top / "sub").mkdir()
        got = check(top / "sub", env, "../g.rules")
        served(server, "../g.rules")
        assert got == check(top / "sub", env, "--no-cache", "../g.rules")
        assert got[0] == 1 and "../lib.rules:1:15: error[E100]" in got[2], got
    finally:
        assert server.stop() == 0
    assert not list((top / "c").glob("*.sock"))      # (terminated: its socket taken away)


def test_what_the_server_cannot_serve_the_command_checks_itself(
        place: tuple[Path, dict[str, str]]) -> None:
    top, env = place
    server = Server(top, env)
    try:
        sock = next((top / "c").glob("server-*.sock"))
        # a request it cannot read: answered with an error (or not at all), the server goes on
        for junk in (b"not json\n", b'{"cwd": 1}\n', b"\n"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(str(sock))
                s.sendall(junk)
                s.shutdown(socket.SHUT_WR)
                assert b"pong" not in s.recv(1000)
        # a command whose environment changes a check: not served, checked by the command
        other = {**env, "MERCATOR_NATIVE": "0"}
        got = check(top, other, "g.rules")
        assert "the command's environment differs" in served(server, "g.rules")
        assert got == check(top, env, "--no-cache", "g.rules") and got[0] == 0
        # then served again as usual
        (top / "g.rules").write_text((top / "g.rules").read_text() + "\n# more\n")
        got = check(top, env, "g.rules")
        assert "failed" not in served(server, "g.rules")
        assert got[0] == 0 and got[1] == "g.rules: OK\n"
    finally:
        assert server.stop() == 0
    # a socket left behind with nobody answering it: the command checks the file itself
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(sock))
    left.close()
    assert sock.exists()
    (top / "g.rules").write_text((top / "g.rules").read_text() + "\n# again\n")
    assert check(top, env, "g.rules") == (0, "g.rules: OK\n", "")
    # ... and a new server takes its place
    assert Server(top, env).stop() == 0


def test_one_server_at_a_time_and_its_flags_alone(place: tuple[Path, dict[str, str]]) -> None:
    top, env = place
    server = Server(top, env)
    try:
        code, _, err = check(top, env, "--server")
        assert code == 0 and "already running (process " in err, err
    finally:
        assert server.stop() == 0
    for argv, says in [(["--server", "g.rules"], "--server takes no PATH"),
                       (["--server", "--watch"], "--server takes no --watch"),
                       (["--server", "--no-cache"], "--server takes no --no-cache"),
                       (["--idle", "5", "g.rules"], "--idle goes with --server"),
                       (["--server", "--idle", "0"], "more than 0 minutes"),
                       (["--server", "--idle", "soon"], "a number of minutes"),
                       ([], "check needs at least one PATH")]:
        code, out, err = check(top, env, *argv)
        assert code == 2 and says in err and "Traceback" not in err, (argv, err)


def test_an_idle_server_quits_and_takes_its_socket_away(
        place: tuple[Path, dict[str, str]]) -> None:
    top, env = place
    server = Server(top, env, "--idle", "0.02")          # 1.2 seconds
    started = time.monotonic()
    assert "quits" in server.line()
    assert server.proc.wait(timeout=60) == 0 and time.monotonic() - started < 50
    assert not list((top / "c").glob("*.sock"))


def test_no_server_where_the_socket_path_would_be_too_long(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    (deep / "g.rules").write_text(TINY, encoding="utf-8")
    env = {**os.environ, "MERCATOR_CACHE_DIR": str(deep / "c")}
    code, _, err = check(deep, env, "--server")
    assert code == 2 and "the socket's path" in err and "MERCATOR_CACHE_DIR" in err, err
    assert check(deep, env, "g.rules") == (0, "g.rules: OK\n", "")


def test_a_socket_path_that_cannot_be_had_is_a_message(place: tuple[Path, dict[str, str]]
                                                        ) -> None:
    """Where the socket should be there is a folder: the server says it cannot listen there
    (exit 2, no traceback), and the command checks files itself."""
    top, env = place
    from mercator.interpreter.cli import check_server
    os.makedirs(top / "c", mode=0o700, exist_ok=True)
    code = ("import os, sys\nfrom mercator.interpreter.cli import check_cache, check_server\n"
            "print(check_server.socket_path(check_cache.cache_dir()))\n")
    sock = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True).stdout.strip()
    assert sock.startswith(str(top / "c")) and check_server.MAX_SOCKET_PATH >= len(sock)
    os.makedirs(sock)
    code, _, err = check(top, env, "--server")
    assert code == 2 and "cannot listen at" in err and "Traceback" not in err, err
    assert check(top, env, "g.rules") == (0, "g.rules: OK\n", "")


def test_an_interrupted_server_exits_0() -> None:
    """Ctrl-C (SIGINT, as at a terminal) stops it cleanly too."""
    top = Path(tempfile.mkdtemp(prefix="mcs-", dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        env = {**os.environ, "MERCATOR_CACHE_DIR": str(top / "c")}
        code = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
                "from mercator.interpreter.cli.entry import main\n"
                "sys.exit(main(['check', '--server']))\n")
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=top, env=env,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None and "ready" in proc.stderr.readline()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert not list((top / "c").glob("*.sock"))
    finally:
        shutil.rmtree(top, ignore_errors=True)
