"""The parser: rulebook text -> Mercator AST, with syntax errors as diagnostics.

Lark stays inside this module; callers see only ``dsl.ast`` nodes and ``Diagnostic`` values.
"""
from __future__ import annotations

import functools
import re
import importlib.resources
from typing import Any, Optional

import lark
from lark import Token, Transformer_NonRecursive, v_args
from lark.tree import Meta

from dsl import ast as A
from dsl.diagnostics import Diagnostic, did_you_mean, error
from dsl.limits import MAX_INT, PausedGC, depth_errors

KEYWORDS = frozenset("""variant replace extend before stat counts trigger eligible
game players use enum const table record player event setup round phase
proc fn on as when anytime invariant end after score tiebreak public owner secret let if elif else for limit
in where repeat while move from to add remove shuffle emit return break log choose one of subset size
with pass openly prompt simultaneous roll random draw then or and not true false none game""".split())

SUSPENDING = frozenset({"choose", "roll", "random", "draw", "simultaneous"})

# Terminal names -> words for "expected ..." messages.
_TOKEN_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "LBRACE": "'{'", "RBRACE": "'}'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'",
    "SEMICOLON": "';'", "DOT": "'.'", "EQUAL": "'='", "ASSIGN_OP": "'=', '+=' or '-='",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'", "MINUS": "'-'",
    "QMARK": "'?'", "LESSTHAN": "'<'", "MORETHAN": "'>'", "$END": "end of file", "__ANON_0": "'..'",
}


