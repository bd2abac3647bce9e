"""Mercator's abstract syntax tree: frozen attrs classes, one per grammar rule.

Every node carries a ``span`` (where it came from); equality and hashing ignore spans,
so two parses of equivalent text compare equal.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Any, Iterator, Optional, Union

import attrs


@attrs.frozen(repr=False)
class Span:
    """A region of a rulebook file: 1-based line and column, end exclusive."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NOSPAN = Span("<none>", 0, 0, 0, 0)


_FIELDS: dict[type, Optional[tuple[str, ...]]] = {}
_UNSEEN: Any = object()


def child_fields(t: type) -> Optional[tuple[str, ...]]:
    """The fields of an AST class other than its span, in declaration order (None for a class
    that is not an AST node: a Span, a str, an int...). Kept per class."""
    got = _FIELDS.get(t, _UNSEEN)
    if got is _UNSEEN:
        got = None if not attrs.has(t) or t is Span else \
            tuple(f.name for f in attrs.fields(t) if f.name != "span")
        _FIELDS[t] = got
    return got


_SEQ: Any = object()           # in _KIDS: a tuple or list, whose items are entered
_KIDS: dict[type, Any] = {tuple: _SEQ, list: _SEQ}


def _kids(t: type) -> Any:
    """How walk enters a value of class t: _SEQ (its items), a function giving its child
    fields' values in declaration order as a tuple, or None (not a node). Kept per class."""
    if issubclass(t, (tuple, list)):
        got: Any = _SEQ
    else:
        names = child_fields(t)
        if names is None:
            got = None
        elif len(names) == 1:
            one = attrgetter(names[0])

            def got(n: Any) -> tuple[Any, ...]:
                return (one(n),)
        else:
            got = attrgetter(*names) if names else (lambda n: ())
    _KIDS[t] = got
    return got


def walk(root: Any) -> Iterator[Any]:
    """Every AST node under root, root included (tuples of nodes entered, spans skipped)."""
    stack = [root]
    kids = _KIDS
    pop, extend = stack.pop, stack.extend
    while stack:
        n = pop()
        t = type(n)
        get = kids.get(t, _UNSEEN)
        if get is _UNSEEN:
            get = _kids(t)
        if get is None:
            continue
        if get is _SEQ:
            extend(n)
            continue
        yield n
        extend(get(n))


def _span() -> Any:
    return attrs.field(default=NOSPAN, eq=False, repr=False, kw_only=True)


# ---------------------------------------------------------------- types
@attrs.frozen(repr=False)
class SimpleType:
    name: str
    span: Span = _span()


