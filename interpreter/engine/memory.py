"""The per-op memory of fns' values (compiler/memo.py says when values are remembered and
forgotten): what the generated code of a remembered fn reads as `_MEMO[0]`."""
from __future__ import annotations


class Memo(list):
    """One table (arguments -> value) per remembered fn, in the order of CodeGen.memo, each
    kept for the memory's life: a fn's code reads `memo[i]`, and forgetting one fn's values
    clears its table. `clear` forgets every value: it runs between most ops, most often with
    nothing remembered, so it clears only the tables `touched` lists — those a fn's code
    stored a value in while the table was empty (codegen's `_fn_source`) — and nothing at all
    when none was (asking each of Felinia's 59 tables cost more than the values saved). A
    table emptied otherwise (the compiled rollout forgets one fn's values) may be listed
    twice; clearing it again costs nothing."""

    __slots__ = ("touched",)

    def __init__(self, n: int):
        super().__init__({} for _ in range(n))
        self.touched: list[dict] = []

    def clear(self) -> None:
        touched = self.touched
        if touched:
            for t in touched:
                t.clear()
            touched.clear()
