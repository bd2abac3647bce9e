"""`mercator check`'s answers kept between processes (issue 37: an editor checks the file it
shows on every change, so an unchanged file should be answered at once).

An entry is the outcome of checking one file (its diagnostics as printed, with and without
colour, and whether the game compiles), kept in the per-user cache directory
(dsl/parse_cache.cache_dir: $MERCATOR_CACHE_DIR, else $XDG_CACHE_HOME/mercator or
~/.cache/mercator). Its key is a digest of the path as given, the current directory, the file's
state (below) and the code that checks, compiles and prints (every module of dsl/ and of
interpreter/compiler, engine, tools and cli, lark's version, Python's version): the code, not only
the version number, which stays the same between commits. An entry also lists every file the
check looked at (the file, what it `use`s, a variant's base, files it could not read) with the
state it was in, and it is used only when each is in that state again. A file's state is its
kind, its real path and a digest of its bytes (for a regular file), or why it could not be
read: two states are equal exactly when the loader would find the same. An entry is written
only when every file was in the same state before and after the loader's answers were checked
again, so a file edited while it was checked is checked afresh next time.

Entries are JSON, read only from regular files of this user's in that private directory; one
that cannot be read or does not have the expected shape is ignored (the file is checked), and
one that cannot be written is skipped: the cache can make `check` faster, never wrong. At most
KEEP answers are kept (a few kilobytes each; the least recently written go first).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import sys
from typing import Any, Callable, Optional

from mercator.dsl.parse_cache import cache_dir, lark_digest, write_entry  # noqa: F401

PREFIX = "check-"
KEEP = 1024                # answers kept: a project's every file, checked one by one
CODE = ("dsl", "compiler", "engine", "tools", "cli")     # the code whose answers are kept


def state_of(path: str) -> list[Any]:
    """What the file at `path` is: ["file", real path, sha256 of its bytes] for a regular
    file; otherwise why it is not one, or could not be read. Only a regular file is opened."""
    try:
        st = os.stat(path)
    except ValueError:                  # a NUL character
        return ["invalid"]
    except OSError as exc:
        return ["missing", exc.errno, os.path.lexists(path)]
    real = os.path.realpath(path)
    if not stat.S_ISREG(st.st_mode):
        return ["other", stat.S_IFMT(st.st_mode), real]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return ["unreadable", exc.errno, real]
    return ["file", real, hashlib.sha256(data).hexdigest()]


@functools.lru_cache(maxsize=None)
def code_digest(folders: tuple[str, ...]) -> str:
    """A digest of Python's version and of every module in these folders of Mercator: "dsl",
    or a folder of interpreter/ ("compiler", "engine", "cli", ...)."""
    h = hashlib.sha256(sys.version.encode())
    interpreter = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in folders:
        folder = os.path.join(os.path.dirname(interpreter), "dsl") if name == "dsl" else \
            os.path.join(interpreter, name)
        for file in sorted(os.listdir(folder)):
            if file.endswith((".py", ".lark")):
                with open(os.path.join(folder, file), "rb") as f:
                    h.update(file.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def _entry(root: str, path: str, cwd: str, state: list[Any]) -> str:
    key = json.dumps(["check", code_digest(CODE), lark_digest(), cwd, path, state])
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(root, f"{PREFIX}{digest[:32]}.json")


def get(root: Optional[str], path: str) -> Optional[dict[str, Any]]:
    """The outcome kept for checking `path` when every file that check looked at is as it
    was; else None."""
    if root is None:
        return None
    try:
        cwd = os.getcwd()
        where = _entry(root, path, cwd, state_of(path))
        st = os.lstat(where)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return None
        with open(where, encoding="utf-8") as f:
            entry = json.load(f)
        if not (isinstance(entry, dict) and entry.get("path") == path and
                entry.get("cwd") == cwd and isinstance(entry.get("files"), list) and
                valid_outcome(entry.get("outcome"))):
            return None
        for file in entry["files"]:
            if not (isinstance(file, list) and len(file) == 2 and isinstance(file[0], str)
                    and state_of(file[0]) == file[1]):
                return None
        return entry["outcome"]
    except Exception:  # noqa: BLE001 - an entry that cannot be used is only slower
        return None


def put(root: Optional[str], path: str, looked_at: list[str], same_again: Callable[[], bool],
        outcome: dict[str, Any]) -> None:
    """Keep the outcome of checking `path`, which looked at the files `looked_at`, when each
    is in the same state before and after `same_again()` says the loader would find the same
    in them again."""
    if root is None:
        return
    try:
        cwd = os.getcwd()
        files = sorted(set(looked_at) | {path})
        before = [state_of(p) for p in files]
        if not same_again() or [state_of(p) for p in files] != before:
            return
        entry = {"path": path, "cwd": cwd, "files": [list(f) for f in zip(files, before)],
                 "outcome": outcome}
        data = json.dumps(entry).encode("utf-8", "surrogatepass")
        write_entry(root, _entry(root, path, cwd, before[files.index(path)]), PREFIX, data,
                    KEEP)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
        return


def valid_outcome(o: Any) -> bool:
    """Is `o` an outcome as check.py makes them: {"diags": [[severity, text, text in colour],
    ...], "game": bool, "compile": None or [text, text in colour]}?"""
    def texts(x: Any, n: int) -> bool:
        return isinstance(x, list) and len(x) == n and all(isinstance(t, str) for t in x)
    return isinstance(o, dict) and isinstance(o.get("game"), bool) and \
        isinstance(o.get("diags"), list) and all(texts(d, 3) for d in o["diags"]) and \
        (o.get("compile") is None or texts(o["compile"], 2))
