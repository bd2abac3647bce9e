"""Parsed rulebooks kept between processes: the AST of a file that parsed without a diagnostic,
in the per-user cache directory the built parser is kept in (parser.cache_file), under a key of
the file's path and text and of the code that builds ASTs (the grammar, the modules of dsl/
that turn a parse into an AST, lark's version (its __init__.py) and Python's). Reading one back is faster than
parsing the text again and needs neither lark nor the parser (docs/performance.md, session
15's "Loading"); a rulebook's libraries and its variants' bases are read on every check.

Entries are pickles, read only from the private directory cache_dir checks (owned by this
user, not writable by others) and only from a regular file of this user's: the same trust
as lark's own cache of the parser, which is a pickle too. At most MAX_ENTRIES are kept (the
least recently written go first); any entry that cannot be read is ignored and written again.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import stat
import sys
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:             # (imported where needed: cache_dir and write_entry need no AST)
    from mercator.dsl import ast as A

MAX_ENTRIES = 64
_PREFIX = "ast-"
# the modules whose code decides what AST a text parses to
_BUILDERS = ("ast.py", "ast_builder.py", "parse_actions.py", "parser.py", "parse_chunks.py",
             "limits.py", "grammar.lark")


def cache_dir() -> Optional[str]:
    """The per-user cache directory: $MERCATOR_CACHE_DIR (empty: none), else
    $XDG_CACHE_HOME/mercator or ~/.cache/mercator; None when it is not a private directory of
    this user's (it is created with mode 0700; one owned by another user, a link, or one
    writable by others is not used)."""
    root = os.environ.get("MERCATOR_CACHE_DIR")
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "mercator")
    if not root or not os.path.isabs(root) or not hasattr(os, "getuid"):
        return None
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
        st = os.lstat(root)
        if st.st_uid != os.getuid() or stat.S_ISLNK(st.st_mode) or st.st_mode & 0o022:
            return None
    except OSError:
        return None
    return root


@functools.lru_cache(maxsize=1)
def lark_digest() -> str:
    """A digest of lark's __init__.py (it states lark's version), found without importing lark
    or importlib.metadata (each takes tens of milliseconds); '?' when lark is not found."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("lark")
        with open(str(spec.origin if spec else ""), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except (OSError, ValueError, ImportError):
        return "?"


@functools.lru_cache(maxsize=1)
def _code_key() -> str:
    h = hashlib.sha256(f"{lark_digest()}\0{sys.version}\0{pickle.HIGHEST_PROTOCOL}".encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for name in _BUILDERS:
        with open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def _entry(root: str, text: str, path: str) -> str:
    key = hashlib.sha256(f"{_code_key()}\0{path}\0{text}".encode()).hexdigest()
    return os.path.join(root, f"{_PREFIX}{key[:32]}.pickle")


def get(root: Optional[str], text: str, path: str) -> Optional[A.Rulebook]:
    """The AST kept for (path, text), or None."""
    if root is None:
        return None
    where = _entry(root, text, path)
    try:
        st = os.lstat(where)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return None
        with open(where, "rb") as f:
            rb = pickle.load(f)
    except Exception:  # noqa: BLE001 - a missing or unreadable entry is only slower
        return None
    from mercator.dsl import ast as A
    return rb if isinstance(rb, A.Rulebook) else None


def put(root: Optional[str], text: str, path: str, rb: A.Rulebook) -> None:
    """Keep the AST of (path, text), and text as the last one of path (`last`); then drop the
    oldest entries beyond MAX_ENTRIES."""
    if root is not None:
        write_entry(root, _entry(root, text, path), _PREFIX,
                    pickle.dumps(rb, protocol=pickle.HIGHEST_PROTOCOL))
        write_entry(root, _last_entry(root, path), _LAST, text.encode("utf-8"))


_LAST = "last-"


def _last_entry(root: str, path: str) -> str:
    key = hashlib.sha256(f"{_code_key()}\0{path}".encode()).hexdigest()
    return os.path.join(root, f"{_LAST}{key[:32]}")


def last(root: Optional[str], path: str) -> Optional[tuple[str, A.Rulebook]]:
    """The text of path whose AST was kept last, with that AST (None if either is gone): what
    a new process parsing an edited file starts from, parsing again only the declarations
    the edit changed (dsl/parse_chunks.py), as a process that parsed it before does."""
    if root is None:
        return None
    where = _last_entry(root, path)
    try:
        st = os.lstat(where)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return None
        with open(where, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    rb = get(root, text, path)
    return (text, rb) if rb is not None else None


_MARK = "ok-"


def has_mark(root: Optional[str], key: str) -> bool:
    """Was `key` (a digest a caller makes of what it checked) marked as having passed?"""
    if root is None:
        return False
    try:
        st = os.lstat(os.path.join(root, f"{_MARK}{key[:32]}"))
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()


def set_mark(root: Optional[str], key: str) -> None:
    """Mark `key` as having passed (at most MAX_ENTRIES marks are kept, as ASTs are)."""
    if root is not None:
        write_entry(root, os.path.join(root, f"{_MARK}{key[:32]}"), _MARK, b"")


def write_entry(root: str, where: str, prefix: str, data: bytes,
                keep: Optional[int] = None) -> None:
    """Write data to `where` (whole or not at all), then drop the oldest files of `prefix`
    beyond `keep` (default MAX_ENTRIES); a cache that cannot be written is left as it is."""
    keep = MAX_ENTRIES if keep is None else keep
    import tempfile                # (here: slow to import, and needed only to write)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".part-", dir=root)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, where)
        tmp = None
        entries = [os.path.join(root, n) for n in os.listdir(root) if n.startswith(prefix)]
        if len(entries) > keep:
            entries.sort(key=lambda p: os.lstat(p).st_mtime)
            for old in entries[:len(entries) - keep]:
                os.remove(old)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass
