"""Bundles at run time: the parts of a bundle (an amount of an int field, items of a bag or list
field) and what a deal does with them: does a holding cover a bundle, what is left, hand it
over; and each offer of a deal's table as a line for people (interpreter/engine/view.py).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.interpreter.engine.values import deep_copy, fmt


class Part:
    """One part of the bundle: an amount of an int field or items of a bag or list field."""

    def __init__(self, name: str, kind: str, field: int, unit: int, elem: Any, is_bag: bool,
                 label_with_part: bool, openly: bool = False, scalar_items: bool = False,
                 dest: Optional[int] = None, where: str = ""):
        self.name = name
        self.kind = kind            # amount | items
        self.field = field          # index of the player field
        self.dest = field if dest is None else dest   # ... and of the receiver's (`to F`)
        # how an offer says where the part's items come from (and land), when it is not plain:
        # "hand → aside" for a part with `to`, the field's name beside another part of its
        # item type ("gives blue (hand); gets blue (table)")
        self.where = where
        self.unit = unit
        self.elem = elem            # the item type (items parts)
        self.is_bag = is_bag
        self.label_with_part = label_with_part   # another items part has the same item type
        self.openly = openly        # an owner-only field: only its holder may offer it
        self.scalar_items = scalar_items   # items are scalars (no copy; distinct by hashing)

    def empty(self) -> Any:
        """An empty value of the part: no amount, no items."""
        return 0 if self.kind == "amount" else {} if self.is_bag else []

    def text(self, v: Any) -> list[str]:
        """The pieces of a bundle's text for this part's value."""
        where = f" ({self.where})" if self.where else ""
        if self.kind == "amount":
            return [f"{v} {self.name}{where}"] if v else []
        items = sorted(v.items()) if self.is_bag else [(x, 1) for x in v]
        return [fmt(x, self.elem) + (f"×{n}" if n != 1 else "") + where for x, n in items]

    def item_label(self, x: Any) -> str:
        """An item as an option shows it (with the part's name when two parts hold such items)."""
        s = fmt(x, self.elem)
        return f"{s} ({self.name})" if self.label_with_part else s


def covers(part: Part, have: Any, want: Any) -> bool:
    """Does `have` hold at least `want` (an amount, or a sub-bag / sub-list)?"""
    if part.kind == "amount":
        return have >= want
    if not want:
        return True
    if part.is_bag:
        return all(have.get(x, 0) >= n for x, n in want.items())
    rest = list(have)
    for x in want:
        if x not in rest:
            return False
        rest.remove(x)
    return True


def minus(part: Part, have: Any, taken: Any) -> Any:
    """What is left of `have` once `taken` (covered by it) is out: a new value, or `have`
    itself when nothing is taken (to be read, not changed)."""
    if part.kind == "amount":
        return have - taken
    if not taken:
        return have                 # (bags hold no zeros: nothing to drop)
    if part.is_bag:
        out = {x: n - taken.get(x, 0) for x, n in have.items()}
        return {x: n for x, n in out.items() if n > 0}
    rest = list(have)
    for x in taken:
        rest.remove(x)
    return rest


def move(part: Part, src: list, dst: list, what: Any) -> None:
    """Move `what` (an amount or items) of this part's field from one player to another."""
    f, t = part.field, part.dest        # (what is received lands in the part's `to` field)
    if part.kind == "amount":
        src[f] -= what
        dst[t] += what
    elif part.is_bag:
        for x, n in what.items():
            left = src[f].get(x, 0) - n
            if left > 0:
                src[f][x] = left
            else:
                src[f].pop(x, None)
            dst[t][x] = dst[t].get(x, 0) + n
    else:
        for x in what:
            src[f].remove(x)
            dst[t].append(deep_copy(x))


def is_offer_table(t: Any) -> bool:
    """Is t the type of a deal's table, list<offer<...>>?"""
    return t.kind == "list" and t.elem.kind == "record" and t.elem.name.startswith("offer<")


def offer_lines(offers: list, t: Any, parts: Optional[list[Part]] = None,
                bundle_parts: Optional[dict[str, list[Part]]] = None) -> list[str]:
    """Each offer of a table of type t as one line for people: '#1 P2 to P1 about left: gives
    2 coins + salt; promises silk' (empty bundles but `give` left out); with the bundle's
    `parts` (or the map of them by bundle, Program.bundle_parts), items say where they come
    from as an offer's label does."""
    ot = t.elem
    out = []
    if parts is None and bundle_parts:
        parts = bundle_parts.get(ot.field("give").name)
    for o in offers:
        f = dict(zip(ot.members, o))
        head = f"#{f['id']} P{f['maker'] + 1} to P{f['taker'] + 1}"
        if "subject" in f:
            head += f" about {fmt(f['subject'], ot.field('subject'))}"
        said = []
        for term, verb in (("give", "gives"), ("get", "gets"), ("promise", "promises")):
            bt = ot.field(term)
            bits = []
            for k, (name, v, pt) in enumerate(zip(bt.members, f[term], bt.field_types)):
                if parts is not None and k < len(parts):
                    bits += parts[k].text(v)
                elif pt.kind == "int":
                    bits += [f"{v} {name}"] if v else []
                else:
                    items = sorted(v.items()) if pt.kind == "bag" else [(x, 1) for x in v]
                    bits += [fmt(x, pt.elem) + (f"×{n}" if n != 1 else "") for x, n in items]
            if bits or term == "give":
                said.append(f"{verb} {' + '.join(bits) if bits else 'nothing'}")
        out.append(f"{head}: {'; '.join(said)}")
    return out


def gained(p: Part, now: Any, was: Any) -> Any:
    """The items of `now` beyond those of `was` (some of which may have gone)."""
    if p.is_bag:
        return {x: n - was.get(x, 0) for x, n in now.items() if n > was.get(x, 0)}
    rest, out = list(was), []
    for x in now:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


def only(parts: list[Part], p: Part, v: Any) -> list:
    """A bundle holding v in part p and nothing else (for a message)."""
    return [v if q is p else q.empty() for q in parts]
