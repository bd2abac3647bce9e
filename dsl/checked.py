"""The checked rulebook: the AST plus everything the checker worked out about it."""
from __future__ import annotations

from typing import Any, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.infoflow import FlowInfo
from mercator.dsl.types import Type


@attrs.define
class FieldInfo:
    """A per-player or table state field."""

    name: str
    type: Type
    default: Optional[A.Expr]
    visibility: str
    decl: A.FieldDecl


@attrs.define
class Body:
    """Something that runs as a frame: a proc, phase, setup, trigger, action or a pure fn."""

    name: str
    kind: str                       # proc | fn | phase | setup | trigger | action | expr
    params: tuple[str, ...]
    param_types: tuple[Type, ...]
    result: Optional[Type]
    nslots: int
    decl: Any
    block: Optional[A.Block] = None
    expr: Optional[A.Expr] = None
    cond: Optional[A.Expr] = None   # trigger/action 'when'
    event: Optional[str] = None     # trigger's event
    span: A.Span = A.NOSPAN


@attrs.define
class Stage:
    """One `round` declaration: a stage of the game, its phases and its `end after` condition.
    The stages run in the order declared; the game is over after the last one."""

    name: str
    decl: A.RoundDecl
    phases: list[Body]
    end: Optional[Body] = None


@attrs.define
class ViewLine:
    """One checked row of a view. `field`: the state field the row shows whole (("table", name)
    or ("player", name)), shown as the generic view shows it; otherwise `shown` says who may see
    the computed value: 'public' (every seat) or 'owner' (only the panel's player), set by
    dsl/flow_views.py from the information-flow analysis."""

    kind: str                       # row | track | grid | graph
    label: str
    unit: Optional[str]
    expr: A.Expr
    type: Type
    nslots: int
    span: A.Span
    field: Optional[tuple[str, str]] = None
    shown: str = "public"
    extra: Optional[A.Expr] = None          # `with`: a graph's or grid's node -> what stands on it
    extra_type: Optional[Type] = None
    on: Optional[A.Expr] = None             # `on`: a track's spaces, a graph's node -> [x, y]
    on_type: Optional[Type] = None
    owned: frozenset[str] = frozenset()     # a computed row's owner-only fields (shown = 'owner')


@attrs.define
class Preference:
    """`prefer v: T for p at "prompt" = EXPR`: how much a casual player likes each option of
    type T at the decisions in `sites` ((path, line, col) of each), for the bots' rollouts;
    the option in local 0, with `for p` the chooser in local 1."""

    var: str
    type: Type
    expr: A.Expr
    nslots: int
    span: A.Span
    sites: frozenset[tuple[str, int, int]]
    chooser: bool = False
    at: Optional[str] = None


@attrs.define
class OptionLabel:
    """A view's `label v: T = parts`: what an option of type T does, shown after its label at
    the decisions offering that type (`sites`: the (path, line, col) of each such decision)."""

    var: str
    type: Type
    parts: list[tuple[A.Expr, Type]]
    nslots: int
    span: A.Span
    sites: frozenset[tuple[str, int, int]]
    chooser: bool = False           # `for p`: p (local 1) is the player choosing
    shown: str = "public"           # 'owner': reads the chooser's hidden fields (dsl/flow_views.py)
    action: Optional[str] = None    # `label NAME(p, ...)`: the any-time action it describes
                                    # (its arguments the locals, p in local 0, the one taking it)
    text: bool = False              # `text v: T = parts`: how a value of T is written for people
    at: Optional[str] = None        # `label v: T at "prompt"`: the decisions whose prompt begins so

    @property
    def chooser_slot(self) -> Optional[int]:
        """The local holding the player choosing (whose own hidden fields the label may read)."""
        return 0 if self.action is not None else (1 if self.chooser else None)


