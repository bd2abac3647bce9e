"""What one player may see of a state, derived from the rulebook's visibility declarations.

``public`` fields are shown to everyone; ``owner`` fields only to the player who owns them;
``secret`` fields to nobody. The one ``owner`` table field is a ``map<player, T>``: each seat sees its
own entry only (a spectator none), and the rest as a hidden collection of the map's size.
A hidden collection still shows its size (how many cards are in a hand or a deck), a hidden scalar
shows only that it is hidden.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl.infoflow import is_owner_map
from mercator.dsl.types import Type
from mercator.interpreter.engine.bundles import is_offer_table, offer_lines
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.seen import readable_log
from mercator.interpreter.engine.people import People, people
from mercator.interpreter.engine.values import fmt
from mercator.interpreter.engine.printable import printable  # noqa: F401 (re-exported)

HIDDEN = "hidden"


def visible(visibility: str, owner: Optional[int], viewer: Optional[int]) -> bool:
    """May `viewer` (a 0-based seat, or None for a spectator) see a field with this visibility?"""
    if visibility == "public":
        return True
    if visibility == "owner":
        return owner is not None and viewer is not None and owner == viewer
    return False


def revealed_now(program: Any, state: Any) -> frozenset[str]:
    """The hidden fields every seat is shown in `state`: those the view reveals at the end
    (`reveal at end: ...`, docs/language.md §2.20a), once the game is over; none before."""
    spec = getattr(program, "view", None)
    if spec is None or not spec.revealed or not state.over:
        return frozenset()
    return spec.revealed


def shown_as(f: Any, revealed: frozenset[str]) -> str:
    """The visibility field f has for the seats now: public once it is revealed."""
    return "public" if f.name in revealed else f.visibility


def typed_json(v: Any, t: Type, name: Any = fmt) -> Any:
    """A readable JSON form of a value: enum members and players by name, maps with string keys
    (`name(value, type)` writes a member, a player or a key: by default its name in the
    rulebook; a person's page passes engine/people.py's words)."""
    if t.kind == "opt":
        return None if v is None else typed_json(v, t.args[0], name)
    if v is None:
        return None
    k = t.kind
    if k in ("player", "enum"):
        return name(v, t)
    if k == "list":
        return [typed_json(x, t.args[0], name) for x in v]
    if k == "bag":
        return {name(x, t.args[0]): n for x, n in sorted(v.items())}
    if k == "map":
        return {name(a, t.args[0]): typed_json(b, t.args[1], name) for a, b in sorted(v.items())}
    if k == "record":
        return {n: typed_json(x, ft, name) for n, x, ft in zip(t.members, v, t.field_types)}
    return v


def size_of(v: Any, t: Type) -> Optional[int]:
    """How many items a collection value holds (a bag counts repeats); None for a scalar."""
    kind = t.args[0].kind if t.kind == "opt" else t.kind
    if v is None or kind not in ("list", "bag", "map"):
        return None
    if kind == "bag":
        return sum(v.values())
    return len(v)


def _field(v: Any, t: Type, shown: bool) -> Any:
    if shown:
        return typed_json(v, t)
    n = size_of(v, t)
    return {HIDDEN: True, "size": n} if n is not None else HIDDEN


def _own_entry(v: Any, viewer: Optional[int]) -> dict[Any, Any]:
    """The part of an owner-only player map `viewer` sees: its own entry, if it has one."""
    if viewer is None or not v or viewer not in v:
        return {}
    return {viewer: v[viewer]}


def _owner_map_json(v: Any, t: Type, viewer: Optional[int]) -> Any:
    """An owner-only player map as `viewer` sees it: hidden with its size, and the own entry."""
    return {HIDDEN: True, "size": len(v) if v else 0,
            "seen": typed_json(_own_entry(v, viewer), t)}


def _table_json(f: Any, v: Any, viewer: Optional[int], vis: str) -> Any:
    if is_owner_map(f.type, vis):
        return _owner_map_json(v, f.type, viewer)
    return _field(v, f.type, visible(vis, None, viewer))


def _pending(node: Any, viewer: Optional[int], w: Optional[People] = None
             ) -> Optional[dict[str, Any]]:
    if isinstance(node, Decision):
        d: dict[str, Any] = {"kind": "decision", "player": f"P{node.player + 1}",
                             "prompt": node.prompt_for(viewer), "simultaneous": node.simultaneous}
        if viewer == node.player:
            d["options"] = [o.label for o in node.options]
            if node.draft is not None:      # the offer he is building: his eyes only
                d["draft"] = (w if w is not None else People()).label(node.draft)
        return d
    if isinstance(node, Chance):
        return {"kind": "chance", "what": node.what}
    return None


def _raw(v: Any, t: Type, shown: bool) -> Any:
    return v if shown else size_of(v, t)


def _table_raw(f: Any, v: Any, viewer: Optional[int]) -> Any:
    if is_owner_map(f.type, f.visibility):
        return [_own_entry(v, viewer), len(v) if v else 0]
    return _raw(v, f.type, visible(f.visibility, None, viewer))


def position_view(program: Any, state: Any, viewer: int) -> Any:
    """What seat `viewer` sees of the position, as compact data (for its information state):
    the fields it may see, the sizes of the hidden collections, the round, and the pending node
    as it is shown to that seat (not the options: those must follow from the rest)."""
    rb = program.rb
    table = [_table_raw(f, v, viewer) for f, v in zip(rb.table_fields, state.table)]
    players = [[_raw(v, f.type, visible(f.visibility, p, viewer))
                for f, v in zip(rb.player_fields, row)] for p, row in enumerate(state.players)]
    node = state.pending
    if isinstance(node, Decision):
        pend: Any = ("decision", node.player, node.prompt_for(viewer), node.simultaneous)
    elif isinstance(node, Chance):
        pend = ("chance", node.what)
    elif isinstance(node, Terminal):
        pend = ("over", list(node.scores))
    else:
        pend = None
    return [table, players, state.round, pend]


def observe(program: Any, state: Any, viewer: Optional[int]) -> dict[str, Any]:
    """The JSON-able observation of `state` by seat `viewer` (0-based; None = spectator)."""
    rb = program.rb
    rv = revealed_now(program, state)
    table = {f.name: _table_json(f, v, viewer, shown_as(f, rv))
             for f, v in zip(rb.table_fields, state.table)}
    players = []
    for p, row in enumerate(state.players):
        entry: dict[str, Any] = {"seat": f"P{p + 1}", "you": p == viewer}
        for f, v in zip(rb.player_fields, row):
            entry[f.name] = _field(v, f.type, visible(shown_as(f, rv), p, viewer))
        players.append(entry)
    obs: dict[str, Any] = {"game": program.name, "viewer": None if viewer is None else f"P{viewer + 1}",
                           "round": state.round, "over": state.over, "table": table,
                           "players": players,
           "pending": _pending(state.pending, viewer, people(program, state))}
    if state.narrate:
        # as a person reads it, less the words (a program parses these lines: the Die Händler
        # anchor reads the wagon under the hammer from them); a page adds the words
        obs["log"] = readable_log(state.record, viewer)
    if isinstance(state.pending, Terminal):
        obs["scores"] = list(state.pending.scores)
        obs["winners"] = [f"P{w + 1}" for w in state.pending.winners]
    return obs


def words(v: Any, t: Type, w: Optional[People] = None) -> str:
    """A shown value as a person reads it (engine/people.py): the view's `text` of its type (with
    `w`, the texts of a state), else plain words — a truth value as yes or no, an empty
    collection as none, names with spaces, no braces (issue 39: 'has passed false',
    'plundered []', '{jade×2}')."""
    return (w if w is not None else People()).text(v, t)


def _text(v: Any, t: Type, shown: bool, w: Optional[People] = None) -> str:
    if shown:
        return words(v, t, w)
    n = size_of(v, t)
    if n is None:
        return "(hidden)"
    return f"(hidden, {n} item{'s' if n != 1 else ''})"


def _table_text(f: Any, v: Any, viewer: Optional[int], vis: str, w: People) -> str:
    if not is_owner_map(f.type, vis):
        return _text(v, f.type, visible(vis, None, viewer), w)
    own = _own_entry(v, viewer)
    n = (len(v) if v else 0) - len(own)
    if not own:
        return _text(v, f.type, False)
    if n == 0:
        return words(own, f.type, w)
    return f"{words(own, f.type, w)} (and hidden, {n} item{'s' if n != 1 else ''})"


def _offers_text(f: Any, v: Any, w: People) -> str:
    """A deal's table of offers: a line per offer (after an empty first line), or none."""
    offers = [w.label(x) for x in offer_lines(v, f.type, bundle_parts=w.bundle_parts)]
    return "\n".join([""] + offers) if offers else "(no offers)"