@functools.lru_cache(maxsize=1)
def _lark() -> lark.Lark:
    text = importlib.resources.files("dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    return lark.Lark(text, parser="lalr", lexer="basic", propagate_positions=True, maybe_placeholders=True)


def grammar_text() -> str:
    """The text of the grammar file (the language reference)."""
    return importlib.resources.files("dsl").joinpath("grammar.lark").read_text(encoding="utf-8")


def _token_word(name: str, parser: lark.Lark) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    for term in parser.terminals:
        if term.name == name:
            pat = term.pattern
            if isinstance(pat, lark.lexer.PatternStr):
                return f"'{pat.value}'"
    return name.lower()


def _expected_words(expected: set[str], parser: lark.Lark) -> str:
    words = sorted({_token_word(n, parser) for n in expected})
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


class _Builder(Transformer_NonRecursive):  # type: ignore[type-arg]
    """Turns the Lark tree into AST nodes; one method per grammar rule (without recursion, so
    that a deeply nested text is refused by the depth limits, not by Python)."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def _sp(self, meta: Meta) -> A.Span:
        if getattr(meta, "empty", True):
            return A.Span(self.path, 0, 0, 0, 0)
        return A.Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tok_span(self, tok: Token) -> A.Span:
        return A.Span(self.path, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)

    # -- declarations
    @v_args(meta=True)
    def start(self, meta: Meta, items: list[Any]) -> A.Rulebook:
        return A.Rulebook(tuple(items), path=self.path)

    @v_args(meta=True)
    def game_decl(self, meta: Meta, c: list[Any]) -> A.GameDecl:
        return A.GameDecl(_unquote(c[0]), _int(c[1]), _int(c[2]), span=self._sp(meta))

    @v_args(meta=True)
    def use_decl(self, meta: Meta, c: list[Any]) -> A.UseDecl:
        return A.UseDecl(_unquote(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def enum_decl(self, meta: Meta, c: list[Any]) -> A.EnumDecl:
        return A.EnumDecl(str(c[0]), tuple(str(t) for t in c[1:]), span=self._sp(meta),
                          member_spans=tuple(self._tok_span(t) for t in c[1:]))

    @v_args(meta=True)
    def const_decl(self, meta: Meta, c: list[Any]) -> A.ConstDecl:
        return A.ConstDecl(str(c[1]), c[2], c[3], keyword=str(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def record_decl(self, meta: Meta, c: list[Any]) -> A.RecordDecl:
        return A.RecordDecl(str(c[0]), tuple(c[1:]), span=self._sp(meta))

    @v_args(meta=True)
    def player_state(self, meta: Meta, c: list[Any]) -> A.PlayerState:
        return A.PlayerState(tuple(c), span=self._sp(meta))

    @v_args(meta=True)
    def table_state(self, meta: Meta, c: list[Any]) -> A.TableState:
        return A.TableState(tuple(c), span=self._sp(meta))

    @v_args(meta=True)
    def field_decl(self, meta: Meta, c: list[Any]) -> A.FieldDecl:
        return A.FieldDecl(str(c[0]), c[1], c[2], c[3] or "public", span=self._sp(meta))

    def visibility(self, c: list[Any]) -> str:
        return str(c[0])

    def assign_op(self, c: list[Any]) -> str:
        return str(c[0])

    comp_op = add_op = mul_op = const_kw = removable = where_kw = assign_op

    @v_args(meta=True)
    def stat_decl(self, meta: Meta, c: list[Any]) -> A.StatDecl:
        return A.StatDecl(str(c[0]), str(c[1]), tuple(c[2] or ()), c[3], span=self._sp(meta))

    @v_args(meta=True)
    def variant_decl(self, meta: Meta, c: list[Any]) -> A.VariantDecl:
        return A.VariantDecl(_unquote(c[0]), _unquote(c[1]), span=self._sp(meta))

    @v_args(meta=True)
    def replace_decl(self, meta: Meta, c: list[Any]) -> A.ReplaceDecl:
        return A.ReplaceDecl(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def remove_decl(self, meta: Meta, c: list[Any]) -> A.RemoveDecl:
        kind = {"table": "const", "anytime": "action"}.get(str(c[0]), str(c[0]))
        return A.RemoveDecl(kind, str(c[1]), span=self._sp(meta))

    @v_args(meta=True)
    def remove_invariant(self, meta: Meta, c: list[Any]) -> A.RemoveDecl:
        return A.RemoveDecl("invariant", _unquote(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def extend_decl(self, meta: Meta, c: list[Any]) -> A.ExtendDecl:
        return A.ExtendDecl(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def phase_insert(self, meta: Meta, c: list[Any]) -> A.PhaseInsert:
        ph = A.PhaseDecl(str(c[0]), c[3], span=self._sp(meta))
        return A.PhaseInsert(ph, str(c[1]), str(c[2]), span=self._sp(meta))

    @v_args(meta=True)
    def event_decl(self, meta: Meta, c: list[Any]) -> A.EventDecl:
        return A.EventDecl(str(c[0]), tuple(c[1] or ()), span=self._sp(meta))

    @v_args(meta=True)
    def setup_decl(self, meta: Meta, c: list[Any]) -> A.SetupDecl:
        return A.SetupDecl(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def round_decl(self, meta: Meta, c: list[Any]) -> A.RoundDecl:
        lim = None if c[1] is None else _int(c[1]) if str(c[1]).isdigit() else str(c[1])
        return A.RoundDecl(str(c[0]), lim, tuple(c[2:]), span=self._sp(meta))

    @v_args(meta=True)
    def phase_decl(self, meta: Meta, c: list[Any]) -> A.PhaseDecl:
        return A.PhaseDecl(str(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def proc_decl(self, meta: Meta, c: list[Any]) -> A.ProcDecl:
        return A.ProcDecl(str(c[0]), tuple(c[1] or ()), c[2], c[3], span=self._sp(meta))

    @v_args(meta=True)
    def fn_decl(self, meta: Meta, c: list[Any]) -> A.FnDecl:
        return A.FnDecl(str(c[0]), tuple(c[1] or ()), c[2], c[3], span=self._sp(meta))

    def params(self, c: list[Any]) -> tuple[A.Param, ...]:
        return tuple(c)

    @v_args(meta=True)
    def param(self, meta: Meta, c: list[Any]) -> A.Param:
        return A.Param(str(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def trigger_decl(self, meta: Meta, c: list[Any]) -> A.TriggerDecl:
        return A.TriggerDecl(str(c[0]), tuple(c[1] or ()), None if c[2] is None else str(c[2]), c[3],
                             c[4], span=self._sp(meta))

    def names(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    @v_args(meta=True)
    def action_decl(self, meta: Meta, c: list[Any]) -> A.ActionDecl:
        return A.ActionDecl(str(c[0]), tuple(c[1]), c[2], c[3], span=self._sp(meta))

    @v_args(meta=True)
    def invariant_decl(self, meta: Meta, c: list[Any]) -> A.InvariantDecl:
        return A.InvariantDecl(_unquote(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def end_decl(self, meta: Meta, c: list[Any]) -> A.EndDecl:
        return A.EndDecl(str(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def score_decl(self, meta: Meta, c: list[Any]) -> A.ScoreDecl:
        return A.ScoreDecl(str(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def tiebreak_decl(self, meta: Meta, c: list[Any]) -> A.TiebreakDecl:
        return A.TiebreakDecl(str(c[0]), c[1], span=self._sp(meta))

    # -- types
    @v_args(meta=True)
    def simple_type(self, meta: Meta, c: list[Any]) -> A.SimpleType:
        return A.SimpleType(str(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def player_type(self, meta: Meta, c: list[Any]) -> A.SimpleType:
        return A.SimpleType("player", span=self._sp(meta))

    @v_args(meta=True)
    def generic_type(self, meta: Meta, c: list[Any]) -> A.GenericType:
        return A.GenericType(str(c[0]), tuple(c[1:]), span=self._sp(meta))

    @v_args(meta=True)
    def optional_type(self, meta: Meta, c: list[Any]) -> A.OptionalType:
        return A.OptionalType(c[0], span=self._sp(meta))

    # -- statements
    @v_args(meta=True)
    def block(self, meta: Meta, c: list[Any]) -> A.Block:
        return A.Block(tuple(s for s in c if not isinstance(s, A.Empty)), span=self._sp(meta))

    @v_args(meta=True)
    def empty_stmt(self, meta: Meta, c: list[Any]) -> A.Empty:
        return A.Empty(span=self._sp(meta))

    @v_args(meta=True)
    def let_stmt(self, meta: Meta, c: list[Any]) -> A.Let:
        return A.Let(str(c[0]), c[2], span=self._sp(meta), type=c[1])

    @v_args(meta=True)
    def assign_stmt(self, meta: Meta, c: list[Any]) -> A.Assign:
        return A.Assign(c[0], str(c[1]), c[2], span=self._sp(meta))

    @v_args(meta=True)
    def if_stmt(self, meta: Meta, c: list[Any]) -> A.If:
        elifs = tuple(x for x in c[2:-1] if isinstance(x, A.Elif))
        return A.If(c[0], c[1], elifs, c[-1], span=self._sp(meta))

    @v_args(meta=True)
    def elif_clause(self, meta: Meta, c: list[Any]) -> A.Elif:
        return A.Elif(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def for_stmt(self, meta: Meta, c: list[Any]) -> A.For:
        return A.For(str(c[0]), c[1], c[2], c[3], span=self._sp(meta))

    @v_args(meta=True)
    def repeat_stmt(self, meta: Meta, c: list[Any]) -> A.Repeat:
        return A.Repeat(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def while_stmt(self, meta: Meta, c: list[Any]) -> A.While:
        return A.While(c[0], None if c[1] is None else _int(c[1]), c[2], span=self._sp(meta))

    @v_args(meta=True)
    def move_stmt(self, meta: Meta, c: list[Any]) -> A.Move:
        return A.Move(c[0], c[1], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def add_stmt(self, meta: Meta, c: list[Any]) -> A.Add:
        return A.Add(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def remove_stmt(self, meta: Meta, c: list[Any]) -> A.Remove:
        return A.Remove(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def shuffle_stmt(self, meta: Meta, c: list[Any]) -> A.Shuffle:
        return A.Shuffle(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def emit_stmt(self, meta: Meta, c: list[Any]) -> A.Emit:
        return A.Emit(str(c[0]), tuple(c[1] or ()), span=self._sp(meta))

    @v_args(meta=True)
    def call_stmt(self, meta: Meta, c: list[Any]) -> A.CallStmt:
        return A.CallStmt(str(c[0]), tuple(c[1] or ()), span=self._sp(meta))

    @v_args(meta=True)
    def return_stmt(self, meta: Meta, c: list[Any]) -> A.Return:
        return A.Return(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def break_stmt(self, meta: Meta, c: list[Any]) -> A.Break:
        return A.Break(span=self._sp(meta))

    @v_args(meta=True)
    def end_game_stmt(self, meta: Meta, c: list[Any]) -> A.EndGame:
        return A.EndGame(span=self._sp(meta))

    @v_args(meta=True)
    def log_stmt(self, meta: Meta, c: list[Any]) -> A.Log:
        return A.Log(tuple(c[1:]), span=self._sp(meta), audience=c[0])

    def log_public(self, c: list[Any]) -> str:
        return "public"

    def log_to(self, c: list[Any]) -> Any:
        return c[0]

    @v_args(meta=True)
    def lvalue(self, meta: Meta, c: list[Any]) -> A.LValue:
        return A.LValue(str(c[0]), tuple(c[1:]), span=self._sp(meta))

    @v_args(meta=True)
    def call_lvalue(self, meta: Meta, c: list[Any]) -> A.LValue:
        call = A.Call(str(c[0]), tuple(c[1] or ()), span=self._sp(meta))
        return A.LValue(str(c[0]), tuple(c[2:]), span=self._sp(meta), call=call)

    @v_args(meta=True)
    def lv_field(self, meta: Meta, c: list[Any]) -> A.LvField:
        return A.LvField(str(c[0]), span=self._tok_span(c[0]))

    @v_args(meta=True)
    def lv_index(self, meta: Meta, c: list[Any]) -> A.LvIndex:
        return A.LvIndex(c[0], span=self._sp(meta))

    # -- suspending right-hand sides
    @v_args(meta=True)
    def choose(self, meta: Meta, c: list[Any]) -> A.Choose:
        prompt, args = (None, ()) if c[4] is None else c[4]
        return A.Choose(c[0], c[1], c[2] is not None, prompt, span=self._sp(meta),
                        prompt_args=args, openly=c[3] is not None)

    def prompt(self, c: list[Any]) -> tuple[str, tuple[Any, ...]]:
        return _unquote(c[0]), tuple(c[1:])

    def or_pass(self, c: list[Any]) -> bool:
        return True

    def openly(self, c: list[Any]) -> bool:
        return True

    @v_args(meta=True)
    def choice_one(self, meta: Meta, c: list[Any]) -> A.ChoiceOne:
        return A.ChoiceOne(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def choice_subset(self, meta: Meta, c: list[Any]) -> A.ChoiceSubset:
        return A.ChoiceSubset(c[0], c[1], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def choice_record(self, meta: Meta, c: list[Any]) -> A.ChoiceRecord:
        return A.ChoiceRecord(str(c[0]), tuple(c[1:]), span=self._sp(meta))

    @v_args(meta=True)
    def field_choice(self, meta: Meta, c: list[Any]) -> A.FieldChoice:
        return A.FieldChoice(str(c[0]), c[1], c[2] is not None, span=self._sp(meta))

    @v_args(meta=True)
    def simultaneous(self, meta: Meta, c: list[Any]) -> A.Simultaneous:
        return A.Simultaneous(str(c[0]), c[1], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def roll(self, meta: Meta, c: list[Any]) -> A.Roll:
        return A.Roll(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def random_pick(self, meta: Meta, c: list[Any]) -> A.RandomPick:
        return A.RandomPick(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def draw(self, meta: Meta, c: list[Any]) -> A.Draw:
        return A.Draw(c[0], span=self._sp(meta))

    # -- expressions
    @v_args(meta=True)
    def if_expr(self, meta: Meta, c: list[Any]) -> A.IfExpr:
        return A.IfExpr(c[0], c[1], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def or_op(self, meta: Meta, c: list[Any]) -> A.Or:
        return A.Or(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def and_op(self, meta: Meta, c: list[Any]) -> A.And:
        return A.And(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def not_op(self, meta: Meta, c: list[Any]) -> A.Not:
        return A.Not(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def compare(self, meta: Meta, c: list[Any]) -> A.Compare:
        return A.Compare(str(c[1]), c[0], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def in_op(self, meta: Meta, c: list[Any]) -> A.In:
        return A.In(c[0], c[1], False, span=self._sp(meta))

    @v_args(meta=True)
    def not_in_op(self, meta: Meta, c: list[Any]) -> A.In:
        return A.In(c[0], c[1], True, span=self._sp(meta))

    @v_args(meta=True)
    def range_op(self, meta: Meta, c: list[Any]) -> A.Range:
        return A.Range(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def binop(self, meta: Meta, c: list[Any]) -> A.BinOp:
        return A.BinOp(str(c[1]), c[0], c[2], span=self._sp(meta))

    @v_args(meta=True)
    def neg(self, meta: Meta, c: list[Any]) -> A.Neg:
        return A.Neg(c[0], span=self._sp(meta))

    @v_args(meta=True)
    def field(self, meta: Meta, c: list[Any]) -> A.Field:
        return A.Field(c[0], str(c[1]), span=self._sp(meta), name_span=self._tok_span(c[1]))

    @v_args(meta=True)
    def index(self, meta: Meta, c: list[Any]) -> A.Index:
        return A.Index(c[0], c[1], span=self._sp(meta))

    @v_args(meta=True)
    def call(self, meta: Meta, c: list[Any]) -> A.Call:
        return A.Call(str(c[0]), tuple(c[1] or ()), span=self._sp(meta))

    @v_args(meta=True)
    def gen_call(self, meta: Meta, c: list[Any]) -> A.GenCall:
        return A.GenCall(str(c[0]), c[1], str(c[2]), c[3], c[4], span=self._sp(meta))

    def args(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    @v_args(meta=True)
    def int_lit(self, meta: Meta, c: list[Any]) -> A.IntLit:
        return A.IntLit(_int(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def str_lit(self, meta: Meta, c: list[Any]) -> A.StrLit:
        return A.StrLit(_unquote(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def true_lit(self, meta: Meta, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(True, span=self._sp(meta))

    @v_args(meta=True)
    def false_lit(self, meta: Meta, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(False, span=self._sp(meta))

    @v_args(meta=True)
    def none_lit(self, meta: Meta, c: list[Any]) -> A.NoneLit:
        return A.NoneLit(span=self._sp(meta))

    @v_args(meta=True)
    def name(self, meta: Meta, c: list[Any]) -> A.Name:
        return A.Name(str(c[0]), span=self._sp(meta))

    @v_args(meta=True)
    def players_name(self, meta: Meta, c: list[Any]) -> A.Name:
        return A.Name("players", span=self._sp(meta))

    @v_args(meta=True)
    def list_lit(self, meta: Meta, c: list[Any]) -> A.ListLit:
        return A.ListLit(tuple(x for x in c if x is not None), span=self._sp(meta))

    @v_args(meta=True)
    def list_comp(self, meta: Meta, c: list[Any]) -> A.ListComp:
        return A.ListComp(c[0], str(c[1]), c[2], c[3], span=self._sp(meta))

    @v_args(meta=True)
    def map_lit(self, meta: Meta, c: list[Any]) -> A.MapLit:
        return A.MapLit(tuple(x for x in c if x is not None), span=self._sp(meta))

    @v_args(meta=True)
    def map_comp(self, meta: Meta, c: list[Any]) -> A.MapComp:
        return A.MapComp(c[0], c[1], str(c[2]), c[3], c[4], span=self._sp(meta))

    @v_args(meta=True)
    def eligible_decl(self, meta: Meta, c: list[Any]) -> A.EligibleDecl:
        return A.EligibleDecl(str(c[0]), c[1], span=self._sp(meta))

    @v_args(meta=True)
    def entry(self, meta: Meta, c: list[Any]) -> A.Entry:
        return A.Entry(c[0], c[1], span=self._sp(meta))


def _int(tok: Any) -> int:
    """The value of an integer literal: leading zeros are fine, a value over MAX_INT is not."""
    digits = str(tok).lstrip("0") or "0"
    if len(digits) > len(str(MAX_INT)) or int(digits) > MAX_INT:
        raise ValueError("this number is too long: a number may be at most 10^18")
    return int(digits)


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(tok: Any) -> str:
    """The text of a string literal: one pass over its escapes (\\n \\t \\" \\\\)."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), str(tok)[1:-1])


