"""The built-in functions' signatures (their run-time meaning lives in interpreter/engine/builtins.py)."""
from __future__ import annotations

from typing import Optional, Union

from mercator.dsl.types import (ANY, BOOL, INT, PLAYER, Type, is_collection, iter_elem, list_of, map_of,
                       strip_opt)

# name -> one-line description (docs/language.md lists the same)
BUILTINS = {
    "len": "number of items in a list, bag or map",
    "count": "number of items; with a generator, how many are true",
    "sum": "sum of ints",
    "max": "largest int of a collection, or of two ints",
    "min": "smallest int of a collection, or of two ints",
    "sort": "a sorted copy of a list",
    "any": "true if some item is true",
    "all": "true if every item is true",
    "abs": "absolute value",
    "keys": "the keys of a map, in order",
    "values": "the values of a map, in key order",
    "items": "the items of a bag as a list, with repeats",
    "distinct": "the items of a list or bag without repeats, in order",
    "clockwise_from": "all players, starting at the given one, clockwise",
    "next_player": "the player to the left (clockwise)",
    "first": "the first item of a list",
    "last": "the last item of a list",
    "index_of": "position of an item in a list (0-based)",
    "some": "the value inside an optional (an error if none)",
    "reverse": "a reversed copy of a list",
    "flatten": "the items of a list of lists, in order, as one list",
    "sort_by": "with a generator of int keys, the items sorted by their keys (lowest first)",
    "argmax": "with a generator of int keys, the first item with the largest key",
    "argmin": "with a generator of int keys, the first item with the smallest key",
    "rank": "with a generator of int keys, a map item -> place (1 = largest key, ties share)",
}
# Built-ins that take a generator. sort_by, argmax, argmin and rank take only a generator, and are
# about its items (the x of `k for x in xs`), ranked by its values (their int keys k);
# first(e for x in xs if c) is the first value.
ITEM_GEN_BUILTINS = frozenset({"sort_by", "argmax", "argmin", "rank"})
GEN_BUILTINS = frozenset({"sum", "count", "max", "min", "any", "all", "first"}) | ITEM_GEN_BUILTINS
BUILTIN_NAMES = frozenset(BUILTINS) | {"players", "player_count", "round_number"}


def builtin_type(name: str, ts: list[Type]) -> Union[Type, str]:
    """Result type of a built-in applied to argument types, or an error message."""
    ts = [strip_opt(t) if name != "some" else t for t in ts]
    n = len(ts)

    def coll(i: int = 0) -> bool:
        return n > i and (is_collection(ts[i]) or ts[i].kind == "any")

    if name in ("len", "count"):
        return INT if n == 1 and coll() else "needs one list, bag or map"
    if name == "sum":
        return INT if n == 1 and coll() and iter_elem(ts[0]).kind in ("int", "any") else \
            "needs a collection of ints"
    if name in ("max", "min"):
        if n == 2 and all(t.kind in ("int", "any") for t in ts):
            return INT
        if n == 1 and coll() and iter_elem(ts[0]).kind in ("int", "any"):
            return INT
        return "needs a collection of ints, or two ints"
    if name in ("any", "all"):
        return BOOL if n == 1 and coll() and iter_elem(ts[0]).kind in ("bool", "any") else \
            "needs a collection of bools"
    if name == "abs":
        return INT if n == 1 and ts[0].kind in ("int", "any") else "needs one int"
    if name in ("sort", "reverse"):
        return ts[0] if n == 1 and ts[0].kind in ("list", "any") else "needs one list"
    if name == "keys":
        return list_of(ts[0].elem) if n == 1 and ts[0].kind in ("map", "bag") else "needs a map"
    if name == "values":
        return list_of(ts[0].value) if n == 1 and ts[0].kind == "map" else "needs a map"
    if name in ("items", "distinct"):
        return list_of(iter_elem(ts[0])) if n == 1 and coll() else "needs a list or bag"
    if name == "clockwise_from":
        return list_of(PLAYER) if n == 1 and ts[0].kind in ("player", "any") else "needs a player"
    if name == "next_player":
        return PLAYER if n == 1 and ts[0].kind in ("player", "any") else "needs a player"
    if name in ("first", "last"):
        return iter_elem(ts[0]) if n == 1 and ts[0].kind in ("list", "any") else "needs a list"
    if name == "index_of":
        return INT if n == 2 and ts[0].kind in ("list", "any") else "needs a list and an item"
    if name == "flatten":
        ok = n == 1 and ts[0].kind in ("list", "any") and ts[0].elem.kind in ("list", "any")
        return list_of(ts[0].elem.elem if ts[0].kind == "list" else ANY) if ok else \
            "needs a list of lists"
    if name == "some":
        return strip_opt(ts[0]) if n == 1 else "needs one optional value"
    if name in ITEM_GEN_BUILTINS:
        return f"needs a generator of int keys, as in {name}(q.money for q in players)"
    return ANY


def gen_builtin_type(name: str, value: Type, item: Type) -> Union[Type, str]:
    """Result type of a built-in applied to a generator: `value` is the type of what the generator
    yields, `item` the type of its variable (the items of the collection); or an error message."""
    if name == "first":
        return value
    if name in ("count", "any", "all") and strip_opt(value).kind not in ("bool", "any"):
        return (f"counts the true values of a generator, not {value} values (count the items "
                f"with `count(true for ...)` or len of a list)" if name == "count" else
                f"tests bool values, not {value} values")
    if name not in ITEM_GEN_BUILTINS:
        return builtin_type(name, [list_of(value)])
    if strip_opt(value).kind not in ("int", "any"):
        return f"the keys must be ints, not {value}"
    if name == "sort_by":
        return list_of(item)
    if name == "rank":
        if strip_opt(item).kind not in ("enum", "int", "player", "bool", "str", "any"):
            return f"ranks enum, int, bool or player items (map keys), not {item}"
        return map_of(strip_opt(item), INT)
    return item


def builtin_arg_want(name: str, want: Optional[Type]) -> Optional[Type]:
    """The type expected of the one argument of built-in `name` when its result is expected to
    be `want`: flatten(xss) as a list<T> wants a list<list<T>>; sort, reverse and distinct
    give back their argument reordered or thinned, so a list<T> wants a list<T>. None
    otherwise (the argument is then checked on its own, as before)."""
    if want is None or want.kind != "list":
        return None
    if name == "flatten":
        return list_of(want)
    if name in ("sort", "reverse", "distinct"):
        return want
    return None