def view_fields(program: Any, state: Any,
                viewer: Optional[int]) -> tuple[list[tuple[str, str]], list[str], list[list[str]]]:
    """What `viewer` sees, as text cells: the table's (field, value) rows, the player fields'
    names, and for each seat its values of those fields (hidden ones as '(hidden ...)')."""
    rb = program.rb
    rv = revealed_now(program, state)
    w = people(program, state)
    table = [(f.name, _offers_text(f, v, w) if is_offer_table(f.type) and f.visibility == "public"
              else _table_text(f, v, viewer, shown_as(f, rv), w))
             for f, v in zip(rb.table_fields, state.table)]
    names = [f.name for f in rb.player_fields]
    seats = [[_text(v, f.type, visible(shown_as(f, rv), p, viewer), w)
              for f, v in zip(rb.player_fields, row)] for p, row in enumerate(state.players)]
    return table, names, seats


def describe(program: Any, state: Any, viewer: Optional[int]) -> str:
    """A readable text view of what `viewer` sees: the table fields, then each player."""
    table, names, seats = view_fields(program, state, viewer)
    who = "spectator" if viewer is None else f"you are P{viewer + 1}"
    lines = [f"── {program.name} · round {state.round} · {who} ──"]
    if table:
        width = max(len(name) for name, _ in table)
        for name, text in table:
            first, *rest = text.split("\n")        # a deal's table: one offer a line
            lines.append(f"  {name:<{width}}  {first}".rstrip())
            lines.extend(f"    {line}" for line in rest)
    for p, values in enumerate(seats):
        parts = [f"{name} {text}" for name, text in zip(names, values)]
        mark = "▶" if p == viewer else " "
        tag = " (you)" if p == viewer else ""
        lines.append(f"{mark} P{p + 1}{tag}: " + " · ".join(parts))
    return "\n".join(lines)


