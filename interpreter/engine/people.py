"""Values in words, as a person reads them (issue 39, "options in words").

An option's own label (`silk_boat`, `{boat: jade, steps: 1}`) is its name for saves, `#N`,
bots and the JSON outputs, and stays so. What a person is shown is this module's text of the
same value: a rulebook's `text v: T = PART, ...` (docs/language.md §2.20) where the view
declares one for the value's type, else the value written plainly — an enum member or a field
name with its underscores as spaces and a number glued to its end set apart (`silk_boat` →
"silk boat", `wagon1` → "wagon 1"), a truth value as yes or no, a record as its fields
("boat jade, steps 1"), a collection as its items joined by commas, an empty one as none.
"""
from __future__ import annotations

import re
from typing import Any, Optional

from mercator.dsl.types import Type

# a compiled `text`: (parts, locals) with parts [(function (state, locals) -> value, type)]
TextSpec = Any
Texts = dict[str, TextSpec]          # by the type's name (an enum's or a record's)

_GLUED = re.compile(r"^([a-z]+)(\d+)$")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+\d+")


def name_words(name: str) -> str:
    """A name of the rulebook (an enum member, a field, an action) as words: underscores as
    spaces, a number glued to the end of a word set apart ('wagon1' -> 'wagon 1')."""
    out = []
    for w in name.split("_"):
        m = _GLUED.match(w)
        out.append(f"{m.group(1)} {m.group(2)}" if m else w)
    return " ".join(x for x in out if x)


def join_parts(parts: list[str]) -> str:
    """A label's or a text's parts joined with spaces, a part that begins with a comma, a
    full stop, a semicolon, a colon or a closing bracket joined to the one before it
    ('street at row 3', ', column 5' -> 'street at row 3, column 5')."""
    out = ""
    for x in parts:
        out += x if not out or x[:1] in ",.;:)" else " " + x
    return out


