"""Loading a rulebook from disk: read, parse, follow 'use' declarations, check.

Within one process a file's text is parsed once (a library used by several games, a base
loaded by its variants), and a base that loaded without error is checked once: both are kept,
keyed by path and text, and every file a kept result read is read again and compared before it
is reused (dsl/load_cache.py).

What a load looked at on disk can be recorded (recording_reads): every path it asked about and
what it found, so that a result kept between processes (`mercator check`'s cache) is reused only
while every one of them is as it was.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import stat
from typing import Any, Iterator, Optional, Union

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, error
from mercator.dsl import parse_cache
from mercator.dsl.load_cache import LRU, LoadedBase


@attrs.define
class LoadResult:
    """What loading a rulebook produced: the checked rulebook (None on error) and diagnostics."""

    rulebook: Optional[CheckedRulebook]
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    items: list[Any] = attrs.field(factory=list)        # the declarations after 'use' and variants
    base: Optional["LoadResult"] = None                 # for a variant: its base, loaded

    @property
    def library(self) -> bool:
        """True for a library file: declarations for games to 'use', no game of its own."""
        return self.rulebook is None and not any(d.is_error for d in self.diagnostics)

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return self.rulebook is not None and not any(d.is_error for d in self.diagnostics)


# (what was asked: "refusal", "read" or "lexists"; the path; the answer) of every look at the disk
Looks = list[tuple[str, str, Any]]
_LOOKS: contextvars.ContextVar[Optional[Looks]] = contextvars.ContextVar("_LOOKS", default=None)


@contextlib.contextmanager
def recording_reads() -> Iterator[Looks]:
    """Within this block (in this thread), every refusal() and file read the loader makes is
    noted in the list given: (kind, path, answer); see looks_again."""
    looks: Looks = []
    token = _LOOKS.set(looks)
    try:
        yield looks
    finally:
        _LOOKS.reset(token)


_DISK_ASTS: contextvars.ContextVar[bool] = contextvars.ContextVar("_DISK_ASTS", default=True)


@contextlib.contextmanager
def asts_in_process_only() -> Iterator[None]:
    """Within this block (in this thread), the ASTs of parsed files are kept in this process but
    not written to the per-user cache (`check --watch`: the next edit is parsed again here in
    its changed declarations only, faster than pickling the whole AST would be)."""
    token = _DISK_ASTS.set(False)
    try:
        yield
    finally:
        _DISK_ASTS.reset(token)


def looks_again(looks: Looks) -> bool:
    """Would every look noted by recording_reads give the same answer now?"""
    for kind, path, answer in looks:
        now = refusal(path) if kind == "refusal" else _read(path) if kind == "read" else \
            _lexists(path)
        if now != answer:
            return False
    return True


def _lexists(path: str) -> bool:
    found = os.path.lexists(path)
    _note("lexists", path, found)
    return found


def _note(kind: str, path: str, answer: Any) -> None:
    looks = _LOOKS.get()
    if looks is not None:
        looks.append((kind, path, answer))


RULEBOOK_SUFFIX = ".rules"
_SYSTEM_DIRS = ("/proc", "/sys", "/dev")


def refusal(path: str) -> Optional[str]:
    """Why `path` may not be read as a rulebook (None when it may): only existing regular files
    named *.rules, outside /proc, /sys and /dev. Decided from os.stat alone, before any open, so
    a FIFO or a device is never opened and nothing that is not a rulebook is ever echoed."""
    problem = _refusal(path)
    _note("refusal", path, problem)
    return problem


def _refusal(path: str) -> Optional[str]:
    try:
        info = os.stat(path)
    except ValueError:          # a NUL character in the path
        return "this is not a valid file path"
    except FileNotFoundError:
        return "No such file or directory"
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISDIR(info.st_mode):
        return "this is a directory, not a rulebook file"
    if not stat.S_ISREG(info.st_mode):
        return "this is not a regular file (a device, a pipe or a socket), not a rulebook file"
    real = os.path.realpath(path)
    if any(real == d or real.startswith(d + os.sep) for d in _SYSTEM_DIRS):
        return f"{real} is a system file, not a rulebook file"
    if not path.endswith(RULEBOOK_SUFFIX) or not real.endswith(RULEBOOK_SUFFIX):
        return f"only files named *{RULEBOOK_SUFFIX} can be read as rulebooks"
    return None


def _read(path: str) -> tuple[Optional[str], Optional[str]]:
    got = _read_text(path)
    _note("read", path, got)
    return got


def _read_text(path: str) -> tuple[Optional[str], Optional[str]]:
    problem = refusal(path)
    if problem is not None:
        return None, problem
    try:
        with open(path, encoding="utf-8-sig") as f:   # a byte order mark is not text
            return f.read(), None
    except UnicodeDecodeError:
        return None, "the file is not UTF-8 text"
    except IsADirectoryError:
        return None, "this is a directory, not a rulebook file"
    except OSError as exc:
        return None, exc.strerror or str(exc)
    except ValueError:          # e.g. a path with a NUL character
        return None, "this is not a valid file path"


def load_text(text: str, path: str = "<string>") -> LoadResult:
    """Parse and check rulebook text (its 'use' paths are relative to the current directory)."""
    return _load(path, text[1:] if text.startswith("\ufeff") else text)


def load(path: Union[str, "os.PathLike[str]"], _stack: tuple[str, ...] = ()) -> LoadResult:
    """Read, parse and check the rulebook (or variant) at path (a str or a pathlib.Path)."""
    path = os.fspath(path)
    text, problem = _read(path)
    if text is None:
        d = error("E000", f"cannot read rulebook: {problem}", A.Span(path, 1, 1, 1, 1))
        return LoadResult(None, [d], {})
    res = _load(path, text, _stack, from_file=True)
    if not any(d.is_error for d in res.diagnostics):
        _LOADED.put((path, os.path.abspath(path)), LoadedBase.of(res))
    return res


def unchanged(sources: dict[str, str]) -> bool:
    """Does every file of a load's sources still read the same (so that what was made from
    them may be reused)?"""
    return all(_read(path)[0] == text for path, text in sources.items())


def _load_base(path: str, stack: tuple[str, ...]) -> LoadResult:
    """load(path, stack) for a variant's base, reusing this process's earlier load of it when
    every file that load read is unchanged and none of them is on the stack (a cycle)."""
    kept = _LOADED.get((path, os.path.abspath(path)))
    if kept is not None and kept.still_valid(stack, _read):
        return kept.result(LoadResult)
    return load(path, stack)


def _parse(text: str, path: str, from_file: bool) -> tuple[Optional[A.Rulebook], list[Diagnostic]]:
    """Parse text; a file's text is parsed once per process (kept by path and text)."""
    if not from_file:
        from mercator.dsl.parser import parse         # imported on first use, with lark
        return parse(text, path)
    key = (path, text)
    got = _PARSED.get(key)
    if got is None:
        root = parse_cache.cache_dir()         # ... and between processes (dsl/parse_cache.py)
        kept = parse_cache.get(root, text, path)
        if kept is not None:
            got = (kept, [])
        else:
            from mercator.dsl.parser import parse, parsed_before, remember_parse
            if not parsed_before(path):        # an edit since this path's last kept parse:
                prev = parse_cache.last(root, path)    # its unchanged declarations are reused
                if prev is not None:
                    remember_parse(prev[0], path, prev[1])
            got = parse(text, path)
            if got[0] is not None and not got[1] and _DISK_ASTS.get():
                parse_cache.put(root, text, path, got[0])
        _PARSED.put(key, got)
    return got[0], list(got[1])