def parse(text: str, path: str = "<string>") -> tuple[Optional[A.Rulebook], list[Diagnostic]]:
    """Parse rulebook text; return (AST or None, syntax diagnostics)."""
    parser = _lark()
    if text.startswith("\ufeff"):      # a UTF-8 byte order mark, as some editors write
        text = text[1:]
    try:
        with PausedGC():
            tree = parser.parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        return None, [_syntax_diagnostic(exc, text, path, parser)]
    try:
        with PausedGC():
            rb: A.Rulebook = _Builder(path).transform(tree)
    except lark.exceptions.VisitError as exc:  # a literal out of range, for example
        span = A.Span(path, 1, 1, 1, 2)
        meta = getattr(exc.obj, "meta", None)
        if meta is not None and not getattr(meta, "empty", True):
            span = A.Span(path, meta.line, meta.column, meta.end_line, meta.end_column)
        return None, [error("E005", str(exc.orig_exc), span)]
    deep = depth_errors(rb, path)
    return (None, deep) if deep else (rb, [])


def _previous_word(text: str, line: int, col: int) -> Optional[tuple[str, int]]:
    """The identifier just before (line, col) on the same line, with its column."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    before = lines[line - 1][: col - 1].rstrip()
    j = len(before)
    while j > 0 and (before[j - 1].isalnum() or before[j - 1] == "_"):
        j -= 1
    word = before[j:]
    return (word, j + 1) if word.isidentifier() else None


def _syntax_diagnostic(exc: lark.exceptions.UnexpectedInput, text: str, path: str,
                       parser: lark.Lark) -> Diagnostic:
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, lark.exceptions.UnexpectedToken) and exc.token.type == "$END":
        lines = text.splitlines() or [""]
        line = len(lines)
        col = len(lines[-1]) + 1
        exp = _expected_words(set(exc.expected), parser)
        return error("E003", "unexpected end of file", A.Span(path, line, col, line, col + 1),
                     f"expected {exp}; is a '}}' missing?")
    if isinstance(exc, lark.exceptions.UnexpectedToken):
        tok = exc.token
        width = max(len(str(tok)), 1)
        span = A.Span(path, line, col, line, col + width)
        expected = set(exc.expected)
        hint = None
        prev = _previous_word(text, line, col)
        if prev is not None and prev[0] not in KEYWORDS:
            near = did_you_mean(prev[0], KEYWORDS)
            if near is not None:
                pcol = prev[1]
                return error("E004", f"unknown word '{prev[0]}'",
                             A.Span(path, line, pcol, line, pcol + len(prev[0])), near)
        if tok.type == "NAME" and str(tok) not in KEYWORDS:
            keywords = [str(_token_word(n, parser)).strip("'") for n in expected]
            hint = did_you_mean(str(tok), [k for k in keywords if k.isidentifier()])
        if tok.type != "NAME" and str(tok) in KEYWORDS:
            pass
        if hint is None:
            hint = f"expected {_expected_words(expected, parser)}"
        if str(tok) in SUSPENDING:
            return error("E108", f"'{tok}' can only be the whole right-hand side of 'let' or an "
                         "assignment", span, f"give it its own line first: let x = {tok} ...")
        what = f"'{tok}'" if tok.type != "NAME" or str(tok) in KEYWORDS else f"name '{tok}'"
        if str(tok) in KEYWORDS and "NAME" in expected:
            hint = f"'{tok}' is a reserved word and cannot be used as a name"
        return error("E001", f"unexpected {what}", span, hint)
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = text[pos] if pos < len(text) else "?"
        hint = "strings use double quotes" if ch == "'" else None
        if ch == '"':
            hint = "this string is not closed on its line"
        return error("E002", f"unexpected character {ch!r}", A.Span(path, line, col, line, col + 1),
                     hint)
    return error("E001", "syntax error", A.Span(path, line, col, line, col + 1))