@attrs.frozen(repr=False)
class GenericType:
    name: str
    args: tuple["TypeExpr", ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class OptionalType:
    inner: "TypeExpr"
    span: Span = _span()


TypeExpr = Union[SimpleType, GenericType, OptionalType]


# ----------------------------------------------------------- expressions
@attrs.frozen(repr=False)
class IntLit:
    value: int
    span: Span = _span()


@attrs.frozen(repr=False)
class StrLit:
    value: str
    span: Span = _span()


@attrs.frozen(repr=False)
class BoolLit:
    value: bool
    span: Span = _span()


@attrs.frozen(repr=False)
class NoneLit:
    span: Span = _span()


@attrs.frozen(repr=False)
class Name:
    name: str
    span: Span = _span()


@attrs.frozen(repr=False)
class ListLit:
    items: tuple["Expr", ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ListComp:
    elem: "Expr"
    var: str
    iter: "Expr"
    cond: Optional["Expr"]
    span: Span = _span()


@attrs.frozen(repr=False)
class MapComp:
    key: "Expr"
    value: "Expr"
    var: str
    iter: "Expr"
    cond: Optional["Expr"]
    span: Span = _span()


@attrs.frozen(repr=False)
class Entry:
    key: "Expr"
    value: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class MapLit:
    entries: tuple[Entry, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class IfExpr:
    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Or:
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class And:
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Not:
    operand: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Compare:
    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class In:
    item: "Expr"
    coll: "Expr"
    negated: bool
    span: Span = _span()


@attrs.frozen(repr=False)
class Range:
    lo: "Expr"
    hi: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class BinOp:
    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Neg:
    operand: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Field:
    obj: "Expr"
    name: str
    span: Span = _span()
    name_span: Span = _span()


@attrs.frozen(repr=False)
class Index:
    obj: "Expr"
    key: "Expr"
    span: Span = _span()


@attrs.frozen(repr=False)
class Call:
    name: str
    args: tuple["Expr", ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class GenCall:
    """``sum(expr for x in xs if cond)``: a builtin applied to a generator."""

    name: str
    elem: "Expr"
    var: str
    iter: "Expr"
    cond: Optional["Expr"]
    span: Span = _span()


Expr = Union[IntLit, StrLit, BoolLit, NoneLit, Name, ListLit, ListComp, MapLit, MapComp, IfExpr, Or, And,
             Not, Compare, In, Range, BinOp, Neg, Field, Index, Call, GenCall]


# ------------------------------------------------ suspending right-hand sides
@attrs.frozen(repr=False)
class ChoiceOne:
    options: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class ChoiceSubset:
    options: Expr
    lo: Expr
    hi: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class FieldChoice:
    name: str
    kind: Union[ChoiceOne, ChoiceSubset, "ChoiceRecord"]
    allow_pass: bool
    span: Span = _span()


@attrs.frozen(repr=False)
class ChoiceRecord:
    record: str
    fields: tuple[FieldChoice, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class Choose:
    who: Expr
    kind: Union[ChoiceOne, ChoiceSubset, ChoiceRecord]
    allow_pass: bool
    prompt: Optional[str]
    span: Span = _span()
    prompt_args: tuple["Expr", ...] = ()     # values shown after the prompt text
    openly: bool = False                     # the choice is stated aloud: its value is public


@attrs.frozen(repr=False)
class Simultaneous:
    var: str
    players: Expr
    choose: Choose
    span: Span = _span()


@attrs.frozen(repr=False)
class Roll:
    sides: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class RandomPick:
    options: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class Draw:
    source: "LValue"
    count: Optional[Expr] = None    # draw N from ...: N items (a bag or list); None: one item
    span: Span = _span()


Rhs = Union[Expr, Choose, Simultaneous, Roll, RandomPick, Draw]


# ------------------------------------------------------------- statements
@attrs.frozen(repr=False)
class LvField:
    name: str
    span: Span = _span()


@attrs.frozen(repr=False)
class LvIndex:
    key: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class LValue:
    root: str
    steps: tuple[Union[LvField, LvIndex], ...]
    span: Span = _span()
    call: Optional["Call"] = None     # set when the place starts with a function call


@attrs.frozen(repr=False)
class Block:
    stmts: tuple["Stmt", ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class Let:
    name: str
    rhs: Rhs
    span: Span = _span()
    type: Optional[TypeExpr] = None      # let x: T = ...   (optional annotation)


@attrs.frozen(repr=False)
class Assign:
    target: LValue
    op: str
    rhs: Rhs
    span: Span = _span()


@attrs.frozen(repr=False)
class Elif:
    cond: Expr
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class If:
    cond: Expr
    then: Block
    elifs: tuple[Elif, ...]
    else_: Optional[Block]
    span: Span = _span()


@attrs.frozen(repr=False)
class For:
    var: str
    iter: Expr
    where: Optional[Expr]
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class Repeat:
    count: Expr
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class While:
    cond: Expr
    max: Optional[int]
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class Move:
    item: Expr
    source: LValue
    dest: LValue
    span: Span = _span()


@attrs.frozen(repr=False)
class Add:
    item: Expr
    dest: LValue
    span: Span = _span()


@attrs.frozen(repr=False)
class Remove:
    item: Expr
    source: LValue
    span: Span = _span()


@attrs.frozen(repr=False)
class Shuffle:
    target: LValue
    span: Span = _span()


@attrs.frozen(repr=False)
class Emit:
    event: str
    args: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class CallStmt:
    name: str
    args: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class Return:
    value: Optional[Expr]
    span: Span = _span()


@attrs.frozen(repr=False)
class Break:
    span: Span = _span()


@attrs.frozen(repr=False)
class EndGame:
    span: Span = _span()


@attrs.frozen(repr=False)
class Log:
    parts: tuple[Expr, ...]
    span: Span = _span()
    # who sees the line: None = each part as its information-flow label allows,
    # "public" = every seat (`log public:`), an expression = only that player (`log to p:`)
    audience: Union[None, str, "Expr"] = None


@attrs.frozen(repr=False)
class Empty:
    span: Span = _span()


@attrs.frozen(repr=False)
class DealSetting:
    """`among = e`, `dealer = e`, `about = e`, `terms = [give, get]`, `quiet = e`, `limit = e`
    inside a deal."""

    name: str
    expr: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class DealRule:
    """`valid(o) = e`, `binding(o) = e` or `proceeds(o) = e` inside a deal."""

    kind: str
    var: str
    expr: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class DealAccepted:
    """`accepted(o) { ... }` inside a deal: what runs when an offer is accepted."""

    kind: str
    var: str
    body: Block
    span: Span = _span()


DealClause = Union[DealSetting, DealRule, DealAccepted]


@attrs.frozen(repr=False)
class Deal:
    """`deal on T { settings and clauses }`: a window of negotiation over table field T."""

    table: str
    clauses: tuple[DealClause, ...]
    span: Span = _span()
    table_span: Span = attrs.field(default=NOSPAN, eq=False, repr=False, kw_only=True)

    def setting(self, name: str) -> Optional[Expr]:
        """The expression of the first setting so named, or None."""
        return next((c.expr for c in self.clauses
                     if isinstance(c, DealSetting) and c.name == name), None)

    def blocks(self) -> list["Block"]:
        """The bodies of its accepted(o) and closed(x) clauses."""
        return [c.body for c in self.clauses if isinstance(c, DealAccepted)]

    def clause(self, kind: str) -> Optional[Union[DealRule, DealAccepted]]:
        """The first rule or accepted clause of that kind, or None."""
        return next((c for c in self.clauses
                     if not isinstance(c, DealSetting) and c.kind == kind), None)

    def terms(self) -> tuple[str, ...]:
        """The terms its offers name: `terms = [give, get]` (give alone when not set)."""
        t = self.setting("terms")
        if isinstance(t, ListLit):
            return tuple(x.name for x in t.items if isinstance(x, Name))
        return ("give",)


Stmt = Union[Let, Assign, If, For, Repeat, While, Move, Add, Remove, Shuffle, Emit, CallStmt,
             Return, Break, EndGame, Log, Deal, Empty]


# ----------------------------------------------------------- declarations
@attrs.frozen(repr=False)
class GameDecl:
    name: str
    min_players: int
    max_players: int
    span: Span = _span()


@attrs.frozen(repr=False)
class UseDecl:
    path: str
    span: Span = _span()


@attrs.frozen(repr=False)
class EnumDecl:
    name: str
    members: tuple[str, ...]
    span: Span = _span()
    member_spans: tuple[Span, ...] = attrs.field(default=(), eq=False, repr=False, kw_only=True)


@attrs.frozen(repr=False)
class ConstDecl:
    name: str
    type: Optional[TypeExpr]
    value: Expr
    keyword: str = "const"
    span: Span = _span()


@attrs.frozen(repr=False)
class FieldDecl:
    name: str
    type: TypeExpr
    default: Optional[Expr]
    visibility: str
    span: Span = _span()


@attrs.frozen(repr=False)
class RecordDecl:
    name: str
    fields: tuple[FieldDecl, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class BundlePart:
    """One part of a bundle: `name: amount of field [in units of N]` or `name: items of field`."""

    name: str
    kind: str                      # amount | items (as written: the checker says if neither)
    field: str                     # a player field of the giver
    unit: Union[int, str, None] = None   # amount parts: a number or a constant's name
    span: Span = _span()
    unit_word: str = "units"       # the word of 'in units of N' as written
    openly: bool = False           # an owner-only field, shown in every offer that names it
    to: Optional[str] = None       # the receiver's field what he receives lands in (`to F`)


@attrs.frozen(repr=False)
class ViewRow:
    """`row "label" [in unit] = expr` (or `track ... [on spaces]`: a list or map, one entry a
    cell; `grid ... [with contents]`: rows of cells; `graph ... [with contents] [on positions]`:
    nodes and edges)."""

    kind: str                      # row | track | grid | graph (as written: the checker says if neither)
    label: str
    unit: Optional[str]
    expr: Expr
    span: Span = _span()
    unit_quoted: bool = False      # the unit was written as a string ("in \"pesos a share\"")
    extra: Optional[Expr] = None   # `with`: a graph's or grid's map node -> what stands on it
    on: Optional[Expr] = None      # `on`: a track's spaces, or a graph's map node -> [x, y]


@attrs.frozen(repr=False)
class ViewSection:
    """`section "Title" { rows }`: a named group of rows about the whole table."""

    word: str                      # 'section' as written
    title: str
    rows: tuple[ViewRow, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewPanel:
    """`panel p { rows }`: the same rows for every player p, one column per seat."""

    word: str                      # 'panel' as written
    var: str
    rows: tuple[ViewRow, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewBookkeeping:
    """`bookkeeping f, g`: state fields that are never shown to people."""

    word: str                      # 'bookkeeping' as written
    names: tuple[str, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewReveal:
    """`reveal at end: f, g`: owner-only or secret state fields every seat is shown once the game
    is over (the final count)."""

    word: str                      # 'reveal' as written
    at: str                        # 'at' as written
    names: tuple[str, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewLabel:
    """`label s: Space = "costs", space_cost(s), "pesos"`: what an option of a type does."""

    word: str                      # 'label' as written
    var: str
    type: TypeExpr
    chooser: Optional[str]         # `for p`: the player choosing, as a name for the parts
    parts: tuple[Expr, ...]
    at_word: Optional[str] = None  # 'at' as written, in `label b: T at "prompt" = ...`
    at: Optional[str] = None       # the start of the prompts of the decisions it describes
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewActionLabel:
    """`label mortgage(p, g) = "gets", mortgage_value, "pesos"`: what an any-time action does,
    its parameters named as the label's locals (the first, the player taking it)."""

    word: str                      # 'label' as written
    action: str
    params: tuple[str, ...]
    parts: tuple[Expr, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ViewDecl:
    """`view { ... }`: what a person sees of the game."""

    items: tuple[Union[ViewSection, ViewPanel, ViewBookkeeping, ViewReveal, ViewLabel,
                       ViewActionLabel], ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class BoundItem:
    """One line of `bounds { ... }`: a word and one number or a range lo..hi."""

    word: str
    lo: int
    hi: Optional[int]              # None: one number (`decisions 600`)
    span: Span = _span()
    field: Optional[str] = None    # `length FIELD N`: the field it bounds


@attrs.frozen(repr=False)
class BoundsDecl:
    """`bounds { ... }`: sizes the rules guarantee (docs/language.md, "Bounds")."""

    items: tuple[BoundItem, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class BotItem:
    """One line of `bots { ... }`: a setting's word and its value as written (`trust 1`,
    `trust 0.5`, `depth end`)."""

    word: str
    value: str
    span: Span = _span()


@attrs.frozen(repr=False)
class BotsDecl:
    """`bots { ... }`: the search settings this rulebook's searching seats take where their
    spec names none (docs/language.md §2.19d); not a rule of the game."""

    items: tuple[BotItem, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class BundleDecl:
    """`bundle B { parts }`: what an offer can carry; a record type with a field per part."""

    name: str
    parts: tuple[BundlePart, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class PlayerState:
    fields: tuple[FieldDecl, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class TableState:
    fields: tuple[FieldDecl, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class Param:
    name: str
    type: TypeExpr
    span: Span = _span()


@attrs.frozen(repr=False)
class EventDecl:
    name: str
    params: tuple[Param, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class SetupDecl:
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class PhaseDecl:
    name: str
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class RoundDecl:
    name: str
    max_rounds: Union[int, str, None]     # a number or the name of an int constant
    phases: tuple[PhaseDecl, ...]
    span: Span = _span()


@attrs.frozen(repr=False)
class ProcDecl:
    name: str
    params: tuple[Param, ...]
    result: Optional[TypeExpr]
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class FnDecl:
    name: str
    params: tuple[Param, ...]
    result: TypeExpr
    body: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class TriggerDecl:
    event: str
    names: tuple[str, ...]
    label: Optional[str]
    cond: Optional[Expr]
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class ActionDecl:
    name: str
    params: tuple[Param, ...]
    cond: Optional[Expr]
    body: Block
    span: Span = _span()


@attrs.frozen(repr=False)
class InvariantDecl:
    text: str
    expr: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class EndDecl:
    round: str
    cond: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class ScoreDecl:
    var: str
    expr: Expr
    wins: Optional[str] = None     # win_order: "lowest" | "highest" as written; None: highest
    span: Span = _span()


@attrs.frozen(repr=False)
class EstimateDecl:
    """`estimate p: EXPR`: a position estimate for the bots (judged at a search's cut-off)."""
    var: str
    expr: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class PreferDecl:
    """`prefer b: T for p at "prompt" = EXPR`: how much a casual player likes each option of
    type T (the pass counts 0), for the bots' rollouts; `for p` names the chooser, `at` keeps
    the decisions whose prompt begins so."""
    var: str
    type: TypeExpr
    chooser: Optional[str]
    expr: Expr
    at_word: Optional[str] = None  # 'at' as written
    at: Optional[str] = None
    span: Span = _span()


@attrs.frozen(repr=False)
class TiebreakDecl:
    var: str
    expr: Expr
    wins: Optional[str] = None     # win_order: "lowest" | "highest" as written; None: highest
    span: Span = _span()


Decl = Union[GameDecl, UseDecl, EnumDecl, ConstDecl, RecordDecl, PlayerState, TableState, EventDecl,
             SetupDecl, RoundDecl, ProcDecl, FnDecl, TriggerDecl, ActionDecl, InvariantDecl, EndDecl,
             ScoreDecl, TiebreakDecl, EstimateDecl, PreferDecl, BotsDecl]


@attrs.frozen(repr=False)
class EligibleDecl:
    var: str
    expr: Expr
    span: Span = _span()


@attrs.frozen(repr=False)
class StatDecl:
    name: str
    event: str
    names: tuple[str, ...]
    cond: Optional[Expr]
    amount: Optional[Expr] = None       # `as EXPR`: each event adds this (else 1)
    span: Span = _span()


@attrs.frozen(repr=False)
class VariantDecl:
    name: str
    base: str
    span: Span = _span()


@attrs.frozen(repr=False)
class ReplaceDecl:
    decl: Any
    span: Span = _span()


@attrs.frozen(repr=False)
class RemoveDecl:
    kind: str
    name: str
    span: Span = _span()


@attrs.frozen(repr=False)
class ExtendDecl:
    """A variant's `extend enum E { ... }` / `extend record R { ... }` / `extend view { ... }`:
    more members, fields or rows."""

    decl: Any              # an EnumDecl or RecordDecl holding only the new members / fields
    span: Span = _span()


@attrs.frozen(repr=False)
class PhaseInsert:
    phase: PhaseDecl
    where: str          # before | after
    anchor: str
    span: Span = _span()


@attrs.frozen(repr=False)
class Rulebook:
    """One parsed file: its declarations in source order."""

    items: tuple[Decl, ...]
    path: str = attrs.field(default="<string>", eq=False)


# ---------------------------------------------------------------- one repr for every node
_SHOWN: dict[type, tuple[str, ...]] = {}


def _repr(self: Any) -> str:
    """attrs' text of a node, `Name(field=value, ...)` with the fields it shows, written once
    for all the classes above (attrs writes one a class, repr=False here: a third of what
    importing this module took)."""
    t = type(self)
    names = _SHOWN.get(t)
    if names is None:
        names = _SHOWN[t] = tuple(f.name for f in attrs.fields(t) if f.repr)
    return f"{t.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"


for _cls in list(globals().values()):
    if isinstance(_cls, type) and _cls.__module__ == __name__ and attrs.has(_cls):
        setattr(_cls, "__repr__", _repr)
del _cls