_PARSED: LRU[tuple[str, str], tuple[Optional[A.Rulebook], list[Diagnostic]]] = LRU(32)
_LOADED: LRU[tuple[str, str], LoadedBase] = LRU(16)


def _expand(path: str, text: str, sources: dict[str, str], diags: list[Diagnostic],
            seen: set[str], stack: tuple[str, ...], from_file: bool) -> Optional[list[Any]]:
    """The declarations of a file with its 'use'd files' declarations first (None on a syntax
    error)."""
    rb, ds = _parse(text, path, from_file)
    diags.extend(ds)
    if rb is None:
        return None
    items: list[Any] = []
    for it in rb.items:
        if not isinstance(it, A.UseDecl):
            continue
        base = os.path.dirname(path) if path != "<string>" else "."
        target = os.path.normpath(os.path.join(base, it.path))
        key = os.path.abspath(target)
        if key in stack:
            diags.append(error("E113", f"'use' cycle: {it.path} uses this file again", it.span))
            continue
        if key in seen:
            continue
        seen.add(key)
        sub, problem = _read(target)
        if sub is None:
            hint = "the path is relative to the file that says 'use'"
            if _lexists(target) and refusal(target) is not None:
                hint = "only regular files named *.rules can be used"
            diags.append(error("E113", f"cannot use '{it.path}': {problem}", it.span, hint))
            continue
        sources[target] = sub
        got = _expand(target, sub, sources, diags, seen, stack + (key,), True)
        items.extend(got or [])
    items.extend(i for i in rb.items if not isinstance(i, A.UseDecl))
    return items


