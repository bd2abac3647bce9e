"""Deals: the `deal` statement (E151 for a bad deal): its table of offers, its settings and its
clauses. What a deal shows every seat (the table of offers, each step of building one) is
public, so the table field must be public and the settings and rule clauses may read only
public fields (bundles, whose parts must be public too, are dsl/checker_bundles.py).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_bundles import OFFER, TERMS, BundleChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import ANY, BOOL, INT, PLAYER, Type, is_collection, iter_elem, strip_opt

SETTINGS = ("among", "dealer", "about", "terms", "quiet", "limit", "closer", "close", "accepts")
RULES = ("valid", "binding", "proceeds", "must", "asks")
BLOCKS = ("accepted", "closed")
CLAUSES = RULES + BLOCKS


def _leaving(stmts: tuple[Any, ...], in_loop: bool) -> Optional[Any]:
    """The first `return`, or `break` outside a loop of the block, among stmts (nested blocks
    included): it would jump out of a deal's accepted block before the promise is paid."""
    for st in stmts:
        if isinstance(st, A.Return) or (isinstance(st, A.Break) and not in_loop):
            return st
        loop = in_loop or isinstance(st, (A.For, A.While, A.Repeat))
        for sub in _blocks(st):
            found = _leaving(sub.stmts, loop)
            if found is not None:
                return found
    return None


def _blocks(st: Any) -> list[A.Block]:
    if isinstance(st, A.If):
        return [st.then, *(e.body for e in st.elifs), *([st.else_] if st.else_ else [])]
    if isinstance(st, (A.For, A.While, A.Repeat)):
        return [st.body]
    return []


