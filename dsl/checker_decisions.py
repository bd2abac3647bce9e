"""Right-hand sides that suspend the game: decisions (choose one of / subset of / a record of
choices, simultaneous choices), chance (roll, random one of, draw) and procedure results; none of
them may appear in a pure expression (E108).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_places import PlaceChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.limits import (MAX_COLLECTION, MAX_DIE_SIDES, MAX_OPTIONS, literal_int, literal_range_size,
                        subset_count)
from mercator.dsl.types import (ANY, INT, NONE, PLAYER, Type, assignable, converts, is_collection, iter_elem,
                       list_of, map_of, opt, strip_opt)


class DecisionChecker(PlaceChecker):
    """Types right-hand sides: decisions, chance, procedure results, or an expression."""

    def rhs(self, r: Any, sc: Scope, want: Optional[Type]) -> Type:
        """The type of a right-hand side (an expression or a decision, chance, procedure call)."""
        t = self._rhs(r, sc, want)
        self.types[id(r)] = t
        if want is not None and converts(t, want) and assignable(t, want):
            self.refs[("convert", id(r))] = (t, want)   # a suspending one's too (§3.6)
        return t

    def _rhs(self, r: Any, sc: Scope, want: Optional[Type]) -> Type:
        if isinstance(r, A.Choose):
            return self.choose(r, sc)
        if isinstance(r, A.Simultaneous):
            pt = self.expr(r.players, sc, list_of(PLAYER))
            self.expect(pt, list_of(PLAYER), r.players.span, "players of 'simultaneous'")
            sc.push()
            self._no_shadow_local(r.var, r.span, sc)
            self.refs[id(r)] = sc.declare(r.var, PLAYER)
            if isinstance(r.choose.kind, A.ChoiceRecord):
                self.err("E122", "a compound (record) choice cannot be simultaneous", r.span,
                         "let each player choose the fields one by one, or choose one value")
            t = self.choose(r.choose, sc)
            sc.pop()
            return map_of(PLAYER, t)
        if isinstance(r, A.Roll):
            self._suspend_ok(r, sc)
            self.expect(self.expr(r.sides, sc, INT), INT, r.sides.span, "number of sides")
            sides = literal_int(r.sides)
            if sides is not None and sides > MAX_DIE_SIDES:
                self.err("E143", f"a die of {sides:,} sides: more than the {MAX_DIE_SIDES:,} a "
                         "die may have", r.sides.span, "roll a smaller die, or several")
            return INT
        if isinstance(r, A.RandomPick):
            self._suspend_ok(r, sc)
            t = self.expr(r.options, sc, None)
            if not is_collection(strip_opt(t)) and t.kind != "any":
                self.err("E104", f"'random one of' needs a collection, got {t}", r.options.span)
            return iter_elem(t)
        if isinstance(r, A.Draw):
            self._suspend_ok(r, sc)
            t = self._container(r.source, sc, "'draw from'")
            self._mark_read(r.source)
            if r.count is None:
                return t
            # draw N from X: N items, a bag from a bag, a list (its first N) from a list
            self.expect(self.expr(r.count, sc, INT), INT, r.count.span, "number of items to draw")
            src = strip_opt(self.types.get(id(r.source), ANY))
            return src if src.kind in ("list", "bag") else ANY
        if isinstance(r, A.Call) and (r.name in self.proc_decls):
            self._suspend_ok(r, sc)
            t = self.call_proc_or_fn(r.name, r.args, r, sc, statement=False)
            if t == NONE:
                self.err("E110", f"procedure '{r.name}' returns no value", r.span,
                         "call it as a statement")
            self.types[id(r)] = t
            return t
        return self.expr(r, sc, want)

    def _suspend_ok(self, r: Any, sc: Scope) -> None:
        if sc.kind in ("fn", "expr", "const"):
            self.err("E108", "decisions and chance cannot appear in a pure expression", r.span)

    def choose(self, c: A.Choose, sc: Scope) -> Type:
        """choose WHO one of / subset of / record ...: the type chosen."""
        self._suspend_ok(c, sc)
        for a in c.prompt_args:
            self.expr(a, sc, None)
        who = self.expr(c.who, sc, PLAYER)
        self.expect(who, PLAYER, c.who.span, "who chooses")
        if isinstance(c.kind, A.ChoiceRecord):
            res = self.choose_record(c.kind, sc)
            return opt(res) if c.allow_pass else res
        t = self.choice_type(c.kind, c.allow_pass, sc)
        self.choice_sites.append((c.span, strip_opt(t) if c.allow_pass else t))
        if c.prompt is not None:
            self.choice_prompts[(c.span.path, c.span.line, c.span.col)] = c.prompt
        return t

    def choose_record(self, k: A.ChoiceRecord, sc: Scope) -> Type:
        """A compound decision: each listed field of the record chosen in turn."""
        rt = self.records.get(k.record)
        if rt is None:
            self.err("E101", f"unknown record type '{k.record}'", k.span,
                     did_you_mean(k.record, self.records) or "declare it: record NAME { ... }")
        seen: set[str] = set()
        sc.push()   # earlier fields are visible to later ones by name
        for f in k.fields:
            if isinstance(f.kind, A.ChoiceRecord):
                self.err("E122", "a record field cannot itself be a compound choice", f.span,
                         "choose the inner record in its own statement first")
                continue
            t = self.choice_type(f.kind, f.allow_pass, sc)
            self.choice_sites.append((f.span, strip_opt(t) if f.allow_pass else t))
            ft = rt.field(f.name) if rt is not None else ANY
            if rt is not None and ft is None:
                self.err("E103", f"unknown field '{f.name}' of {rt.name}", f.span,
                         did_you_mean(f.name, rt.members))
                ft = ANY
            elif f.name in seen:
                self.err("E120", f"field '{f.name}' is chosen twice", f.span)
            else:
                self.expect(t, ft or ANY, f.span, f"field '{f.name}'")
            seen.add(f.name)
            self._no_shadow(f.name, f.span)
            self.refs[id(f)] = sc.declare(f.name, t)
        sc.pop()
        return rt if rt is not None else ANY

    def choice_type(self, kind: Any, allow_pass: bool, sc: Scope) -> Type:
        """The type chosen by 'one of' / 'subset of' (optional with pass)."""
        c = kind
        t = self.expr(c.options, sc, None)
        if not is_collection(strip_opt(t)) and t.kind != "any":
            self.err("E104", f"'choose' needs a collection of options, got {t}", c.options.span,
                     "write e.g. 'one of 1..6' or 'one of Good'")
        el = iter_elem(t)
        if isinstance(c, A.ChoiceSubset):
            self.expect(self.expr(c.lo, sc, INT), INT, c.lo.span, "subset size")
            self.expect(self.expr(c.hi, sc, INT), INT, c.hi.span, "subset size")
            n, lo, hi = literal_range_size(c.options), literal_int(c.lo), literal_int(c.hi)
            if n is not None and lo is not None and hi is not None and \
                    n <= MAX_COLLECTION and subset_count(n, lo, hi) > MAX_OPTIONS:
                self.err("E143", f"this decision offers more than {MAX_OPTIONS:,} subsets", c.span,
                         "choose fewer items, or one after another")
            res = list_of(el)
        else:
            res = el
        if allow_pass:
            self._no_pass_option(c.options)
        return opt(res) if allow_pass else res

    def _no_pass_option(self, options: A.Expr) -> None:
        """E142 for an option written as the string "pass" in a decision 'with pass' (its label
        would be the pass option's): in a list literal, or in the list literal of a constant."""
        e: Any = options
        if isinstance(e, A.Name) and e.name in self.const_decls:
            e = self.const_decls[e.name].value
        if not isinstance(e, A.ListLit):
            return
        for item in e.items:
            if isinstance(item, A.StrLit) and item.value == "pass":
                where = item.span if item.span.line >= 1 else options.span
                self.err("E142", 'an option is the string "pass", and this decision also has '
                         "the pass option 'with pass': both would be labelled 'pass'", where,
                         "rename the option, or drop 'with pass'")
