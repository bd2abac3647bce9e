"""Text safe to print on a terminal, with nothing else imported (the command line's output and
`mercator check`'s quick path use it without loading the engine)."""
from __future__ import annotations

_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x20)) + [0x7f] if c not in (0x0a, 0x09)}
_CONTROL.update({c: f"\\x{c:02x}" for c in range(0x80, 0xa0)})     # C1 controls (CSI, ...)


def printable(text: str) -> str:
    """`text` safe to print on a terminal: control characters other than newline and tab (ESC,
    BEL, NUL, CR, ...) shown as \\xNN, lone surrogates (from undecodable file names) as \\udcNN."""
    safe = text.translate(_CONTROL)
    if safe.isascii():
        return safe
    return "".join(c if not 0xd800 <= ord(c) <= 0xdfff else f"\\u{ord(c):04x}" for c in safe)
