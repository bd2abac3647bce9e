"""A time limit for a block of a test (SIGALRM; no extra dependency): a hang becomes a failure."""
from __future__ import annotations

import signal
from contextlib import contextmanager
from types import FrameType
from typing import Iterator, Optional


class TookTooLong(Exception):
    """The block under time_limit ran past its seconds."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise TookTooLong in the block when it runs longer than `seconds`."""
    def ring(signum: int, frame: Optional[FrameType]) -> None:
        raise TookTooLong(f"took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
