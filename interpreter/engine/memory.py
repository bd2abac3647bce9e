"""The per-op memory of fns' values (compiler/memo.py says when values are remembered and
forgotten): what the generated code of a remembered fn reads as `_MEMO[0]`."""
from __future__ import annotations


class Memo(list):
    """One table (arguments -> value) per remembered fn, in the order of CodeGen.memo, each
    kept for the memory's life: a fn's code reads `memo[i]`, and forgetting one fn's values
    clears its table. `clear` forgets every value."""

    def __init__(self, n: int):
        super().__init__({} for _ in range(n))

    def clear(self) -> None:
        for t in self:
            t.clear()
