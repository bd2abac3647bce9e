"""A whole bundle typed at once ("25 coins + pepper + silk") while a deal builds an offer.

A deal (docs/language.md §4.17) builds an offer one step at a time: `add 5 coins`, `add pepper`,
`done`. A person may type the bundle instead; `bundle_steps` turns it into those steps, which
the terminal player then answers one by one (each checked against the options offered then).
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from mercator.interpreter.engine.nodes import Option

END = "<end of the bundle>"        # 'done' (or 'post' on the last bundle), whichever is offered
_AMOUNT = re.compile(r"add (\d+) (.+)")
_PIECE = re.compile(r"(\d+)\s*([^\d].*)?")


def is_building(options: Sequence[Option]) -> bool:
    """Is this decision a step of building a deal's offer?"""
    labels = [o.label for o in options]
    return any(lb.startswith("add ") for lb in labels) and \
        ("done" in labels or "post" in labels or "cancel" in labels)


def bundle_steps(text: str, options: Sequence[Option]) -> tuple[Optional[list[str]], str]:
    """The labels to answer for a typed bundle ('4 coins + salt', '25 + pepper'), END last:
    (steps, "") or (None, why not). Text with no '+' and no 'N name' is not a bundle, except a
    lone item's name ('silk': add silk, the bundle still open)."""
    t = text.strip()
    if not is_building(options):
        return None, ""
    if not ("+" in t or re.fullmatch(r"\d+\s+\D.*", t)):
        # one item by its name ('silk' for 'add silk'), unless it names an option itself
        low = t.lower()
        if t and not any(o.label.lower().startswith(low) for o in options) and \
                step_index(f"add {t}", options) is not None:
            return [f"add {t}"], ""
        return None, ""
    pieces, why = piece_steps(t, options)
    if pieces is None:
        return None, why
    return [step for _, step in pieces] + [END], ""


def piece_steps(text: str, options: Sequence[Option]) -> tuple[Optional[list[tuple[str, str]]], str]:
    """Each '+'-separated piece of a typed bundle with the 'add' steps it stands for, as
    (piece, step) pairs ('25' → five 'add 5 ducats' when ducats go by 5), or (None, why not);
    an amount's unit is read off the 'add N name' options offered now."""
    amounts = [(int(m.group(1)), m.group(2)) for o in options
               if (m := _AMOUNT.fullmatch(o.label)) is not None]
    steps: list[tuple[str, str]] = []
    for piece in (p.strip() for p in text.split("+")):
        if not piece:
            return None, "an empty part between two '+'"
        m = _PIECE.fullmatch(piece)
        if m is None:
            steps.append((piece, f"add {piece}"))
            continue
        n, name = int(m.group(1)), (m.group(2) or "").strip().lower()
        fits = [(u, part) for u, part in amounts if part.lower().startswith(name)]
        if not fits:
            return None, (f"'{piece}': no amount of that can be added now" if name else
                          f"'{piece}': say of what (e.g. {n} coins)")
        if len(fits) > 1:
            return None, f"'{piece}': say which: " + ", ".join(part for _, part in fits)
        unit, part = fits[0]
        if n % unit:
            return None, f"'{piece}': {part} go in units of {unit}"
        steps += [(piece, f"add {unit} {part}")] * (n // unit)
    return steps, ""


def step_index(step: str, options: Sequence[Option]) -> Optional[int]:
    """The option a queued step answers now (END: 'done' or 'post'), or None if none does."""
    labels = [o.label.lower() for o in options]
    wanted = ["done", "post"] if step == END else [step.lower()]
    for w in wanted:
        if w in labels:
            return labels.index(w)
    if step != END:     # an item typed by the start of its label ('pep' for 'add pepper')
        hits = [i for i, lb in enumerate(labels) if lb.startswith(step.lower())]
        if len(hits) == 1:
            return hits[0]
    return None
