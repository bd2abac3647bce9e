"""Compiling the statements that suspend for a decision or for chance into ops.

A decision op returns the Decision and leaves the pc on itself, so running it again (after
loading a state) recomputes the same node; `apply` commits the choice into a local slot and
moves the pc on. Chance ops do the same with a Chance node (its distinct outcomes, each with
its weight) when chance is explicit, and otherwise draw from the state's own generator. A
decision's meaning is written once, as generated source, by `write_choice`: its op (through
control.Control.op) and the compiled rollout's inline choice.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.types import Type, strip_opt
from mercator.interpreter.compiler.codegen import hoist_fields
from mercator.interpreter.compiler.defaults import default_value
from mercator.interpreter.compiler.memo import flat, scalar, shared_parts
from mercator.interpreter.engine.chance import merge_outcomes
from mercator.interpreter.engine.exprs import RuleError, take_item, to_bag
from mercator.interpreter.engine.limits import (MAX_DIE_SIDES, bag_walk, check_options,
                                                check_sides, subset_count)
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.seen import ALL, label_of, record, render, vis_fn
from mercator.interpreter.engine.state import rng_below
from mercator.interpreter.engine.values import (bag_items, deep_copy, flat_copy, fmt, iterator_for,
                                                 text_as)

if TYPE_CHECKING:
    from mercator.interpreter.compiler.control import Control
    from mercator.interpreter.compiler.stmts import BodyCompiler

Op = Callable[[Any, list], Any]
# the errors of a `choose` whose player is none, and of one without `with pass` and no options
NO_PLAYER = "'choose' with no player (none)"
NO_OPTIONS = ("a player must choose, but there are no options (guard this 'choose' or add "
              "'with pass')")


def suspend(bc: "BodyCompiler", r: Any, slot: int) -> None:
    """The ops computing a suspending right-hand side r into local `slot`."""
    if isinstance(r, A.Choose) and isinstance(r.kind, A.ChoiceRecord):
        _choose_record(bc, r, slot)
    elif isinstance(r, A.Choose):
        bc.control(r.span, "choose", Choice(bc, r, slot))
    elif isinstance(r, A.Simultaneous):     # its accumulator slot: [players, their choices]
        c = Choice(bc, r.choose, slot, (bc.hidden(), bc.rb.refs[id(r)]))
        c.players = r.players
        bc.control(r.span, "choose", c)
    elif isinstance(r, A.Call):
        bc.control(r.span, "call", r, slot)
    elif isinstance(r, A.Draw) and r.count is not None:
        bc.emit(_draw_many(bc, r, slot), r.span)
    else:
        bc.emit(_chance(bc, r, slot), r.span)


def _choose_record(bc: "BodyCompiler", c: A.Choose, slot: int) -> None:
    """A compound decision: one ordinary decision per listed field, then the record."""
    k = c.kind
    assert isinstance(k, A.ChoiceRecord)
    rt = bc.rb.records[k.record]
    decl = bc.rb.record_decls[k.record]
    slots = {}
    for i, f in enumerate(k.fields):
        fslot = bc.rb.refs[id(f)]
        slots[f.name] = fslot
        outer_pass = c.allow_pass and i == 0
        bc.control(f.span, "choose", Choice(bc, c, fslot, None, f, outer_pass))
        if outer_pass:
            def passed(st: Any, fr: list, fslot: int = fslot) -> None:
                L = fr[2]
                if L[fslot] is None:
                    L[slot] = None
                    fr[1] = end_at[0]
                else:
                    fr[1] += 1
            bc.emit(passed, f.span)
    parts: list[Callable] = []
    for fd, ft in zip(decl.fields, rt.field_types):
        if fd.name in slots:
            fs = slots[fd.name]
            if strip_opt(ft).kind == "bag":
                parts.append(lambda st, L, fs=fs: None if L[fs] is None else to_bag(L[fs]))
            else:
                parts.append(lambda st, L, fs=fs: L[fs])
        else:
            dv = default_value(bc.p, fd.default, ft)
            parts.append(lambda st, L, dv=dv: deep_copy(dv))

    def build(st: Any, fr: list) -> None:
        L = fr[2]
        L[slot] = [f(st, L) for f in parts]
        fr[1] += 1
    bc.emit(build, c.span)
    end_at = [bc.here()]


class Choice:
    """One decision of the `choose` c, `who` picking one of / a subset of a collection, as
    compiled: what write_choice writes its code from, and the VM's side of it (its node, its
    commit, the narration of a choice made without asking and of a simultaneous one's
    reveal). With `field`, the decision of that field of a compound `choose` (with pass if
    the field's is, or `outer_pass`), whose chosen value only its options' label may see,
    unless the choice is `openly`; else the chosen value has c's label."""
    players: A.Expr            # a simultaneous choice's (each decides in turn, unseen)

    def __init__(self, bc: "BodyCompiler", c: A.Choose, slot: int,
                 simul: Optional[tuple[int, int]] = None, field: Any = None,
                 outer_pass: bool = False):
        f: Any = c if field is None else field
        kind: Any = f.kind        # (ChoiceOne or ChoiceSubset)
        self.who, self.kind, self.slot, self.simul, self.span = c.who, kind, slot, simul, f.span
        self.allow_pass = f.allow_pass or outer_pass
        self.head = (c.prompt or "", "") if field is None else \
            (c.prompt or f"choose {c.kind.record}", f": {field.name}")  # type: ignore[union-attr]
        shown = c if field is None else None if getattr(c, "openly", False) else \
            getattr(field.kind, "options", None)
        self.pargs = [(bc.ex.compile(a), bc.type_of(a), vis_fn(label_of(bc.rb, a)))
                      for a in c.prompt_args]
        self.fixed = (self.head[0] + self.head[1], None)    # (the prompt without arguments)
        otype = self.otype = strip_opt(bc.type_of(kind.options))
        et = otype.elem if otype.kind in ("list", "bag", "map") else Type("any")
        is_scalar = scalar(et)      # (a shallow copy of a list of them is a copy)
        self.value_vis = vis_fn(label_of(bc.rb, shown)) if shown is not None else None
        self.labeller = text_as(et)
        self.values: Optional[Callable] = None     # a subset's options: every combination
        subset = isinstance(kind, A.ChoiceSubset)
        # the VM's node keeps copies of a list's or a map's options the state (or a constant)
        # may hold (write_choice)
        self.copied = not (is_scalar or subset or otype.kind == "bag" or _fresh(
            bc, kind.options) or isinstance(kind.options, A.Range))
        if subset:
            opts_f, lo_f, hi_f = (bc.ex.compile(e) for e in (kind.options, kind.lo, kind.hi))
            walk = bag_walk if otype.kind == "bag" else iterator_for(otype)  # (size limited)

            def values(st: Any, L: list) -> list:
                items = walk(opts_f(st, L))
                lo, hi = max(lo_f(st, L), 0), min(hi_f(st, L), len(items))
                # count the combinations to go through before making them
                check_options(subset_count(len(items), lo, hi), "a 'subset of' decision")
                out: list = []
                for k in range(lo, hi + 1):
                    # a bag's items repeat: keep each distinct combination once
                    combos = itertools.combinations(items, k)
                    out.extend(list(x) for x in (dict.fromkeys(combos) if otype.kind == "bag"
                                                 else combos))
                return out if is_scalar else deep_copy(out)
            self.values = values
            self.labeller = lambda v: "+".join(fmt(x, et) for x in v) if v else "nothing"
        # the value is copied (the pending Decision, and its values, is shared by clones)
        # unless it holds no list or dict
        self.copy = "" if is_scalar and not subset else "_cp" if flat(et) and not subset \
            else "_dc"
        copy = {"": None, "_cp": flat_copy, "_dc": deep_copy}[self.copy]
        if simul is None:
            def commit(st: Any, v: Any) -> None:
                fr = st.stack[-1]
                fr[2][slot] = v if copy is None else copy(v)
                fr[1] += 1
        else:
            def commit(st: Any, v: Any) -> None:
                L = st.stack[-1][2]
                L[simul[0]][1][str(L[simul[1]])] = deep_copy(v)
        self.commit = commit
        # A decision with one legal option is made without asking (docs/language.md §6.1b),
        # but only where that tells no seat more than asking would. Asked or not, every seat
        # sees who decides and at which point of the rules; skipped, it also learns that there
        # was one option and no any-time action. So: never for a simultaneous decision (the
        # others are to learn nothing of a chooser's position before the reveal); only when
        # the options (and a subset's size bounds) carry a public information-flow label, so
        # their count is public; and only when every any-time action is barred by a public
        # part of its `when` (actions.none_allowed_publicly), so "no action allowed" is public
        # too. The chosen value then has the options' label: public. Prompt arguments change
        # nothing (the narration shows each part to whom its label allows). Where the rule
        # says ask, asking tells nothing either: the same prompt appears whether the hidden
        # part allows more or not.
        self.forced_ok = simul is None and all(
            vis_fn(label_of(bc.rb, e)) is None
            for e in [kind.options] + ([kind.lo, kind.hi] if subset else []))
        self.vtype = Type("list", args=(et,)) if subset else et

    def prompt_of(self, st: Any, L: list) -> tuple[str, Optional[list]]:
        """The prompt's text, and its parts [[text, vis], ...] when one of them is not public."""
        prompt, suffix = self.head
        if not self.pargs:
            return self.fixed
        shown: list[list] = [[fmt(f(st, L), t), v(st, L) if v is not None else None]
                             for f, t, v in self.pargs]
        parts = None
        if any(v is not None for _, v in shown):
            parts = [[prompt, None]] + shown + ([[suffix.strip(), None]] if suffix else [])
        return " ".join([prompt] + [str(t) for t, _ in shown]) + suffix, parts

    def node(self, st: Any, L: list, who: int, vals: list, acts: list) -> Decision:
        """The VM's node of the decision among vals (copies where Choice.copied)."""
        text, parts = self.prompt_of(st, L) if self.pargs else self.fixed
        vv = self.value_vis
        d = Decision(who, vals, self.labeller, self.allow_pass, text, acts,
                     self.simul is not None, self.commit, self.span, parts,
                     vv(st, L) if vv is not None and st.narrate else None)
        d.vtype = self.vtype
        return d

    def reveal(self, st: Any, L: list) -> None:
        """The narration of a simultaneous choice's reveal: each listed player's choice."""
        order, done = L[self.simul[0]]    # type: ignore[index]
        shown = []
        for p in order:
            L[self.simul[1]] = p           # type: ignore[index]
            v = done[str(p)]
            shown.append([p, "pass" if v is None else self.labeller(v),
                          self.value_vis(st, L) if self.value_vis is not None else None])
        record(st, ["revealed", shown])

    def forced(self, st: Any, L: list, who: int, v: Any) -> None:
        """The narration of the decision made without asking (its one option v)."""
        text, parts = self.prompt_of(st, L)
        entry = ["forced", who, parts if parts is not None else [[text, None]],
                 "pass" if v is None else self.labeller(v),
                 self.value_vis(st, L) if self.value_vis is not None else None]
        record(st, entry)
        st.messages.append(render(entry, ALL) or "")


def write_choice(w: "Control", pc: int, c: Choice, key: Optional[str]) -> None:
    """The meaning of a `choose` and of a simultaneous choice, written once, as generated
    source by w: the VM's op (`key` None; through Control.op) and the compiled rollout's
    inline choice (`key`: the name of that op, which makes the VM's node where the rollout
    stops) share every line but the tail. A simultaneous choice: its turns around the choice
    of each listed player, then the map of their choices."""
    if c.simul is None:
        _write_choose(w, pc, c, key, f"L[{c.slot}]")
        return
    # each turn: the first listed player who has not chosen (into the loop variable) chooses
    # (the VM's op returns the node); then the map of the choices, revealed (with narration)
    (acc, var), ln = c.simul, w.line
    players = w.ex.gen(c.players)
    ln(pc, "while True:", f"    if L[{acc}] is None: L[{acc}] = [list({players}), {{}}]",
       f"    for _tp in L[{acc}][0]:", f"        if str(_tp) not in L[{acc}][1]:",
       f"            L[{var}] = _tp", "            break", "    else:", "        break")
    w.depth += 1
    _write_choose(w, pc, c, key, f"L[{acc}][1][str(L[{var}])]")
    w.depth -= 1
    ln(pc, f"_od, _dn = L[{acc}]", f"L[{c.slot}] = {{_tp: _dn[str(_tp)] for _tp in _od}}",
       *([f"if s.narrate: {w.ex.const(c)}.reveal(s, L)"] if key is None else []),
       f"L[{acc}] = None", "fr[1] += 1")


def _write_choose(w: "Control", pc: int, c: Choice, key: Optional[str], target: str) -> None:
    """The player (none: no_player), the options (their count checked; none without `with
    pass`: no_options), the any-time actions allowed, the choice made without asking (and
    its narration, in the VM: Choice.forced); then the tail: the VM's node returned, or the
    rollout's draw (stopping at the decision when its limit is reached), the value committed
    into `target` or the action taken. The VM's options are copies where the state may hold
    them (its node keeps them); the rollout's are read as they are, a range lazily."""
    vm, ex, ln = key is None, w.ex, w.line
    ap, actions, o = int(c.allow_pass), bool(ex.rb.actions), c.kind.options
    if c.values is not None:
        opts = f"{ex.const(c.values)}(s, L)"
    elif isinstance(o, A.Range):
        opts = f"{'_range' if vm else '_lrange'}({ex.gen(o.lo)}, {ex.gen(o.hi)})"
    elif c.otype.kind in ("bag", "map"):        # a bag's distinct items; a map's keys
        opts = f"sorted({ex.gen(o)})"
    else:                                       # (the rollout reads a list without a copy)
        opts = ex.gen(o) if not vm and ex.type_of(o).kind == "list" else f"list({ex.gen(o)})"
    if vm and c.copied:
        opts = f"_dc({opts})"
    if not vm:
        ln(pc, "while True:")
        w.depth += 1
    pre, opts = hoist_fields(opts)
    # (a value typed `player` may still be none: a `player?` passed for a `player`)
    ln(pc, f"_w = {ex.gen(c.who)}", f"if _w is None: raise RuleError({NO_PLAYER!r})",
       f"{pre}_o = {opts}", "_n = len(_o)", "if _n > _MAXOPT: _chkopt(_n)",
       *([] if ap else [f"if not _n: raise RuleError({NO_OPTIONS!r})"]))
    if not actions:
        ln(pc, "_a = []" if vm else "_a = ()")
    elif vm:                                    # (Actions.allowed walks the stack)
        ln(pc, "_a = _allowed(s, _w)")
    else:                                       # Actions.allowed, as action_failed says
        ln(pc, "if _C[5]: _a = ()", "else:", "    try: _a = _C[6](s, _w)",
           "    except _RUNF as _x: _afail(s, _w, _x)")
    if c.forced_ok:
        ln(pc, f"if _n + {ap} == 1 and not _a{' and _pubnone(s, _w)' if actions else ''}:",
           f"    _v = _o[0]{' if _n else None' if ap else ''}",
           *([f"    if s.narrate: {ex.const(c)}.forced(s, L, _w, _v)"] if vm else []),
           f"    {target} = {c.copy}(_v)",
           *(["    fr[1] += 1", "    return"] if vm else ["    break"]))
    if vm:
        ln(pc, f"return {ex.const(c)}.node(s, L, _w, _o, _a)")
        return
    # the draw: random.Random's _randbelow written out (the same numbers), else ctx[0]
    ln(pc, f"if _C[2] == _C[3]: _stop(s, fr, {key})", "_C[7] = _w",
       f"_rn = _n + len(_a) + {ap}" if actions else f"_rn = _n + {ap}", "_rg = _C[9]",
       "if _rg is None: _i = _C[0](_rn)", "else:", "    _rk = _rn.bit_length()",
       "    _i = _rg(_rk)", "    while _i >= _rn: _i = _rg(_rk)",
       "_C[1].append(_i)", "_C[2] += 1", "_BUD[0] = _BUDG[0] = _C[4]",
       *(["_i -= 1", "if _i < 0:", f"    {target} = None", "    break"] if ap else []),
       "if _i < _n:", f"    {target} = {c.copy}(_o[_i])", "    break", "_act(s, _w, _a[_i - _n])")
    w.depth -= 1


def _fresh(bc: "BodyCompiler", e: Any) -> bool:
    """e is a call of a fn whose value is built by the call (memo.shared_parts: nothing in it
    is the state's, a constant's or an argument's), so its items need no copy."""
    if not isinstance(e, A.Call) or e.name not in bc.rb.fns:
        return False
    fresh = getattr(bc.ex, "fresh_fns", None)
    if fresh is None:
        fresh = {n for n, parts in shared_parts(bc.rb).items() if not parts}
        setattr(bc.ex, "fresh_fns", fresh)
    return e.name in fresh


def _chance(bc: "BodyCompiler", r: Any, slot: int) -> Op:
    """The op of a roll, a random pick or a draw: without explicit chance it draws with the
    state's generator; with it, it returns a Chance node of the distinct outcomes and their
    weights (or commits the only outcome there is)."""
    make = _roll if isinstance(r, A.Roll) else _random_pick if isinstance(r, A.RandomPick) \
        else _draw
    spread, sample, et, what, take = make(bc, r)
    labeller = text_as(et)

    def commit(st: Any, v: Any) -> None:
        fr = st.stack[-1]
        if take is not None:
            take(st, fr[2], v)
        fr[2][slot] = deep_copy(v)
        fr[1] += 1

    def chance(st: Any, fr: list) -> Any:
        L = fr[2]
        if not st.explicit_chance:
            commit(st, sample(st, L))
            return None
        vals, weights = spread(st, L)
        if len(vals) > 1:
            node = Chance(vals, labeller, what, commit, r.span, weights)
            node.vtype = et
            return node
        commit(st, vals[0])
        return None
    return chance


Spread = Callable[[Any, list], tuple[list, list[int]]]
Sample = Callable[[Any, list], Any]
# (spread, sample, the outcomes' type, what the chance is, how a drawn item is taken or None)
Outcomes = tuple[Spread, Sample, Type, str, Optional[Callable]]


def _roll(bc: "BodyCompiler", r: A.Roll) -> Outcomes:
    """A die: faces 1..n, each once."""
    sides_f = bc.ex.compile(r.sides)

    def spread(st: Any, L: list) -> tuple[list, list[int]]:
        n: int = sides_f(st, L)
        check_sides(n)
        return list(range(1, n + 1)), [1] * n

    def sample(st: Any, L: list) -> int:
        return roll_die(st, sides_f(st, L))
    return spread, sample, Type("int"), "roll", None


def roll_die(st: Any, n: int) -> int:
    """A roll of a die with n sides by the state's generator (none drawn for one side): what
    the roll's op draws without explicit chance, and what a compiled rollout writes for it."""
    if n < 1 or n > MAX_DIE_SIDES:
        check_sides(n)
    return 1 + rng_below(st, n) if n > 1 else 1


def _random_pick(bc: "BodyCompiler", r: A.RandomPick) -> Outcomes:
    """An element of a collection, equal elements merged (in order of first occurrence)."""
    src = bc.ex.compile(r.options)
    ot = strip_opt(bc.type_of(r.options))
    walk = iterator_for(ot)
    if walk is bag_items:
        walk = bag_walk                    # within the size limit

    def elements(st: Any, L: list) -> list:
        vals: list = walk(src(st, L))
        if not vals:
            raise RuleError("random pick from nothing (the collection is empty)")
        return vals

    def spread(st: Any, L: list) -> tuple[list, list[int]]:
        return merge_outcomes(elements(st, L))

    def sample(st: Any, L: list) -> Any:
        vals = elements(st, L)
        first = vals[0]
        if all(v == first for v in vals):   # one outcome: no draw, as with explicit chance
            return first
        return vals[st.randbelow(len(vals))]
    return spread, sample, ot.elem, "random pick", None


def in_bag(c: dict) -> list:
    """The distinct items of bag c (none with a count of 0), in order."""
    return [k for k in sorted(c) if c[k] > 0]


def drawable(c: Any) -> list:
    """The items a `draw from c` may take: a list's first, or a bag's distinct items; a rule
    error when there is none."""
    if not isinstance(c, dict):
        if not c:
            raise RuleError("cannot draw from an empty list")
        return c[:1]
    items = in_bag(c)
    if not items:
        raise RuleError("draw from nothing (the collection is empty)")
    return items


def sample_item(st: Any, c: Any) -> Any:
    """The item a `draw from c` takes without explicit chance: a list's first; from a bag, each
    distinct item weighted by its count, by the state's generator (one call of it unless only
    one distinct item is left: then, as with explicit chance, there is nothing to draw)."""
    items = drawable(c)
    if len(items) == 1:
        return items[0]
    r = rng_below(st, sum(c.values()))
    for k in items:                # (chance.weighted_index over the counts, written out)
        n = c[k]
        if r < n:
            return k
        r -= n
    raise ValueError("r is not below the total weight")


def draw_item(st: Any, c: Any) -> Any:
    """`draw from c` without explicit chance, as its op does it (sample_item, then the item
    taken out of c): what a compiled rollout writes for `let x = draw from c`."""
    v = sample_item(st, c)
    take_item(c, v)
    return v


def _draw(bc: "BodyCompiler", r: A.Draw) -> Outcomes:
    """An item taken from a bag (each distinct item weighted by its count) or a list (its first)."""
    coll = bc.collection(r.source)
    et = bc.type_of(r)

    def spread(st: Any, L: list) -> tuple[list, list[int]]:
        c = coll(st, L)
        items = drawable(c)
        return items, [c[k] for k in items] if isinstance(c, dict) else [1]

    def sample(st: Any, L: list) -> Any:
        return sample_item(st, coll(st, L))

    def take(st: Any, L: list, v: Any) -> None:
        take_item(coll(st, L), v)
    return spread, sample, et, "draw", take


def _draw_many(bc: "BodyCompiler", r: A.Draw, slot: int) -> Op:
    """`draw N from X`. From a list, its first N items (no chance: the order is the list's).
    From a bag, N draws one after another, each like `draw from` (an item weighted by its
    count; with explicit chance one Chance node per draw, the items drawn so far kept in a
    local slot, so the state stays a value); the drawn items are a bag."""
    coll = bc.collection(r.source)
    assert r.count is not None
    count_f = bc.ex.compile(r.count)
    acc = bc.hidden()
    t = strip_opt(bc.type_of(r))
    et = t.elem if t.kind in ("list", "bag") else Type("any")
    span = r.span
    labeller = text_as(et)

    def how_many(st: Any, L: list) -> int:
        n: int = count_f(st, L)
        if n < 0:
            raise RuleError(f"cannot draw {n} items")
        return n

    def commit(st: Any, v: Any) -> None:
        L = st.stack[-1][2]
        take_item(coll(st, L), v)
        L[acc][1].append(v)

    def draw_many(st: Any, fr: list) -> Any:
        L = fr[2]
        c = coll(st, L)
        if not isinstance(c, dict):
            n = how_many(st, L)
            if n > len(c):
                raise RuleError(f"cannot draw {n} items from a list of {len(c)}")
            L[slot] = c[:n]
            del c[:n]
            fr[1] += 1
            return None
        if L[acc] is None:
            L[acc] = [how_many(st, L), []]
        n, drawn = L[acc]
        while len(drawn) < n:
            items = in_bag(c)
            if not items:
                raise RuleError(f"cannot draw {n} items: the bag ran out after {len(drawn)}")
            if len(items) > 1 and st.explicit_chance:
                node = Chance(items, labeller, "draw", commit, span, [c[k] for k in items])
                node.vtype = et
                return node
            drawn.append(draw_item(st, c))      # as `draw from` draws each
        L[slot] = to_bag(drawn)
        L[acc] = None
        fr[1] += 1
        return None
    return draw_many
