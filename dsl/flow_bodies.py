"""The statements of one body (setup, phase, procedure, trigger, action) as an information-flow
system: what is assigned to each local, the calls and emits that pass labels to other bodies,
what it returns, and the shown expressions and field assignments the analysis labels and checks.

Flow-insensitive: a local's label is the join of everything ever assigned to it in the body.
Conditions of `if` / `while` / `where` are not followed (implicit flows are the game).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, CheckedRulebook
from mercator.dsl.flow_exprs import ExprFlow
from mercator.dsl.flow_taint import NOTHING, Formula, Key, Taint
from mercator.dsl.infoflow import conjuncts
from mercator.dsl.types import ANY, strip_opt


@attrs.frozen
class Site:
    """A procedure call or an emit: where the arguments go, their formulas and local slots."""

    target: str
    args: tuple[Formula, ...]
    slots: tuple[Optional[int], ...]


@attrs.frozen
class Fields:
    """The value of a record chosen field by field: each field's formula, and the whole's."""

    parts: tuple[tuple[str, Formula], ...]
    whole: Formula


Value = Union[Formula, Site, Fields]


@attrs.frozen
class Shown:
    """An expression some seat is shown: a log part ('log'), options or a prompt value."""

    kind: str                 # log | options | prompt | promise
    node: Any
    formula: Formula
    who: Optional[int]        # the chooser's local slot (options and prompts)
    what: str = ""            # a promise: "table: part" (the offers' table, the bundle part)


@attrs.frozen
class Store:
    """An assignment to a state field (checked by W272)."""

    node: A.Assign
    field: str
    visibility: str
    player: Optional[int]     # the target player's local slot, for a player field
    value: Value
    keys: Formula             # the index keys after the field: where in it the value goes
    owner_map: bool = False   # an owner-only map<player, T> table field (player: the key's slot)


@attrs.define
class System:
    """One body's flow: its locals' assignments and everything it passes on or shows."""

    body: Body
    nparams: int
    assigns: list[tuple[Key, Formula]] = attrs.field(factory=list)
    results: list[tuple[Key, Site]] = attrs.field(factory=list)     # let x = proc(...)
    calls: list[Site] = attrs.field(factory=list)                   # every procedure call
    emits: list[Site] = attrs.field(factory=list)
    returns: list[Formula] = attrs.field(factory=list)
    labels: list[tuple[int, Formula]] = attrs.field(factory=list)   # node id -> its label
    shown: list[Shown] = attrs.field(factory=list)
    stores: list[Store] = attrs.field(factory=list)
    reassigned: set[int] = attrs.field(factory=set)                 # locals given a new value by '='
    when: list[Formula] = attrs.field(factory=list)                 # an action's 'when' conjuncts


class BodyFlow:
    """Compiles one body into its System."""

    def __init__(self, rb: CheckedRulebook, summaries: dict[str, Formula], body: Body):
        self.rb = rb
        self.refs = rb.refs
        self.types = rb.types
        self.x = ExprFlow(rb, summaries, fielded=True)
        self.sys = System(body, len(body.params))
        self._stmts: dict[type, Callable[[Any], None]] = {
            A.Let: self.s_let, A.Assign: self.s_assign, A.If: self.s_if, A.For: self.s_for,
            A.Repeat: self.s_repeat, A.While: self.s_while, A.Move: self.s_move, A.Add: self.s_add,
            A.Remove: self.s_remove, A.Emit: self.s_emit, A.CallStmt: self.s_call,
            A.Return: self.s_return, A.Log: self.s_log, A.Deal: self.s_deal,
        }

    def compile(self) -> System:
        """Walk the body (and an action's 'when') once."""
        b = self.sys.body
        if b.kind == "action" and b.cond is not None:
            for c in conjuncts(b.cond):
                f = self.x.expr(c)
                self.sys.when.append(f)
                # its label as the engine sees it: the acting player and the parameters' values
                # (listed statically) are public, so only what it reads from the state counts
                self.sys.labels.append((id(c), Formula(f.const)))
        if b.block is not None:
            self.block(b.block)
        return self.sys

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block) -> None:
        """Every statement of a block."""
        for s in b.stmts:
            m = self._stmts.get(type(s))
            if m is not None:
                m(s)

    def _into(self, key: Key, v: Value) -> None:
        if isinstance(v, Site):
            self.sys.results.append((key, v))
        elif isinstance(v, Fields):
            slot = key if isinstance(key, int) else key[0]
            for name, f in v.parts:
                self.sys.assigns.append(((slot, name), f))
        else:
            self.sys.assigns.append((key, v))

    def s_let(self, s: A.Let) -> None:
        v = self.rhs(s.rhs)
        slot = self.refs.get(id(s))
        if isinstance(slot, int):
            self._into(slot, v)

    def s_assign(self, s: A.Assign) -> None:
        v = self.rhs(s.rhs)
        lv = s.target
        slot = self._local_root(lv)
        if slot is not None:
            if not lv.steps:
                if s.op == "=":
                    self.sys.reassigned.add(slot)
                self._into(slot, v)
            else:      # a part of a local changes: the whole local holds the value and the keys
                self._into(slot, v if isinstance(v, Site) else _whole(v))
                self._into(slot, self.x.exprs(st.key for st in lv.steps
                                              if isinstance(st, A.LvIndex)))
        target = self._target(lv)
        if target is not None:
            name, vis, player, keys = target
            self.sys.stores.append(Store(s, name, vis, player, v, keys,
                                         lv.call is None and name in self.x.owner_maps))

    def _target(self, lv: A.LValue) -> Optional[tuple[str, str, Optional[int], Formula]]:
        """The state field an assignment changes: (name, visibility, player slot, index keys
        after it), or None for a local."""
        ref = self.refs.get(id(lv))
        head: Optional[int] = None
        if lv.call is not None:
            head = self.x.slot(lv.call)
        elif isinstance(ref, tuple) and ref[0] == "local":
            head = int(ref[1])
        for i, st in enumerate(lv.steps):
            if isinstance(st, A.LvField) and strip_opt(self.types.get(id(st), ANY)).kind == "player":
                vis = self.x.player_vis.get(st.name, "public")
                keys = self.x.exprs(k.key for k in lv.steps[i + 1:] if isinstance(k, A.LvIndex))
                return st.name, vis, head if i == 0 else None, keys
        if lv.call is None and isinstance(ref, tuple) and ref[0] == "table":
            if lv.root in self.x.owner_maps and lv.steps and isinstance(lv.steps[0], A.LvIndex):
                # m[k] = v: the entry of the player the local k names (None: no one player's)
                keys = self.x.exprs(k.key for k in lv.steps[1:] if isinstance(k, A.LvIndex))
                return lv.root, "owner", self.x.slot(lv.steps[0].key), keys
            keys = self.x.exprs(k.key for k in lv.steps if isinstance(k, A.LvIndex))
            return lv.root, self.x.table_vis.get(lv.root, "public"), None, keys
        return None

    def s_if(self, s: A.If) -> None:
        self.block(s.then)
        for e in s.elifs:
            self.block(e.body)
        if s.else_ is not None:
            self.block(s.else_)

    def s_for(self, s: A.For) -> None:
        slot = self.refs.get(id(s))
        if isinstance(slot, int):
            self.sys.assigns.append((slot, self.x.expr(s.iter)))
        self.block(s.body)

    def s_repeat(self, s: A.Repeat) -> None:
        self.block(s.body)

    def s_while(self, s: A.While) -> None:
        self.block(s.body)

    def s_deal(self, s: A.Deal) -> None:
        # The offers are public (the checker keeps hidden fields out of bundles, but for the
        # `openly` parts an offer shows by declaration, and out of the clauses), so the clauses'
        # variables hold public values; the steps of building an offer are shown to the drafter
        # alone (engine/deals.py). One clause may read hidden data: `proceeds(o)`, from its
        # maker (E151 allows o.maker's owner-only fields), and a posted promise shows what it
        # names: a part not `openly` computed from hidden data puts it on the public table
        # (W272). What the accepted and closed blocks do counts like any other statement.
        self._promise(s)
        for body in s.blocks():
            self.block(body)

    def _promise(self, s: A.Deal) -> None:
        """The parts of the promise a posted offer shows, as stores into its public table."""
        rule = s.clause("proceeds")
        if not isinstance(rule, A.DealRule) or "promise" not in s.terms():
            return
        bundle = self._bundle_of(s.table)
        if bundle is None:
            return
        per: dict[str, Any] = {}
        if isinstance(rule.expr, A.MapLit):      # a record written out: each part its own
            per = {e.key.name: e.value for e in rule.expr.entries if isinstance(e.key, A.Name)}
        whole = []                                # the parts the expression gives as one
        for part in bundle.parts:
            if part.openly:
                continue                          # the offer shows it: the rules say so
            if part.name in per:
                e = per[part.name]
                self.sys.shown.append(Shown("promise", e, self.x.expr(e), None,
                                            f"{s.table}: '{part.name}'"))
            else:
                whole.append(f"'{part.name}'")
        if whole:
            parts = whole[0] if len(whole) == 1 else ", ".join(whole[:-1]) + " or " + whole[-1]
            self.sys.shown.append(Shown("promise", rule.expr, self.x.expr(rule.expr), None,
                                        f"{s.table}: {parts}"))

    def _bundle_of(self, table: str) -> Optional[A.BundleDecl]:
        """The bundle the offers of a table field carry (None when it is no table of offers)."""
        f = next((f for f in self.rb.table_fields if f.name == table), None)
        if f is None:
            return None
        t = strip_opt(f.type)
        ot = strip_opt(t.elem) if t.kind == "list" and t.elem is not None else None
        give = ot.field("give") if ot is not None and ot.kind == "record" else None
        if give is None:
            return None
        return next((it for it in self.rb.items
                     if isinstance(it, A.BundleDecl) and it.name == give.name), None)

    def _local_root(self, lv: A.LValue) -> Optional[int]:
        """The local a place is part of (not through a player: that is a state field)."""
        ref = self.refs.get(id(lv))
        if lv.call is None and isinstance(ref, tuple) and ref[0] == "local" and not any(
                isinstance(st, A.LvField) and strip_opt(self.types.get(id(st), ANY)).kind ==
                "player" for st in lv.steps):
            return int(ref[1])
        return None

    def s_move(self, s: A.Move) -> None:
        dest = self._local_root(s.dest)
        if dest is not None:
            self.sys.assigns.append((dest, self.x.expr(s.item).join(self.place(s.source))))
        src = self._local_root(s.source)
        if src is not None:
            self.sys.assigns.append((src, self.x.expr(s.item)))

    def s_add(self, s: A.Add) -> None:
        dest = self._local_root(s.dest)
        if dest is not None:
            self.sys.assigns.append((dest, self.x.expr(s.item)))

    def s_remove(self, s: A.Remove) -> None:
        src = self._local_root(s.source)
        if src is not None:
            self.sys.assigns.append((src, self.x.expr(s.item)))

    def _site(self, target: str, args: tuple[Any, ...]) -> Site:
        return Site(target, tuple(self.x.expr(a) for a in args), tuple(self.x.slot(a) for a in args))

    def s_emit(self, s: A.Emit) -> None:
        self.sys.emits.append(self._site(s.event, s.args))

    def s_call(self, s: A.CallStmt) -> None:
        if self.refs.get(id(s), ("",))[0] == "proc":
            self.sys.calls.append(self._site(s.name, s.args))

    def s_return(self, s: A.Return) -> None:
        if s.value is not None:
            self.sys.returns.append(self.x.expr(s.value))

    def s_log(self, s: A.Log) -> None:
        for p in s.parts:
            if s.audience is None:
                f = self.x.expr(p)
                self.sys.labels.append((id(p), f))
                self.sys.shown.append(Shown("log", p, f, None))
            else:       # the rules say who sees the line: all of it
                self.sys.labels.append((id(p), NOTHING))

    # ------------------------------------------------------------ right-hand sides
    def place(self, lv: A.LValue) -> Formula:
        """The formula of reading a place (the source of a draw or a move)."""
        ref = self.refs.get(id(lv))
        head: Optional[int] = None
        if lv.call is not None:
            out = self.x.expr(lv.call)
            head = self.x.slot(lv.call)
        elif isinstance(ref, tuple) and ref[0] == "local":
            head = int(ref[1])
            out = Formula(deps=frozenset({head}))
        elif isinstance(ref, tuple) and ref[0] == "table":
            vis = self.x.table_vis.get(lv.root, "public")
            if lv.root in self.x.owner_maps:
                first = lv.steps[0] if lv.steps else None
                out = (Formula(self.x.entry(lv.root, first.key)) if isinstance(first, A.LvIndex)
                       else Formula(Taint(owned=frozenset({lv.root}), unnamed=True)))
            else:
                out = NOTHING if vis == "public" else Formula(Taint(hidden=frozenset({lv.root})))
        else:
            out = NOTHING
        for i, st in enumerate(lv.steps):
            if isinstance(st, A.LvIndex):
                out = out.join(self.x.expr(st.key))
                continue
            if strip_opt(self.types.get(id(st), ANY)).kind != "player":
                continue
            vis = self.x.player_vis.get(st.name, "public")
            who = head if i == 0 else None
            if vis == "secret":
                out = out.plus(Taint(hidden=frozenset({st.name})))
            elif vis == "owner":
                out = out.plus(Taint(owners=frozenset({who}), owned=frozenset({st.name}))
                               if who is not None else
                               Taint(owned=frozenset({st.name}), unnamed=True))
        return out

    def _hidden_deck(self, lv: A.LValue) -> Optional[str]:
        """The secret field a draw takes from (nobody has seen the item), or None."""
        ref = self.refs.get(id(lv))
        if lv.call is None and isinstance(ref, tuple) and ref[0] == "table" and \
                self.x.table_vis.get(lv.root, "public") == "secret":
            return lv.root
        for st in lv.steps:
            if isinstance(st, A.LvField) and strip_opt(self.types.get(id(st), ANY)).kind == \
                    "player" and self.x.player_vis.get(st.name) == "secret":
                return st.name
        return None

    def rhs(self, r: Any) -> Value:
        """The value of a right-hand side: a formula, a procedure call, or a record's fields."""
        if isinstance(r, A.Choose):
            return self.choose(r)
        if isinstance(r, A.Simultaneous):
            return self.simultaneous(r)
        if isinstance(r, A.Roll):
            return NOTHING
        if isinstance(r, A.RandomPick):
            return self.x.expr(r.options)
        if isinstance(r, A.Draw):
            deck = self._hidden_deck(r.source)
            got = Formula(Taint(drawn=frozenset({deck}))) if deck is not None else \
                self.place(r.source)
            # draw N: how many were drawn is seen too
            return got.join(self.x.expr(r.count)) if r.count is not None else got
        if isinstance(r, A.Call) and self.refs.get(id(r), ("",))[0] == "proc":
            site = self._site(r.name, r.args)
            self.sys.calls.append(site)
            return site
        return self.x.expr(r)

    def _asked(self, e: Any, who: Optional[int]) -> Formula:
        """The formula of a part of a decision. Every seat sees who is asked (the pending
        decision names him), so the chooser's identity adds nothing to it."""
        f = self.x.expr(e)
        if who is not None and who in f.deps:
            f = Formula(f.const, f.deps - {who})
        return f

    def _options(self, kind: Any, who: Optional[int]) -> Formula:
        """The formula of a 'one of' / 'subset of' (options, and a subset's size bounds)."""
        f = self._asked(kind.options, who)
        self.sys.labels.append((id(kind.options), f))
        if isinstance(kind, A.ChoiceSubset):
            f = f.join(self._asked(kind.lo, who)).join(self._asked(kind.hi, who))
        self.sys.labels.append((id(kind), f))      # the 'one of' / 'subset of' node as a whole
        self.sys.shown.append(Shown("options", kind.options, f, who))
        return f

    def choose(self, c: A.Choose) -> Value:
        """A decision: the chosen value has the label of its options, or none when 'openly'."""
        who = self.x.slot(c.who)
        for a in c.prompt_args:
            f = self._asked(a, who)
            self.sys.labels.append((id(a), f))
            self.sys.shown.append(Shown("prompt", a, f, who))
        if isinstance(c.kind, A.ChoiceRecord):
            return self._choose_record(c, c.kind, who)
        f = self._options(c.kind, who)
        value = NOTHING if c.openly else f
        self.sys.labels.append((id(c), value))
        return value

    def _choose_record(self, c: A.Choose, k: A.ChoiceRecord, who: Optional[int]) -> Value:
        parts: list[tuple[str, Formula]] = []
        slots: set[int] = set()
        for fc in k.fields:
            if isinstance(fc.kind, A.ChoiceRecord):
                continue
            f = self._options(fc.kind, who)
            if c.openly:
                f = NOTHING
            slot = self.refs.get(id(fc))
            if isinstance(slot, int):
                slots.add(slot)
                self.sys.assigns.append((slot, f))
            parts.append((fc.name, f))
        # the field locals end with the decision: owner data they name is no one player's after it
        def drop(f: Formula) -> Formula:
            return Formula(f.const.remap(lambda o: None if o in slots else o), f.deps)
        out = tuple((n, drop(f)) for n, f in parts)
        whole = NOTHING
        for _, f in out:
            whole = whole.join(f)
        self.sys.labels.append((id(c), whole))
        return Fields(out, whole)

    def simultaneous(self, r: A.Simultaneous) -> Value:
        """Every listed player chooses: the map holds each one's choice, so owner data of the
        chooser variable is no one player's in it; public when the choices are made 'openly'."""
        slot = self.refs.get(id(r))
        if isinstance(slot, int):
            self.sys.assigns.append((slot, self.x.expr(r.players)))
        v = _whole(self.choose(r.choose))
        if r.choose.openly:
            v = NOTHING
        elif isinstance(slot, int) and slot in v.const.owners:
            v = Formula(v.const.remap(lambda o: None if o == slot else o), v.deps)
        self.sys.labels.append((id(r), v))
        return v


def _whole(v: Value) -> Formula:
    if isinstance(v, Fields):
        return v.whole
    if isinstance(v, Site):
        return NOTHING
    return v


def compile_body(rb: CheckedRulebook, summaries: dict[str, Formula], body: Body) -> System:
    """The flow system of one body."""
    return BodyFlow(rb, summaries, body).compile()