def _size_code(x: str, t: Type) -> str:
    """Python for size_of(x, t) with t known: the same value, without looking at t at run time."""
    kind = t.args[0].kind if t.kind == "opt" else t.kind
    if kind == "bag":
        return f"(None if {x} is None else sum({x}.values()))"
    if kind in ("list", "map"):
        return f"(None if {x} is None else len({x}))"
    return "None"


def _pending_raw(node: Any, viewer: int) -> Any:
    if isinstance(node, Decision):
        return ("decision", node.player, node.prompt_for(viewer), node.simultaneous)
    if isinstance(node, Chance):
        return ("chance", node.what)
    if isinstance(node, Terminal):
        return ("over", list(node.scores))
    return None


def _own_raw(v: Any, viewer: int) -> list:
    return [_own_entry(v, viewer), len(v) if v else 0]


def table_field_code(f: Any, x: str, viewer: str) -> str:
    """Python for what seat `viewer` (an expression) sees of table field f whose value is the
    expression x, as position_view gives it: the value, its size, or an owner-only map's
    [own entry, size]."""
    if is_owner_map(f.type, f.visibility):
        return f"_own({x}, {viewer})"
    if visible(f.visibility, None, 0):
        return x
    return _size_code(x, f.type)


def player_field_code(f: Any, x: str, seat: str, viewer: str) -> str:
    """Python for what seat `viewer` sees of player field f of seat `seat` (expressions) whose
    value is the expression x, as position_view gives it (both seats numbers: the choice
    between the value and its size made here)."""
    if f.visibility == "public":
        return x
    if f.visibility == "owner":
        if seat.isdigit() and viewer.isdigit():
            return x if seat == viewer else _size_code(x, f.type)
        return f"({x} if {seat} == {viewer} else {_size_code(x, f.type)})"
    return _size_code(x, f.type)


def seen_alike(f: Any, table: bool) -> bool:
    """Does every seat see the same of field f (a table field if `table`, else a player
    field's entry of any one seat): the value or its size, not an owner's own part?"""
    if table:
        return not is_owner_map(f.type, f.visibility)
    return f.visibility != "owner"


def compile_position_view(program: Any) -> Any:
    """position_view(program, state, viewer) as one Python function of (state, viewer) written
    for this rulebook's fields: each field's visibility and type are looked at once, here,
    instead of at every step of every game (it gives the very same data; a state whose table or
    rows have another length than the rulebook's fields is handed to position_view)."""
    rb = program.rb
    table = [table_field_code(f, f"t[{i}]", "v") for i, f in enumerate(rb.table_fields)]
    row = [player_field_code(f, f"r[{j}]", "p", "v") for j, f in enumerate(rb.player_fields)]
    nt, nr = len(rb.table_fields), len(rb.player_fields)
    src = (f"def view(s, v):\n"
           f"    t = s.table\n"
           f"    P = s.players\n"
           f"    if len(t) != {nt} or any(len(r) != {nr} for r in P):\n"
           f"        return _slow(_prog, s, v)\n"
           f"    return [[{', '.join(table)}], [[{', '.join(row)}] for p, r in enumerate(P)], "
           f"s.round, _pend(s.pending, v)]\n")
    return written(src, f"<position view of {program.name}>", "view",
                   {"_slow": position_view, "_prog": program})


def written(src: str, filename: str, name: str, more: dict[str, Any]) -> Any:
    """The function `name` of the Python source src, with the helpers field code calls."""
    ns: dict[str, Any] = {"_own": _own_raw, "_pend": _pending_raw, **more}
    exec(compile(src, filename, "exec"), ns)
    return ns[name]