def _load(path: str, text: str, stack: tuple[str, ...] = (), from_file: bool = False) -> LoadResult:
    from mercator.dsl.checker import check_items      # imported on first use: `import dsl.loader` is cheap
    from mercator.dsl.variants import apply_variant
    sources: dict[str, str] = {path: text}
    diags: list[Diagnostic] = []
    me = os.path.abspath(path)
    items = _expand(path, text, sources, diags, set(), stack + (me,), from_file)
    if items is None or any(d.is_error for d in diags):
        return LoadResult(None, diags, sources)
    variant = next((i for i in items if isinstance(i, A.VariantDecl)), None)
    base_result: Optional[LoadResult] = None
    if variant is not None:
        base_path = os.path.normpath(os.path.join(os.path.dirname(path), variant.base))
        problem = refusal(base_path)
        if problem is not None and _lexists(base_path):
            diags.append(error("E113", f"cannot use '{variant.base}' as the base: {problem}",
                               variant.span, "the base must be a rulebook file (*.rules); the "
                               "path is relative to this variant file"))
            return LoadResult(None, diags, sources)
        if os.path.abspath(base_path) in stack + (me,):
            diags.append(error("E132", f"variant cycle: '{variant.base}' is this variant or "
                               "builds on it", variant.span))
            return LoadResult(None, diags, sources)
        base_result = _load_base(base_path, stack + (me,))
        sources.update(base_result.sources)
        if not base_result.ok:
            why = "cannot be read" if not base_result.sources else "has errors"
            diags.append(error("E132", f"the base rulebook '{variant.base}' {why}", variant.span,
                               "the path is relative to this variant file"))
            diags.extend(d for d in base_result.diagnostics if d.span.path != path)
            return LoadResult(None, diags, sources)
        ops = [i for i in items if i is not variant]
        items, vds = apply_variant(list(base_result.items), ops)
        items = [attrs.evolve(i, name=f"{i.name} — {variant.name}") if isinstance(i, A.GameDecl)
                 else i for i in items]
        diags.extend(vds)
        if vds and any(d.is_error for d in vds):
            return LoadResult(None, diags, sources)
    else:
        for it in items:
            if isinstance(it, (A.ReplaceDecl, A.RemoveDecl, A.PhaseInsert, A.ExtendDecl)):
                diags.append(error("E133", "'replace', 'remove', 'extend' and 'phase ... after' "
                                   "belong in a variant", it.span,
                                   'start the file with: variant "Name" of "base.rules"'))
        if any(d.is_error for d in diags):
            return LoadResult(None, diags, sources)
    checked, cds = check_items(tuple(items), path, sources)
    if base_result is not None:      # the base's own warnings were reported when it was checked
        seen_in_base = set(base_result.diagnostics)
        cds = [d for d in cds if d.is_error or d.span.path == path or d not in seen_in_base]
    diags.extend(cds)
    return LoadResult(checked, diags, sources, items, base_result)
