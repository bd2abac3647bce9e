"""The `bots { ... }` declaration: the search settings a rulebook's searching seats take where
their spec names none (docs/language.md §2.19d) — not a rule of the game. Checked here (E163):
known words, each value in its setting's range, each word once, one declaration; W275 for a
setting that changes nothing in this rulebook (a preference's setting without a `prefer`).

The words are the agent spec's settings of the same names (interpreter/agents/spec.py), with
the same ranges (tests/test_bots_decl.py holds the two tables together); the language keeps its
own table, since the checker does not import the engine.
"""
from __future__ import annotations

import re
from typing import Any

from mercator.dsl import ast as A
from mercator.dsl.checker_base import CheckerBase
from mercator.dsl.diagnostics import did_you_mean

_DECIMAL = r"\d{1,3}(\.\d{1,6})?"
# word -> (lowest, highest, whole numbers only?, 'end' allowed?, what it says, an example)
BOT_WORDS: dict[str, tuple[float, float, bool, bool, str, str]] = {
    "depth": (1, 10 ** 6, True, True,
              "how many steps of the top level a rollout plays before the estimate judges it, "
              "or 'end': to the end of the game", "depth end"),
    "prefer": (0, 1, False, False,
               "the share of a rollout's moves that are the most preferred option where a "
               "'prefer' covers the decision", "prefer 1"),
    "trust": (0, 1, False, False,
              "how much better in mean reward (from 0 to 1) another option must do in the "
              "search for the answer not to be the most preferred one", "trust 0.5"),
    "sure": (0, 10, False, False,
             "how many standard errors of the difference another option must beat the most "
             "preferred one by, besides 'trust'", "sure 2"),
}
# the settings whose value is a word: word -> (its values, what it says, an example)
BOT_CHOICES: dict[str, tuple[tuple[str, ...], str, str]] = {
    "deals": (("none", "random", "judge", "prefer"),
              "how the searcher plays a window of offers: none (its rollouts pass), random, "
              "judge (they post a draft as it stands and accept what raises the estimate) or "
              "prefer (judge, and every step of an offer being drafted is the casual trader's "
              "of the rulebook's preference over the offers)", "deals prefer"),
    "anytime": (("root", "all", "none"),
                "where the searcher weighs the any-time actions: root (at the decision it "
                "answers), all (below it too) or none (nowhere: it takes one only where the "
                "rules force it)", "anytime none"),
}
# the words that read the rulebook's preferences (W275 without a `prefer`)
_OF_PREFERENCES = ("prefer", "trust", "sure")


def bot_value(word: str, text: str) -> Any:
    """The value of a checked setting as the agent spec holds it: 'end' as 0 (the spec's
    depth=end), a whole number as an int, else a float."""
    if word in BOT_CHOICES:
        return text
    if text == "end":
        return 0
    return int(text) if BOT_WORDS[word][2] else float(text)


class BotsChecker(CheckerBase):
    """Checks the one `bots { ... }` of a rulebook."""

    def check_bots(self, items: tuple[Any, ...]) -> dict[str, Any]:
        """The settings the rulebook declares (word -> value as the agent spec holds it); empty
        where it declares none or they have errors."""
        decl = self.one_block(items, A.BotsDecl, "E163", "bots")
        if decl is None:
            return {}
        out: dict[str, Any] = {}
        ok = True
        words = [*BOT_WORDS, *BOT_CHOICES]
        for it in decl.items:
            if not self.known_word(it.word, words, "E163", "search setting", it.span):
                ok = False
                continue
            want = BOT_WORDS.get(it.word)
            if it.word in out:
                self.err("E163", f"the setting '{it.word}' is given twice", it.span,
                         "keep one line for it")
                ok = False
                continue
            if want is None:
                values, what, example = BOT_CHOICES[it.word]
                if it.value not in values:
                    self.err("E163", f"'{it.word} {it.value}': {it.word} is {what}", it.span,
                             did_you_mean(it.value, values) or
                             "one of " + ", ".join(values) + f", e.g. {example}")
                    ok = False
                    continue
                out[it.word] = it.value
                continue
            lo, hi, whole, end, what, example = want
            form = r"\d{1,7}" if whole else _DECIMAL
            good = (end and it.value == "end") or (
                re.fullmatch(form, it.value) is not None and lo <= float(it.value) <= hi)
            if not good:
                kind = "a whole number" if whole else "a number"
                also = " or 'end'" if end else ""
                top = f"{int(hi)}" if whole else f"{hi:g}"
                self.err("E163", f"'{it.word} {it.value}': {it.word} is {what}",
                         it.span, f"{kind} from {lo:g} to {top}{also}, e.g. {example}")
                ok = False
                continue
            out[it.word] = bot_value(it.word, it.value)
        if not ok:
            return {}
        prefers = any(isinstance(it, A.PreferDecl) for it in items)
        estimate = any(isinstance(it, A.EstimateDecl) for it in items)
        for it in decl.items:
            if it.span.path != self.path:       # (a variant's base said it already)
                continue
            if it.word in _OF_PREFERENCES and not prefers:
                self.warn("W275", f"'{it.word}' changes nothing: the rulebook declares no "
                          "preference", it.span,
                          "it sets how the searcher follows the rulebook's 'prefer' "
                          "declarations (docs/language.md §2.19c)")
            elif it.word == "deals" and it.value == "prefer" and not any(
                    isinstance(x, A.PreferDecl) and isinstance(x.type, A.GenericType)
                    and x.type.name == "offer" for x in items):
                self.warn("W275", "'deals prefer' changes nothing: the rulebook declares no "
                          "preference over a deal's offers", it.span,
                          "declare one: prefer o: offer<Bundle, Subject> for p = ... "
                          "(docs/language.md §2.19c)")
            elif it.word == "anytime" and not any(isinstance(x, A.ActionDecl) for x in items):
                self.warn("W275", "'anytime' changes nothing: the rulebook declares no any-time "
                          "action", it.span, "it says where the searcher weighs the rulebook's "
                          "'anytime' declarations (docs/language.md §2.16)")
            elif it.word == "depth" and not estimate:
                self.warn("W275", "'depth' changes nothing: the rulebook declares no estimate",
                          it.span, "without an 'estimate' the searcher's rollouts play to the "
                          "end of the game (docs/language.md §2.19b)")
        return out