@attrs.define
class Bounds:
    """A rulebook's `bounds`: the ranges of integer options and final scores, the most
    decisions a game takes and the most items of a list a decision offers (None: not declared),
    with the span of each line (where a breach found in play is reported)."""

    options: Optional[tuple[int, int]]
    score: Optional[tuple[int, int]]
    decisions: Optional[int]
    lists: Optional[int]
    decl: A.BoundsDecl
    spans: dict[str, A.Span] = attrs.field(factory=dict)
    lengths: dict[str, int] = attrs.field(factory=dict)   # `length FIELD N`, by field name
    moves: Optional[int] = None       # the most action ids the players take in a game
    values: Optional[tuple[int, int]] = None   # every number an observation tensor shows


@attrs.define
class CheckedView:
    """A rulebook's `view`: its sections (title, rows), its per-player panel rows, the
    bookkeeping fields, and the fields some row reads (not repeated raw after the view)."""

    sections: list[tuple[str, list[ViewLine]]]
    panel: list[ViewLine]
    panel_var: str
    bookkeeping: frozenset[str]
    covered: frozenset[tuple[str, str]]
    decl: A.ViewDecl
    labels: list[OptionLabel] = attrs.field(factory=list)
    scoring: list[ViewLine] = attrs.field(factory=list)   # `scoring p { ... }`: the score's parts
    scoring_var: str = ""
    revealed: frozenset[str] = frozenset()    # `reveal at end: ...`: hidden fields every seat
                                              # sees once the game is over
    # who may see each tie-break's value, for the final screen (dsl/flow_views.py): ("public" |
    # "owner" | "secret", the owner-only fields it reads)
    tiebreaks: list[tuple[str, frozenset[str]]] = attrs.field(factory=list)
    # `text v: T = parts`: how values of an enum or record type are written for people
    texts: list[OptionLabel] = attrs.field(factory=list)


@attrs.define
class CheckedRulebook:
    """A rulebook that passed the checker, with resolution and type tables keyed by node id."""

    path: str
    sources: dict[str, str]
    items: tuple[Any, ...]
    game: A.GameDecl
    enums: dict[str, Type]
    member_of: dict[str, tuple[Type, int]]
    records: dict[str, Type]
    record_decls: dict[str, A.RecordDecl]
    consts: list[A.ConstDecl]
    const_types: dict[str, Type]
    player_fields: list[FieldInfo]
    table_fields: list[FieldInfo]
    events: dict[str, tuple[Type, ...]]
    procs: dict[str, Body]
    fns: dict[str, Body]
    setup: Optional[Body]
    stages: list[Stage]             # the round declarations, in order
    phases: list[Body]              # the phases of every stage, in order
    triggers: list[Body]
    actions: list[Body]
    invariants: list[Body]
    stats: list[Body]
    eligible: Optional[Body]
    score: Optional[Body]
    tiebreaks: list[Body]
    types: dict[int, Type]
    refs: dict[Any, Any]
    keep: list[Any] = attrs.field(factory=list)  # keeps nodes alive so ids stay unique
    flow: FlowInfo = attrs.field(factory=FlowInfo)  # who may see each shown value (dsl/infoflow.py)
    view: Optional[CheckedView] = None              # the declared view, if any (dsl/checker_views.py)
    bounds: Optional[Bounds] = None                 # the declared bounds, if any (dsl/checker_bounds.py)
    estimate: Optional[Body] = None                 # `estimate p: ...`, for the bots' cut-offs
    prefers: list[Preference] = attrs.field(factory=list)   # `prefer v: T ...`, for the rollouts
    bots: dict[str, Any] = attrs.field(factory=dict)        # `bots { ... }`: search settings
    # what the analyses and the compiler work out of the rulebook once and ask again (the fns'
    # flow summaries, dsl/flow_exprs.py; the fns each expression calls, compiler/inline.py):
    # made on first use from the fns, refs and types (which do not change once the checker
    # has made the rulebook), never part of a comparison
    derived: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)
