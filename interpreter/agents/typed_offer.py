"""A whole offer typed on one line: "25 + pepper + silk for Villa Colini" (optionally "... to P3").

A deal (docs/language.md §4.17) posts an offer in steps: `post an offer`, (`to P3`), `about X`,
`add ...`, `done`/`post`. At a seat's turn to deal (or where the offer's subject is asked) a
person may type the bundle, `for` and the subject instead; `offer_steps` plays those steps on a
copy of the game to check the whole line first, so a bad item or subject is refused before any
step is taken, with a hint of what may be typed. A subject is named as the view shows it, by
words ("Villa Colini", "city hall") or by a unique word of it ("colini", "r2c3").
"""
from __future__ import annotations

import difflib
import re
from typing import Any, Optional

from mercator.interpreter.agents.bundles import is_building, piece_steps, step_index
from mercator.interpreter.engine.nodes import Decision

_LINE = re.compile(r"(?P<bundle>.*?)\s+for\s+(?P<subject>.+)", re.IGNORECASE | re.DOTALL)
_TO = re.compile(r"\s+to\s+p(?P<seat>\d+)\s*$", re.IGNORECASE)
_MAX_STEPS = 500                     # an offer of more steps than this is refused, not played


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s_\-]+", name.lower()) if w]


def match_subject(typed: str, names: list[str]) -> tuple[Optional[str], str]:
    """The subject among `names` that typed words name (all of a name's words, or words that
    only one name has), or (None, why not, with a hint)."""
    want = _words(typed)
    if not want:
        return None, "say what the offer is about after 'for'"
    exact = [n for n in names if _words(n) == want]
    if exact:
        return exact[0], ""
    hits = [n for n in names if all(w in _words(n) for w in want)]
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        return None, f"'{typed}': say which: " + ", ".join(hits)
    close = difflib.get_close_matches("_".join(want), names, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return None, (f"'{typed}': no offer can be about that now; {hint}the offer may be about: "
                  + ", ".join(names))


def _drafting(labels: list[str]) -> bool:
    """Is this a step of building an offer's bundle (its adds, 'done' or 'post', 'cancel')?"""
    return "cancel" in labels and any(lb in ("post", "done") or lb.startswith("add ")
                                      for lb in labels)


def _labels(state: Any) -> list[str]:
    node = state.pending
    return [o.label for o in node.options] if isinstance(node, Decision) else []


def offer_steps(text: str, program: Any, state: Any) -> tuple[Optional[list[str]], str]:
    """The labels of the steps that post the offer typed as 'BUNDLE for SUBJECT [to PN]', in
    order, checked on a copy of the game: (labels, ""), (None, why not), or (None, "") when the
    line is no such offer here (the other input rules then apply)."""
    node = state.pending
    if not isinstance(node, Decision):
        return None, ""
    m = _LINE.fullmatch(text.strip())
    labels = _labels(state)
    if m is None or text.strip().lower() in (lb.lower() for lb in labels):
        return None, ""
    at_turn = "post an offer" in labels
    at_about = any(lb.startswith("about ") for lb in labels)
    if not at_turn and not at_about:
        if is_building(node.options):
            return None, ("the space an offer is about is chosen before its bundle: type the "
                          "whole line ('25 + silk for X') at your turn to deal, or just the bundle")
        return None, ""
    subject, to = m.group("subject"), None
    t = _TO.search(subject)
    if t is not None:
        subject, to = subject[:t.start()], f"to P{int(t.group('seat'))}"
    bundle = m.group("bundle").strip()
    if not bundle:
        return None, "say what you give before 'for' (e.g. 10 ducats + silk for X)"
    who = node.player
    sim = state.clone()
    steps: list[str] = []

    def take(label: str) -> None:
        program.apply(sim, label)
        steps.append(label)

    if at_turn:
        take("post an offer")
    labels = _labels(sim)
    if labels and all(lb.startswith("to ") or lb == "cancel" for lb in labels):
        takers = [lb[3:] for lb in labels if lb.startswith("to ")]
        if to is None:
            return None, ("say whom the offer is to: end the line with 'to P…' (it may go to: "
                          + ", ".join(takers) + ")")
        if to not in labels:
            return None, f"'{to}': the offer may go to " + ", ".join(takers)
        take(to)
        labels = _labels(sim)
    names = [lb[len("about "):] for lb in labels if lb.startswith("about ")]
    if not names:
        return None, "this offer names no subject: type just the bundle"
    name, why = match_subject(subject, names)
    if name is None:
        return None, why
    take(f"about {name}")
    pieces, why = piece_steps(bundle, sim.pending.options)
    if pieces is None:
        return None, why
    if len(pieces) > _MAX_STEPS:
        return None, f"the bundle has more than {_MAX_STEPS} steps: post it in parts"
    for piece, step in pieces:
        idx = step_index(step, sim.pending.options)
        if idx is None:
            can = [lb[len("add "):] for lb in _labels(sim) if lb.startswith("add ")]
            return None, (f"'{piece}': you cannot add that to this offer now; you may add: "
                          + (", ".join(can) if can else "nothing more"))
        take(sim.pending.options[idx].label)
    while isinstance(sim.pending, Decision) and sim.pending.player == who and \
            _drafting(_labels(sim)):
        labels = _labels(sim)
        if "post" in labels:
            take("post")
            return steps, ""
        if "done" not in labels:
            return None, "the rules do not accept this offer as it stands: change its bundle"
        take("done")
    return steps, ""