class People:
    """Writes values for people: the view's `text`s (computed in `state`) and the plain words
    of everything else."""

    def __init__(self, texts: Optional[Texts] = None, state: Any = None,
                 members: Optional[dict[str, Type]] = None):
        self.texts = texts or {}
        self.state = state
        self.members = members or {}     # an enum member's name -> its enum (for label strings)
        self.bundle_parts: dict[str, list] = {}   # Program.bundle_parts (offers' lines)
        self._open: set[str] = set()     # the texts being written: in its own text, plain words

    def text(self, v: Any, t: Type) -> str:
        """The value v of static type t in words."""
        if t.kind == "opt":
            return "none" if v is None else self.text(v, t.args[0])
        if v is None:
            return "none"
        k = t.kind
        if k in ("enum", "record") and t.name in self.texts and t.name not in self._open:
            got = self._declared(t.name, v)
            if got is not None:
                return got
        if k == "player":
            return f"P{v + 1}"
        if k == "enum":
            return name_words(t.members[v]) if isinstance(v, int) and 0 <= v < len(t.members) \
                else str(v)
        if k == "bool":
            return "yes" if v else "no"
        if k == "list":      # items that hold commas themselves are set apart by semicolons
            items = [self.text(x, t.args[0]) for x in v]
            return ("; " if any(", " in x for x in items) else ", ").join(items) if v else "none"
        if k == "bag":
            parts = [self.text(x, t.args[0]) + (f"×{n}" if n != 1 else "")
                     for x, n in sorted(v.items())]
            return ", ".join(parts) if parts else "none"
        if k == "map":
            parts = [f"{self.text(a, t.args[0])} {self.text(b, t.args[1])}"
                     for a, b in sorted(v.items())]
            return ", ".join(parts) if parts else "none"
        if k == "record":
            return ", ".join(f"{name_words(n)} {self.text(x, ft)}"
                             for n, x, ft in zip(t.members, v, t.field_types))
        return str(v)

    def atoms(self, v: Any, t: Type) -> set[str]:
        """The named things a value of type t is about, in words: each enum member and player
        in it (inside records, lists, bags and maps too), as its plain words and as the view's
        `text` writes it — what a page highlights where an option acts (a boat on its lane, a
        building on the board, a city on the map). Numbers and truth values name nothing."""
        if v is None:
            return set()
        k = t.kind
        if k == "opt":
            return self.atoms(v, t.args[0])
        if k in ("enum", "player"):
            return {self.text(v, t), People().text(v, t)}
        if k in ("list", "bag"):
            return set().union(*(self.atoms(x, t.args[0]) for x in v)) if v else set()
        if k == "map":
            return set().union(*(self.atoms(a, t.args[0]) | self.atoms(b, t.args[1])
                                 for a, b in v.items())) if v else set()
        if k == "record":
            return set().union(*(self.atoms(x, ft) for x, ft in zip(v, t.field_types)))
        return set()

    def _declared(self, name: str, v: Any) -> Optional[str]:
        """The declared `text` of v, of the type `name`: its parts joined with spaces (a part
        "" or none left out; a part of the type itself in plain words); None where a part
        fails (the plain words are shown then: words never stop a game)."""
        parts, nslots = self.texts[name]
        L = [v] + [None] * max(nslots - 1, 0)
        self._open.add(name)
        try:
            vals = [(f(self.state, L), pt) for f, pt in parts]
            return join_parts([x if isinstance(x, str) else self.text(x, pt)
                               for x, pt in vals if x is not None and x != ""])
        except Exception:    # noqa: BLE001
            return None
        finally:
            self._open.discard(name)

    def label(self, label: str) -> str:
        """A label or a line the engine wrote (a step of a deal, an any-time action's
        `name(args)`, a log line) in words: each name in it that is an enum member written as
        the member's text, any other name with underscores as words; `name(args)` as 'name:
        args'; a record, bag, map or list written as the log writes one ('{boat: silk, steps:
        1}', '[r1, r2]') without its brackets ('boat silk, steps 1'), an empty one as none."""
        label = _unbracket(label)
        m = re.fullmatch(r"([a-z][a-z0-9_]*)\((.*)\)", label)
        if m:
            return f"{name_words(m.group(1))}: {self.label(m.group(2))}" if m.group(2) \
                else name_words(m.group(1))

        def one(mm: "re.Match[str]") -> str:
            w = mm.group(0)
            t = self.members.get(w)
            if t is not None:
                return self.text(t.members.index(w), t)
            return name_words(w) if _ID.fullmatch(w) else w
        return _NAME.sub(one, label)


_BRACKETS = re.compile(r"\{([^{}\[\]]*)\}|\[([^{}\[\]]*)\]")
_KEY = re.compile(r"(?<![\w:])([A-Za-z_][A-Za-z0-9_]*): ")


def _unbracket(text: str) -> str:
    """Records, bags, maps and lists as engine/values.py's fmt writes them, innermost first,
    without brackets: '{boat: silk, steps: 1}' -> 'boat silk, steps 1', '[]' -> 'none'."""
    for _ in range(8):
        new = _BRACKETS.sub(lambda m: _KEY.sub(r"\1 ", (m.group(1) if m.group(1) is not None
                                                         else m.group(2)).strip()) or "none",
                            text)
        if new == text:
            break
        text = new
    return text


def people(program: Any, state: Any) -> People:
    """The writer of values for people in this state: the rulebook view's `text`s and plain
    words."""
    members = getattr(program, "_people_members", None)
    if members is None:
        rb = getattr(program, "rb", None)
        members = enum_members(rb.enums.values()) if rb is not None else {}
        program._people_members = members
    spec = getattr(program, "view", None)
    w = People(spec.texts if spec is not None else None, state, members)
    w.bundle_parts = getattr(program, "bundle_parts", {})
    return w


def enum_members(types: Any) -> dict[str, Type]:
    """Each enum member's name -> its enum, over the rulebook's enums (the first enum wins where
    two share a member's name)."""
    out: dict[str, Type] = {}
    for t in types:
        if t.kind == "enum":
            for m in t.members:
                out.setdefault(m, t)
    return out

