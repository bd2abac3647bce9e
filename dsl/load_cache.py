"""What one process keeps of the rulebooks it loaded: parsed files and bases checked without error.

Parsing and checking are pure functions of the texts read, so a kept result is reused only
when every file it read still reads the same; a variant's base is reused only when none of its
files is on the chain of files being loaded (else the load must report the cycle).
"""
from __future__ import annotations

import os
import threading
from typing import Any, Callable, Generic, Optional, TypeVar

import attrs

from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A small mapping that forgets its least recently used entry beyond `size` entries."""

    def __init__(self, size: int):
        self.size = size
        self._data: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> Optional[V]:
        """The value kept for key (now the most recently used), or None."""
        with self._lock:
            value = self._data.pop(key, None)
            if value is not None:
                self._data[key] = value
            return value

    def put(self, key: K, value: V) -> None:
        """Keep value for key, forgetting the oldest entry when full."""
        with self._lock:
            self._data.pop(key, None)
            self._data[key] = value
            while len(self._data) > self.size:
                del self._data[next(iter(self._data))]

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._data.clear()


@attrs.frozen
class LoadedBase:
    """A load without errors, kept as values (the caller's LoadResult may be changed later)."""

    rulebook: Optional[CheckedRulebook]
    diagnostics: tuple[Diagnostic, ...]
    sources: tuple[tuple[str, str], ...]
    items: tuple[Any, ...]
    base: Any                       # the base's own LoadResult, for a variant

    @classmethod
    def of(cls, res: Any) -> "LoadedBase":
        """Keep a LoadResult's parts."""
        return cls(res.rulebook, tuple(res.diagnostics), tuple(res.sources.items()),
                   tuple(res.items), res.base)

    def still_valid(self, stack: tuple[str, ...],
                    read: Callable[[str], tuple[Optional[str], Optional[str]]]) -> bool:
        """Does every file read still read the same, none of them being on `stack`?"""
        for path, text in self.sources:
            if os.path.abspath(path) in stack or read(path)[0] != text:
                return False
        return True

    def result(self, make: Callable[..., Any]) -> Any:
        """A new LoadResult (built by `make`) with these parts."""
        return make(self.rulebook, list(self.diagnostics), dict(self.sources), list(self.items),
                    self.base)
