"""The checker's shared state: the locals in scope, the resolution and type tables it fills, the
diagnostics it collects; type expressions resolved; walks over the AST.

Each part of the checker (dsl/checker_*.py) extends `CheckerBase`; dsl/checker.py puts the parts
together and runs the passes in order.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

from mercator.dsl import ast as A
from mercator.dsl.builtins import BUILTIN_NAMES
from mercator.dsl.checked import FieldInfo
from mercator.dsl.diagnostics import Diagnostic, did_you_mean, error, warning
from mercator.dsl.types import ANY, BOOL, INT, PLAYER, STR, Type, assignable, opt

PRIMITIVES = {"int": INT, "bool": BOOL, "str": STR, "player": PLAYER}
GENERICS = {"list": 1, "bag": 1, "map": 2}


class Scope:
    """Block-structured locals of one body; slots are never reused."""

    def __init__(self, body_kind: str, result: Optional[Type] = None, state: bool = True):
        self.frames: list[dict[str, tuple[int, Type]]] = [{}]
        self.nslots = 0
        self.kind = body_kind
        self.result = result
        self.loops = 0
        self.state = state          # may read game state (false in consts)
        self.owner = ""             # the procedure being checked (for the call graph)
        self.guards: list[Any] = []  # conditions of the enclosing if / while / where / when
        self.param_names: set[str] = set()
        self.capped: set[str] = set()       # locals bound by a decision or by min(...)

    def push(self) -> None:
        """Open a nested block."""
        self.frames.append({})

    def pop(self) -> None:
        """Close the innermost block."""
        self.frames.pop()

    def declare(self, name: str, t: Type) -> int:
        """A new local in the innermost block; its slot."""
        slot = self.nslots
        self.nslots += 1
        self.frames[-1][name] = (slot, t)
        return slot

    def lookup(self, name: str) -> Optional[tuple[int, Type]]:
        """The (slot, type) of the innermost local so named, or None."""
        for fr in reversed(self.frames):
            if name in fr:
                return fr[name]
        return None

    def names(self) -> list[str]:
        """Every local name in scope (for 'did you mean' hints)."""
        return [n for fr in self.frames for n in fr]


class CheckerBase:
    """The tables one check fills and the diagnostics it collects, with the helpers every pass
    uses."""

    def __init__(self, items: tuple[Any, ...], path: str, sources: dict[str, str]):
        self.items = items
        self.path = path
        self.sources = sources
        self.diags: list[Diagnostic] = []
        self.types: dict[int, Type] = {}
        self.refs: dict[Any, Any] = {}
        self.enums: dict[str, Type] = {}
        self.member_of: dict[str, tuple[Type, int]] = {}
        self.records: dict[str, Type] = {}
        self.record_decls: dict[str, A.RecordDecl] = {}
        self.consts: list[A.ConstDecl] = []
        self.const_decls: dict[str, A.ConstDecl] = {}
        self.const_types: dict[str, Type] = {}
        self.player_fields: dict[str, FieldInfo] = {}
        self.table_fields: dict[str, FieldInfo] = {}
        self.events: dict[str, tuple[Type, ...]] = {}
        self.event_decls: dict[str, A.EventDecl] = {}
        self.proc_decls: dict[str, A.ProcDecl] = {}
        self.fn_decls: dict[str, A.FnDecl] = {}
        self.emitted: set[str] = set()
        self.emitted_watch: set[str] = set()
        self.reads: set[tuple[str, str]] = set()      # ("table"|"player", field) read somewhere
        self.writes: set[tuple[str, str]] = set()     # ... and changed somewhere
        self.calls: dict[str, set[str]] = {}          # procedure -> procedures it calls
        self.trigger_writes: list[tuple[A.TriggerDecl, set[tuple[str, str]]]] = []
        self.cur_writes: Optional[set[tuple[str, str]]] = None   # the trigger being checked
        self.called: set[str] = set()
        self.bounded: set[str] = set()    # names that some invariant mentions
        self.const_names: set[str] = set()
        self.has_end_game = False
        self.globals: dict[str, A.Span] = {}
        self.at: A.Span = A.Span(path, 1, 1, 1, 2)   # the statement or expression being checked
        self.choice_sites: list[tuple[A.Span, Type]] = []   # each decision: where, the type chosen
        # each deal: where, its offers' type (a preference of that type covers its window)
        self.deal_sites: list[tuple[A.Span, Type]] = []
        # each `choose` statement's prompt text, by its (path, line, col): what a view's
        # `label b: T at "prompt"` picks its decisions by
        self.choice_prompts: dict[tuple[str, int, int], str] = {}

    def option_scope(self, it: Any) -> tuple[Type, Scope]:
        """A label's or a preference's type and its scope: the option `it.var` of that type,
        and with `for p` the chooser `it.chooser`, a player."""
        t = self.resolve_type(it.type)
        sc = Scope("expr")
        self._no_shadow(it.var, it.span)
        sc.declare(it.var, t)
        if it.chooser is not None:
            self._no_shadow(it.chooser, it.span)
            sc.declare(it.chooser, PLAYER)
        return t, sc

    def decision_sites(self, t: Type, at: Optional[str], what: str
                       ) -> tuple[frozenset[tuple[str, int, int]], Optional[tuple[str, bool, str]]]:
        """The decisions, by (path, line, col), that offer options of type t — with `at`, those
        whose prompt begins so — for a view's label or a preference (`what`: "a label
        describes", "a preference ranks"); where there is none, why: (message, whether it is
        the type's fault, hint)."""
        found = self.choice_sites + (self.deal_sites if what == "a preference ranks" else [])
        sites = frozenset((s.path, s.line, s.col) for s, st in found if st == t)
        if not sites:
            offered = sorted({str(st) for _, st in found})
            return sites, (f"no decision offers options of type {t}", True,
                           did_you_mean(str(t), offered) or
                           ("the decisions offer: " + ", ".join(offered[:8]) if offered else
                            f"{what} the options of a 'choose': this rulebook has none"))
        if at is not None:
            prompts = sorted({self.choice_prompts[s] for s in sites if s in self.choice_prompts})
            sites = frozenset(s for s in sites if self.choice_prompts.get(s, "").startswith(at))
            if not sites:
                return sites, (f'no decision offering {t} has a prompt that begins "{at}"', False,
                               did_you_mean(at, prompts) or
                               ("the prompts of those decisions: " + "; ".join(
                                   f'"{x}"' for x in prompts[:6]) if prompts else
                                "those decisions have no prompt to tell them apart"))
        return sites, None

    def one_block(self, items: tuple[Any, ...], kind: type, code: str, word: str) -> Any:
        """The first declaration of a settings block a rulebook has at most one of (`bots`,
        `bounds`), or None; `code` for each further one."""
        decls: list[Any] = [it for it in items if isinstance(it, kind)]
        for extra in decls[1:]:
            self.err(code, f"a second '{word}' declaration", extra.span,
                     f"a rulebook has one: merge them (a variant writes 'replace {word} "
                     "{ ... }')")
        return decls[0] if decls else None

    def known_word(self, word: str, words: list[str], code: str, what: str,
                   span: A.Span) -> bool:
        """Is `word` one of a block's `words`? If not, `code` with "did you mean"."""
        if word in words:
            return True
        hint = did_you_mean(word, words) or "the words are " + ", ".join(f"'{w}'" for w in words)
        self.err(code, f"unknown {what} '{word}'", span, hint)
        return False

    def err(self, code: str, msg: str, span: A.Span, hint: Optional[str] = None) -> None:
        """Record an error."""
        self.diags.append(error(code, msg, span, hint))

    def warn(self, code: str, msg: str, span: A.Span, hint: Optional[str] = None) -> None:
        """Record a warning."""
        self.diags.append(warning(code, msg, span, hint))

    def claim(self, name: str, span: A.Span, what: str) -> bool:
        """Reserve a global name (False, with E102, when it is taken)."""
        if name in self.globals or name in BUILTIN_NAMES:
            prev = self.globals.get(name)
            where = f" (first declared at {prev})" if prev else " (a built-in)"
            self.err("E102", f"{what} '{name}' is already declared{where}", span,
                     "rename one of them")
            return False
        self.globals[name] = span
        return True

    def resolve_type(self, t: Optional[A.TypeExpr]) -> Type:
        """The type a type expression names (ANY, with E101, when it names none)."""
        if t is None:
            return ANY
        if isinstance(t, A.OptionalType):
            return opt(self.resolve_type(t.inner))
        if isinstance(t, A.SimpleType):
            if t.name in PRIMITIVES:
                return PRIMITIVES[t.name]
            if t.name in self.enums:
                return self.enums[t.name]
            if t.name in self.records:
                return self.records[t.name]
            if t.name in GENERICS:
                self.err("E101", f"type '{t.name}' needs {GENERICS[t.name]} type argument(s)", t.span,
                         f"write {t.name}<...>")
                return ANY
            known = list(PRIMITIVES) + list(self.enums) + list(self.records) + list(GENERICS)
            self.err("E101", f"unknown type '{t.name}'", t.span, did_you_mean(t.name, known))
            return ANY
        if t.name == "offer":
            return self.offer_type(t)
        args = tuple(self.resolve_type(a) for a in t.args)
        if t.name not in GENERICS:
            self.err("E101", f"unknown generic type '{t.name}'", t.span,
                     did_you_mean(t.name, GENERICS) or "use list<T>, bag<T> or map<K, V>")
            return ANY
        if len(args) != GENERICS[t.name]:
            self.err("E101", f"'{t.name}' takes {GENERICS[t.name]} type argument(s), got {len(args)}",
                     t.span)
            return ANY
        if t.name in ("bag", "map") and args[0].kind not in ("enum", "int", "player", "bool", "any",
                                                             "str"):
            self.err("E101", f"the keys of a {t.name} must be an enum, int, bool or player, not "
                     f"{args[0]}", t.span)
        return Type(t.name, args=args)

    def offer_type(self, t: A.GenericType) -> Type:
        """offer<...> (dsl/checker_deals.py)."""
        raise NotImplementedError

    def declare_bundles(self, items: tuple[Any, ...]) -> None:
        """The bundle declarations as record types (dsl/checker_deals.py)."""
        raise NotImplementedError

    def check_bundle_parts(self) -> None:
        """The fields bundle parts name (dsl/checker_deals.py)."""
        raise NotImplementedError

    def expect(self, got: Type, want: Type, span: A.Span, what: str) -> None:
        """E104 unless a value of type `got` may stand where `want` is expected."""
        if not assignable(got, want):
            self.err("E104", f"{what}: expected {want}, got {got}", span)

    def _no_shadow(self, name: str, span: A.Span) -> None:
        if name in self.table_fields or name in self.const_types or name in self.member_of:
            self.err("E116", f"local name '{name}' hides a declaration of the same name", span,
                     "choose another name")

    def _no_shadow_local(self, name: str, span: A.Span, sc: Scope) -> None:
        """W262: a new local (loop, generator or 'let' name) named like a parameter or a local
        already in scope hides it for the rest of its block."""
        if sc.lookup(name) is not None:
            self.warn("W262", f"'{name}' hides the parameter or local '{name}' declared before it",
                      span, f"choose another name: inside, '{name}' no longer means the outer one")

    def _walk(self, root: Any, into_fns: bool = False, into_calls: bool = True) -> Iterator[Any]:
        """Every node under root; with into_fns, the bodies of the fns it calls too (each once)."""
        stack, seen_fns = [root], set()
        while stack:
            n = stack.pop()
            yield n
            if isinstance(n, A.Call):
                if into_fns and n.name in self.fn_decls and n.name not in seen_fns:
                    seen_fns.add(n.name)
                    stack.append(self.fn_decls[n.name].body)
                if not into_calls:
                    continue
            if isinstance(n, tuple):
                stack.extend(n)
            else:       # (a span's parts are never what a caller looks for)
                names = A.child_fields(type(n))
                if names is not None:
                    stack.extend([getattr(n, f) for f in names])

    def _reads_state(self, node: Any) -> bool:
        """Does an expression (through the functions it calls) read table or game state?"""
        state_names = set(self.table_fields) | {"players", "player_count", "round_number"}
        return any((isinstance(n, A.Name) and n.name in state_names) or isinstance(n, A.Field)
                   for n in self._walk(node, into_fns=True))   # a Field: a player's or state's

    def _field_names(self, node: Any) -> set[str]:
        """Field and plain names an expression mentions."""
        return {n.name for n in self._walk(node) if isinstance(n, (A.Field, A.Name))}

    def _top_span(self) -> A.Span:
        return A.Span(self.path, 1, 1, 1, 2)


def lv_text(lv: A.LValue) -> str:
    """A place as written, its indices elided: p.goods[...]."""
    out = lv.root
    for s in lv.steps:
        out += f".{s.name}" if isinstance(s, A.LvField) else "[...]"
    return out
