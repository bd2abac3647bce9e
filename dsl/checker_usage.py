"""What the checker says about the rulebook as a whole, once every body is checked: the parts a
game must have (E114, E115), then warnings about use: fields changed but never read or never
changed (W240, W241), procedures never called (W250), recursion (W261), triggers on one event
changing the same field (W280), events nothing emits or nothing reacts to (W210, I230).
Warnings are given only for declarations of the file being checked, not of a library it uses.
"""
from __future__ import annotations

from typing import Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, Stage
from mercator.dsl.checker_base import CheckerBase
from mercator.dsl.diagnostics import did_you_mean, info
from mercator.dsl.graphs import strongly_connected
from mercator.dsl.limits import MAX_PLAYERS, MAX_PROC_DEPTH


class UsageChecker(CheckerBase):
    """Whole-rulebook checks and usage warnings."""

    def check_parts(self, games: list[A.GameDecl], stages: list[Stage],
                    score: Optional[Body], ends: list[Body]) -> None:
        """E114 for a missing game, round or score, or a round that can never end; E115 for an
        'end after' naming no round."""
        if not games:
            self.err("E114", "the rulebook has no 'game' declaration", self._top_span(),
                     'start with: game "Name" players 2..4')
        for g in games:
            self._player_count(g)
        if not stages:
            self.err("E114", "the rulebook has no 'round' declaration", self._top_span(),
                     "add: round NAME { phase NAME { ... } }")
        if score is None:
            self.err("E114", "the rulebook has no 'score' declaration", self._top_span(),
                     "add: score p: p.money")
        names = [st.name for st in stages]
        for end in ends:
            if stages and end.name not in names:
                self.err("E115", f"'end after {end.name}' names no round", end.span,
                         did_you_mean(end.name, names) or
                         f"the round{'s are' if len(names) > 1 else ' is'} "
                         f"{', '.join(repr(n) for n in names)}")
        for st in stages:
            if st.end is None and st.decl.max_rounds is None and not self.has_end_game:
                if len(stages) == 1:
                    self.err("E114", "the game can never end", st.decl.span,
                             "add 'end after ROUND when COND', a 'limit' to the round, or an "
                             "'end game' statement")
                else:
                    self.err("E114", f"round '{st.name}' can never end", st.decl.span,
                             f"add 'end after {st.name} when COND', a 'limit' to it, or an "
                             "'end game' statement")

    def _player_count(self, g: A.GameDecl) -> None:
        """E123 for a player count no game can be started with: an empty range, fewer than one
        player, or more than MAX_PLAYERS seats."""
        lo, hi = g.min_players, g.max_players
        if lo > hi:
            cap = "" if lo <= MAX_PLAYERS else f" (a game has at most {MAX_PLAYERS:,} seats)"
            self.err("E123", f"the player count {lo}..{hi} is empty: its least number of "
                     "players is more than its most", g.span,
                     f"write the least number first: players {max(hi, 1)}.."
                     f"{min(lo, MAX_PLAYERS)}{cap}")
        elif lo < 1:
            self.err("E123", f"a game needs at least 1 player, and players {lo}..{hi} allows "
                     f"{lo}", g.span, f"start the range at 1 (a solo game) or more: players "
                     f"1..{max(hi, 1)}")
        elif hi > MAX_PLAYERS:
            self.err("E123", f"players {lo}..{hi}: more than the {MAX_PLAYERS:,} seats a game "
                     "may have", g.span, f"the most is {MAX_PLAYERS:,}: players "
                     f"{min(lo, MAX_PLAYERS)}..{MAX_PLAYERS}")

    def event_warnings(self, triggers: list[Body], stats: list[Body]) -> None:
        """I230 for an event emitted that nothing reacts to; W210 for a trigger on an event
        nothing emits."""
        handled = {tr.event for tr in triggers} | {st.event for st in stats}
        for name, ed in self.event_decls.items():
            if name in self.emitted and name not in handled and ed.span.path == self.path:
                self.diags.append(info("I230", f"event '{name}' is emitted but nothing reacts to it",
                                       ed.span, "fine for narration and replays; a trigger or a "
                                       "'stat' can use it"))
        for tr in triggers:
            if tr.event in self.events and tr.event not in self.emitted:
                self.warn("W210", f"trigger 'on {tr.event}' listens to an event nothing emits",
                          tr.span)

    def usage_warnings(self) -> None:
        """Fields written but never read or never changed; procedures never called; recursion;
        triggers on one event that change the same field (their order decides the result)."""
        for i, (a, wa) in enumerate(self.trigger_writes):
            for b, wb in self.trigger_writes[i + 1:]:
                both = sorted(wa & wb)
                if a.event == b.event and both and b.span.path == self.path:
                    names = ", ".join(f"{w[0]} field '{w[1]}'" for w in both[:3])
                    self.warn("W280", f"this trigger and the one at line {a.span.line} both react "
                              f"to '{a.event}' and both change {names}", b.span,
                              "they run in declaration order; if the order matters, merge them "
                              "into one trigger so the rule says it")
        for where, fields in (("table", self.table_fields), ("player", self.player_fields)):
            for name, f in fields.items():
                if f.decl.span.path != self.path:
                    continue          # a library's field: the game may not need it
                if (where, name) in self.writes and (where, name) not in self.reads:
                    self.warn("W240", f"{where} field '{name}' is changed but never read",
                              f.decl.span, "remove it, or use it in a rule, the score or a log")
                elif (where, name) not in self.writes:
                    self.warn("W241", f"{where} field '{name}' is never changed", f.decl.span,
                              "declare it as a constant, or set it in a rule")
        for name, d in self.proc_decls.items():
            if name not in self.called and d.span.path == self.path:
                self.warn("W250", f"procedure '{name}' is never called", d.span,
                          "call it from a phase, a trigger or an action, or remove it")
        recursive = _recursive_names(self.calls)
        for name in sorted(self.calls):
            if name in recursive:
                rec = self.proc_decls.get(name)
                if rec is not None and rec.span.path == self.path:
                    self.warn("W261", f"procedure '{name}' can call itself again (recursion)",
                              rec.span, "make sure every recursive path ends; calls more than "
                              f"{MAX_PROC_DEPTH:,} deep, or the step budget, stop one that does not")


def _recursive_names(calls: dict[str, set[str]]) -> set[str]:
    """The names that can reach themselves in the call graph: those in a strongly connected
    component of more than one, or calling themselves."""
    return {v for comp in strongly_connected(calls)
            if len(comp) > 1 or comp[0] in calls.get(comp[0], ()) for v in comp}
