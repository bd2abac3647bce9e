"""The per-op memory of fns' values (compiler/memo.py says when values are remembered and
forgotten): what the generated code of a remembered fn reads as `_MEMO[0]`."""
from __future__ import annotations


class Memo(list):
    """One table (arguments -> value) per remembered fn, in the order of CodeGen.memo, each
    kept for the memory's life: a fn's code reads `memo[i]`, and forgetting one fn's values
    clears its table. `clear` forgets every value: it runs between most ops, most often with
    nothing remembered, so it first asks whether any table holds a value (one C-level pass)."""

    def __init__(self, n: int):
        super().__init__({} for _ in range(n))

    def clear(self) -> None:
        if any(self):
            for t in self:
                if t:
                    t.clear()