class DealChecker(BundleChecker):
    """Deal statements."""

    deal_depth = 0                 # accepted blocks being checked (a deal may not nest)
    close_elem: Type = ANY         # the type of a closed(x) clause's variable

    # -- the statement
    def s_Deal(self, s: A.Deal, sc: Scope) -> None:
        """deal on T { settings, clauses }."""
        if self.deal_depth:
            self.err("E151", "a deal inside another deal's 'accepted' block", s.span,
                     "close one window before opening the next: move this deal after the first")
        ot = self._deal_table(s)
        if ot is not None:          # a preference over its offers covers the window (§2.19c)
            self.deal_sites.append((s.span, ot))
            self.choice_prompts[(s.span.path, s.span.line, s.span.col)] = f"{s.table}: "
        self._deal_settings(s)
        among = s.setting("among")
        if among is not None:
            at = self.expr(among, sc, None)
            if not (is_collection(strip_opt(at)) and iter_elem(at).kind == "player") and \
                    at.kind != "any":
                self.err("E151", f"'among' needs a list of players, got {at}", among.span,
                         "for example: among = players, or among = [q for q in players if q != p]")
        for name in ("dealer", "closer"):
            e = s.setting(name)
            if e is not None:
                self.expect(self.expr(e, sc, PLAYER), PLAYER, e.span, f"the {name}")
        has_subject = ot is not None and "subject" in ot.members
        about = s.setting("about")
        if about is not None:
            at = self.expr(about, sc, None)
            if ot is not None and not has_subject:
                self.err("E151", f"'about': the offers of '{s.table}' have no subject", about.span,
                         f"declare the table as list<offer<{ot.name[6:-1]}, Subject>>")
            elif ot is not None and at.kind != "any" and \
                    getattr(ot.field("subject"), "kind", "any") != "any":
                want = ot.field("subject")
                if not is_collection(strip_opt(at)) or want is None or \
                        not self._same(iter_elem(at), want):
                    self.err("E104", f"'about' needs a list of {want}, got {at}", about.span)
        elif has_subject:
            self.err("E151", f"the offers of '{s.table}' have a subject: say what they may be about",
                     s.table_span, "add the setting: about = LIST (for example about = Stall)")
        close = s.setting("close")
        self.close_elem = ANY
        if close is not None:
            ct = self.expr(close, sc, None)
            if is_collection(strip_opt(ct)):
                self.close_elem = iter_elem(ct)
            elif ct.kind != "any":
                self.err("E151", f"'close' needs a list, got {ct}", close.span,
                         "for example: close = legal_steps()")
        for name in ("quiet", "limit", "accepts"):
            e = s.setting(name)
            if e is not None:
                self.expect(self.expr(e, sc, INT), INT, e.span, f"'{name}'")
        self._deal_clauses(s, sc, ot)
        self._public_only(s)

    def _deal_settings(self, s: A.Deal) -> None:
        """Known settings, each once; among and quiet there; terms a list of known terms."""
        seen: set[str] = set()
        for c in s.clauses:
            if not isinstance(c, A.DealSetting):
                continue
            if c.name not in SETTINGS:
                self.err("E151", f"unknown deal setting '{c.name}'", c.span,
                         did_you_mean(c.name, SETTINGS) or
                         "the settings are " + ", ".join(SETTINGS))
            elif c.name in seen:
                self.err("E151", f"the setting '{c.name}' is given twice", c.span,
                         "keep one of them")
            seen.add(c.name)
        unknown = bool(seen - set(SETTINGS))
        for need, example in (("among", "among = players"), ("quiet", "quiet = 1")):
            if need not in seen and not unknown:   # (a misspelt setting says more)
                self.err("E151", f"a deal needs the setting '{need}'", s.table_span,
                         f"add it, for example: {example}")
        t = s.setting("terms")
        if t is None:
            return
        names = [x.name if isinstance(x, A.Name) else "" for x in t.items] \
            if isinstance(t, A.ListLit) else []
        if not isinstance(t, A.ListLit) or not names or "" in names:
            self.err("E151", "'terms' is a list of the words give, get and promise", t.span,
                     "for example: terms = [give, get]")
            return
        for i, n in enumerate(names):
            if n not in TERMS:
                self.err("E151", f"unknown term '{n}'", t.items[i].span,
                         did_you_mean(n, TERMS) or "the terms are give, get and promise")
            elif n in names[:i]:
                self.err("E151", f"term '{n}' is named twice", t.items[i].span)
        if names[0] != "give":
            self.err("E151", "the terms start with 'give'", t.span,
                     "write: terms = [give, get] (an offer always says what its maker gives)")

    def _hidden_read(self, e: Any, maker: Optional[str] = None) -> Optional[str]:
        """The first field that is not public an expression reads (through the fns it calls).
        With `maker` (the variable of a proceeds clause), an owner-only field read right off
        `maker.maker` is allowed: only the maker is shown what his promise may name. The size
        of a whole field (`len(o.maker.hand)`, `count(supply)`) is public whatever its
        visibility (every view shows it, docs/language.md §10.10): reading it is allowed."""
        sized: set[int] = set()
        for n in self._walk(e, into_fns=True):      # (a call comes before its arguments)
            if id(n) in sized:
                continue
            if isinstance(n, A.Call) and n.name in ("len", "count") and len(n.args) == 1 and \
                    self._sized_field(n.args[0]):
                sized.add(id(n.args[0]))
            if isinstance(n, A.Field):
                info = self.player_fields.get(n.name)
                if isinstance(n.obj, A.Field) and n.obj.name in TERMS:
                    info = None         # a part of an offer's bundle (o.give.ducats), not a field
                if info is not None and info.visibility != "public":
                    if maker is not None and info.visibility == "owner" and \
                            isinstance(n.obj, A.Field) and n.obj.name == "maker" and \
                            isinstance(n.obj.obj, A.Name) and n.obj.obj.name == maker:
                        continue
                    return n.name
            elif isinstance(n, A.Name):
                info = self.table_fields.get(n.name)
                if info is not None and info.visibility != "public":
                    return n.name
        return None

    def _sized_field(self, e: Any) -> bool:
        """Is e a whole state field: a table field's name, or a player field of a player?"""
        if isinstance(e, A.Name):
            return e.name in self.table_fields and self.refs.get(id(e), ("",))[0] == "table"
        return isinstance(e, A.Field) and e.name in self.player_fields and \
            strip_opt(self.types.get(id(e.obj), ANY)) == PLAYER

    def _public_only(self, s: A.Deal) -> None:
        """E151 for a part of the deal that decides what the seats are offered but reads a
        hidden field: the options every seat sees would tell what it holds."""
        settings = [(c.name, c.expr) for c in s.clauses if isinstance(c, A.DealSetting)
                    and c.name != "terms"]
        parts: list[tuple[str, Any, Optional[str]]] = [(n, e, None) for n, e in settings]
        parts += [(f"{c.kind}({c.var})", c.expr, c.var if c.kind == "proceeds" else None)
                  for c in s.clauses if isinstance(c, A.DealRule)]
        for what, e, maker in parts:
            if e is None:
                continue
            hidden = self._hidden_read(e, maker)
            if hidden is not None:
                self.err("E151", f"'{what}' of a deal reads '{hidden}', which not every seat may "
                         "see", e.span, "the offers and what each seat may do with them are shown "
                         "to every seat: decide them from public fields only")

    def _same(self, a: Type, b: Type) -> bool:
        return strip_opt(a) == strip_opt(b) or a.kind == "any"

    def _deal_table(self, s: A.Deal) -> Optional[Type]:
        """The offer record type of the deal's table field (E151 when it is not one)."""
        info = self.table_fields.get(s.table)
        if info is None:
            self.err("E151", f"'{s.table}' is not a table field", s.table_span,
                     did_you_mean(s.table, list(self.table_fields)) or
                     "declare it: table { market: list<offer<Lot>> }")
            return None
        t = info.type
        ot = t.elem if t.kind == "list" else None
        if ot is None or ot.kind != "record" or not ot.name.startswith(OFFER + "<"):
            self.err("E151", f"the table of a deal must be a list<offer<...>>, '{s.table}' is {t}",
                     s.table_span, "declare it: table { market: list<offer<Lot>> }")
            return None
        if info.visibility != "public":
            self.err("E151", f"the table of offers '{s.table}' is {info.visibility}, but every "
                     "seat sees the offers made", s.table_span, "declare it public")
        self.reads.add(("table", s.table))
        self.writes.add(("table", s.table))
        bundle = self.bundles.get(ot.name[6:].split(",")[0].rstrip(">"))
        for part in bundle.parts if bundle is not None else ():
            for f in (part.field, part.to or part.field):
                self.reads.add(("player", f))
                self.writes.add(("player", f))
        return ot

    def _deal_clauses(self, s: A.Deal, sc: Scope, ot: Optional[Type]) -> None:
        seen: set[str] = set()
        otype = ot if ot is not None else ANY
        bundle = otype.field("give") if ot is not None else None
        for c in s.clauses:
            if isinstance(c, A.DealSetting):
                continue
            if c.kind not in CLAUSES:
                self.err("E151", f"unknown deal clause '{c.kind}'", c.span,
                         did_you_mean(c.kind, CLAUSES) or
                         "the clauses are valid(o) = ..., binding(o) = ..., proceeds(o) = ... "
                         "and accepted(o) { ... }")
                continue
            if c.kind in seen:
                self.err("E151", f"a second '{c.kind}' clause", c.span, "merge them into one")
                continue
            seen.add(c.kind)
            if isinstance(c, A.DealAccepted) != (c.kind in BLOCKS):
                form = f"{c.kind}(o) {{ ... }}" if c.kind in BLOCKS else f"{c.kind}(o) = ..."
                self.err("E151", f"'{c.kind}' is written {form}", c.span)
                continue
            sc.push()
            self._no_shadow(c.var, c.span)
            self.refs[id(c)] = sc.declare(c.var, self.close_elem if c.kind == "closed" else otype)
            if isinstance(c, A.DealRule):
                want = bundle if c.kind in ("proceeds", "asks") and bundle is not None else BOOL
                self.expect(self.expr(c.expr, sc, want), want, c.expr.span, f"'{c.kind}'")
            elif c.kind == "closed":
                self.block(c.body, sc)
            else:
                self.deal_depth += 1
                self.block(c.body, sc)
                self.deal_depth -= 1
                leaves = _leaving(c.body.stmts, False)
                if leaves is not None:
                    word = "return" if isinstance(leaves, A.Return) else "break"
                    self.err("E151", f"'{word}' would leave the 'accepted' block before the "
                             "deal is settled", leaves.span, "an accepted deal binds: let the "
                             "block run to its end (use 'if' around what should not happen)")
            sc.pop()
        closed = s.clause("closed")
        if closed is not None and s.setting("close") is None:
            self.err("E151", "'closed' without the setting 'close'", closed.span,
                     "close = LIST names what the closer chooses when he closes the window")
        for name in ("close",):
            e = s.setting(name)
            if e is not None and s.setting("closer") is None:
                self.err("E151", f"'{name}' without a closer", e.span,
                         "closer = PLAYER names who may close the window")
        must = s.clause("must")
        if must is not None and s.setting("dealer") is None:
            self.err("E151", "'must' without a dealer", must.span,
                     "must(o) names the offers a dealer must accept one of: add dealer = ...")
        asks = s.clause("asks")
        if asks is not None and "get" not in s.terms():
            self.err("E151", "'asks' without 'get' in the terms", asks.span,
                     "asks(o) bounds what an offer may ask of the taker's hidden parts: add get "
                     "to the terms, or remove the clause")
        promise = "promise" in s.terms()
        if promise and "proceeds" not in seen:
            self.err("E151", "a deal whose terms promise proceeds needs a 'proceeds' clause",
                     s.table_span, "say what the accepted action yields: proceeds(o) = ...")
        elif "proceeds" in seen and not promise:
            clause = s.clause("proceeds")
            assert clause is not None
            self.err("E151", "'proceeds' without 'promise' in the terms", clause.span,
                     "add promise to the terms, or remove the clause")
