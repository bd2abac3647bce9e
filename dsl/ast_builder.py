"""Rule -> AST node: one method per grammar rule (or alias), called as the parser reduces it.

A method gets the rule's children after lark's filtering (tokens kept by the grammar, the
values of sub-rules, None for an absent [optional]) and, unless its name is in ``PLAIN``, the
span of the text the rule matched. ``dsl/parse_actions.py`` calls them; lark is not imported here.
"""
from __future__ import annotations

import re
from typing import Any

from lark import Token

from mercator.dsl import ast as A
from mercator.dsl.limits import MAX_INT
from mercator.dsl.errors import MercatorError

# Rules whose value carries no span of its own (a word, a list of names, a flag).
PLAIN = frozenset({"start", "visibility", "assign_op", "comp_op", "add_op", "mul_op", "const_kw",
                   "removable", "where_kw", "params", "names", "log_public", "log_to", "prompt",
                   "or_pass", "openly", "args", "win_order", "bound_int",
                   "bound_word", "view_on", "bot_word", "bot_value", "bot_hint"})


class AstBuilder:
    """Builds the AST nodes of one rulebook file (``path`` names it in every span): each method
    is named after the grammar rule (or alias) it builds, so dsl/grammar.lark documents it."""

    def __init__(self, path: str = "<string>"):
        self.path = path

    def _tok_span(self, tok: Any) -> A.Span:
        return A.Span(self.path, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)

    # -- declarations
    def start(self, items: list[Any]) -> A.Rulebook:
        return A.Rulebook(tuple(items), path=self.path)

    def game_decl(self, sp: A.Span, c: list[Any]) -> A.GameDecl:
        return A.GameDecl(_unquote(c[0]), _int(c[1]), _int(c[2]), span=sp)

    def use_decl(self, sp: A.Span, c: list[Any]) -> A.UseDecl:
        return A.UseDecl(_unquote(c[0]), span=sp)

    def enum_decl(self, sp: A.Span, c: list[Any]) -> A.EnumDecl:
        return A.EnumDecl(str(c[0]), tuple(str(t) for t in c[1:]), span=sp,
                          member_spans=tuple(self._tok_span(t) for t in c[1:]))

    def const_decl(self, sp: A.Span, c: list[Any]) -> A.ConstDecl:
        return A.ConstDecl(str(c[1]), c[2], c[3], keyword=str(c[0]), span=sp)

    def record_decl(self, sp: A.Span, c: list[Any]) -> A.RecordDecl:
        return A.RecordDecl(str(c[0]), tuple(c[1:]), span=sp)

    def bundle_decl(self, sp: A.Span, c: list[Any]) -> A.BundleDecl:
        return A.BundleDecl(str(c[0]), tuple(c[1:]), span=sp)

    def bundle_part(self, sp: A.Span, c: list[Any]) -> A.BundlePart:
        unit = c[5]
        if unit is not None:
            unit = _int(unit) if unit.type == "INT" else str(unit)
        return A.BundlePart(str(c[0]), str(c[1]), str(c[2]), unit, span=sp,
                            unit_word=str(c[4]) if c[4] is not None else "units",
                            openly=len(c) > 6 and c[6] is not None,
                            to=str(c[3]) if c[3] is not None else None)

    def player_state(self, sp: A.Span, c: list[Any]) -> A.PlayerState:
        return A.PlayerState(tuple(c), span=sp)

    def table_state(self, sp: A.Span, c: list[Any]) -> A.TableState:
        return A.TableState(tuple(c), span=sp)

    def field_decl(self, sp: A.Span, c: list[Any]) -> A.FieldDecl:
        return A.FieldDecl(str(c[0]), c[1], c[2], c[3] or "public", span=sp)

    def visibility(self, c: list[Any]) -> str:
        return str(c[0])

    def assign_op(self, c: list[Any]) -> str:
        return str(c[0])

    comp_op = add_op = mul_op = const_kw = removable = where_kw = bot_hint = assign_op

    def stat_decl(self, sp: A.Span, c: list[Any]) -> A.StatDecl:
        return A.StatDecl(str(c[0]), str(c[1]), tuple(c[2] or ()), c[4], c[3], span=sp)

    def variant_decl(self, sp: A.Span, c: list[Any]) -> A.VariantDecl:
        return A.VariantDecl(_unquote(c[0]), _unquote(c[1]), span=sp)

    def replace_decl(self, sp: A.Span, c: list[Any]) -> A.ReplaceDecl:
        return A.ReplaceDecl(c[0], span=sp)

    def remove_decl(self, sp: A.Span, c: list[Any]) -> A.RemoveDecl:
        kind = {"table": "const", "anytime": "action"}.get(str(c[0]), str(c[0]))
        return A.RemoveDecl(kind, str(c[1]), span=sp)

    def remove_invariant(self, sp: A.Span, c: list[Any]) -> A.RemoveDecl:
        return A.RemoveDecl("invariant", _unquote(c[0]), span=sp)

    def remove_hint(self, sp: A.Span, c: list[Any]) -> A.RemoveDecl:
        return A.RemoveDecl(c[0], c[0], span=sp)

    def extend_decl(self, sp: A.Span, c: list[Any]) -> A.ExtendDecl:
        return A.ExtendDecl(c[0], span=sp)

    def phase_insert(self, sp: A.Span, c: list[Any]) -> A.PhaseInsert:
        ph = A.PhaseDecl(str(c[0]), c[3], span=sp)
        return A.PhaseInsert(ph, str(c[1]), str(c[2]), span=sp)

    def event_decl(self, sp: A.Span, c: list[Any]) -> A.EventDecl:
        return A.EventDecl(str(c[0]), tuple(c[1] or ()), span=sp)

    def setup_decl(self, sp: A.Span, c: list[Any]) -> A.SetupDecl:
        return A.SetupDecl(c[0], span=sp)

    def round_decl(self, sp: A.Span, c: list[Any]) -> A.RoundDecl:
        lim = None if c[1] is None else _int(c[1]) if str(c[1]).isdigit() else str(c[1])
        return A.RoundDecl(str(c[0]), lim, tuple(c[2:]), span=sp)

    def phase_decl(self, sp: A.Span, c: list[Any]) -> A.PhaseDecl:
        return A.PhaseDecl(str(c[0]), c[1], span=sp)

    def proc_decl(self, sp: A.Span, c: list[Any]) -> A.ProcDecl:
        return A.ProcDecl(str(c[0]), tuple(c[1] or ()), c[2], c[3], span=sp)

    def fn_decl(self, sp: A.Span, c: list[Any]) -> A.FnDecl:
        return A.FnDecl(str(c[0]), tuple(c[1] or ()), c[2], c[3], span=sp)

    def params(self, c: list[Any]) -> tuple[A.Param, ...]:
        return tuple(c)

    def param(self, sp: A.Span, c: list[Any]) -> A.Param:
        return A.Param(str(c[0]), c[1], span=sp)

    def trigger_decl(self, sp: A.Span, c: list[Any]) -> A.TriggerDecl:
        return A.TriggerDecl(str(c[0]), tuple(c[1] or ()), None if c[2] is None else str(c[2]), c[3],
                             c[4], span=sp)

    def names(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    def action_decl(self, sp: A.Span, c: list[Any]) -> A.ActionDecl:
        return A.ActionDecl(str(c[0]), tuple(c[1]), c[2], c[3], span=sp)

    def invariant_decl(self, sp: A.Span, c: list[Any]) -> A.InvariantDecl:
        return A.InvariantDecl(_unquote(c[0]), c[1], span=sp)

    def end_decl(self, sp: A.Span, c: list[Any]) -> A.EndDecl:
        return A.EndDecl(str(c[0]), c[1], span=sp)

    def score_decl(self, sp: A.Span, c: list[Any]) -> A.ScoreDecl:
        return A.ScoreDecl(str(c[0]), c[1], c[2], span=sp)

    def tiebreak_decl(self, sp: A.Span, c: list[Any]) -> A.TiebreakDecl:
        return A.TiebreakDecl(str(c[0]), c[1], c[2], span=sp)

    def estimate_decl(self, sp: A.Span, c: list[Any]) -> A.EstimateDecl:
        return A.EstimateDecl(str(c[0]), c[1], span=sp)

    def prefer_decl(self, sp: A.Span, c: list[Any]) -> A.PreferDecl:
        return A.PreferDecl(str(c[0]), c[1], None if c[2] is None else str(c[2]), c[5],
                            None if c[3] is None else str(c[3]),
                            None if c[4] is None else _unquote(c[4]), span=sp)

    def win_order(self, c: list[Any]) -> str:
        return str(c[0])

    # -- types
    def simple_type(self, sp: A.Span, c: list[Any]) -> A.SimpleType:
        return A.SimpleType(str(c[0]), span=sp)

    def player_type(self, sp: A.Span, c: list[Any]) -> A.SimpleType:
        return A.SimpleType("player", span=sp)

    def generic_type(self, sp: A.Span, c: list[Any]) -> A.GenericType:
        return A.GenericType(str(c[0]), tuple(c[1:]), span=sp)

    def optional_type(self, sp: A.Span, c: list[Any]) -> A.OptionalType:
        return A.OptionalType(c[0], span=sp)

    # -- statements
    def block(self, sp: A.Span, c: list[Any]) -> A.Block:
        return A.Block(tuple(s for s in c if not isinstance(s, A.Empty)), span=sp)

    def empty_stmt(self, sp: A.Span, c: list[Any]) -> A.Empty:
        return A.Empty(span=sp)

    def let_stmt(self, sp: A.Span, c: list[Any]) -> A.Let:
        return A.Let(str(c[0]), c[2], span=sp, type=c[1])

    def assign_stmt(self, sp: A.Span, c: list[Any]) -> A.Assign:
        return A.Assign(c[0], str(c[1]), c[2], span=sp)

    def if_stmt(self, sp: A.Span, c: list[Any]) -> A.If:
        elifs = tuple(x for x in c[2:-1] if isinstance(x, A.Elif))
        return A.If(c[0], c[1], elifs, c[-1], span=sp)

    def elif_clause(self, sp: A.Span, c: list[Any]) -> A.Elif:
        return A.Elif(c[0], c[1], span=sp)

    def for_stmt(self, sp: A.Span, c: list[Any]) -> A.For:
        return A.For(str(c[0]), c[1], c[2], c[3], span=sp)

    def repeat_stmt(self, sp: A.Span, c: list[Any]) -> A.Repeat:
        return A.Repeat(c[0], c[1], span=sp)

    def while_stmt(self, sp: A.Span, c: list[Any]) -> A.While:
        return A.While(c[0], None if c[1] is None else _int(c[1]), c[2], span=sp)

    def move_stmt(self, sp: A.Span, c: list[Any]) -> A.Move:
        return A.Move(c[0], c[1], c[2], span=sp)

    def add_stmt(self, sp: A.Span, c: list[Any]) -> A.Add:
        return A.Add(c[0], c[1], span=sp)

    def remove_stmt(self, sp: A.Span, c: list[Any]) -> A.Remove:
        return A.Remove(c[0], c[1], span=sp)

    def shuffle_stmt(self, sp: A.Span, c: list[Any]) -> A.Shuffle:
        return A.Shuffle(c[0], span=sp)

    def emit_stmt(self, sp: A.Span, c: list[Any]) -> A.Emit:
        return A.Emit(str(c[0]), tuple(c[1] or ()), span=sp)

    def call_stmt(self, sp: A.Span, c: list[Any]) -> A.CallStmt:
        return A.CallStmt(str(c[0]), tuple(c[1] or ()), span=sp)

    def return_stmt(self, sp: A.Span, c: list[Any]) -> A.Return:
        return A.Return(c[0], span=sp)

    def break_stmt(self, sp: A.Span, c: list[Any]) -> A.Break:
        return A.Break(span=sp)

    def end_game_stmt(self, sp: A.Span, c: list[Any]) -> A.EndGame:
        return A.EndGame(span=sp)

    def log_stmt(self, sp: A.Span, c: list[Any]) -> A.Log:
        return A.Log(tuple(c[1:]), span=sp, audience=c[0])

    def log_public(self, c: list[Any]) -> str:
        return "public"

    def log_to(self, c: list[Any]) -> Any:
        return c[0]

    def deal_stmt(self, sp: A.Span, c: list[Any]) -> A.Deal:
        _word(c[0], "deal", "a statement that starts 'NAME on' is a deal: deal on TABLE { ... }")
        return A.Deal(str(c[1]), tuple(c[2:]), span=sp, table_span=self._tok_span(c[1]))

    def deal_setting(self, sp: A.Span, c: list[Any]) -> A.DealSetting:
        return A.DealSetting(str(c[0]), c[1], span=sp)

    def deal_limit(self, sp: A.Span, c: list[Any]) -> A.DealSetting:
        return A.DealSetting("limit", c[0], span=sp)

    def deal_rule(self, sp: A.Span, c: list[Any]) -> A.DealRule:
        return A.DealRule(str(c[0]), str(c[1]), c[2], span=sp)

    def deal_accepted(self, sp: A.Span, c: list[Any]) -> A.DealAccepted:
        return A.DealAccepted(str(c[0]), str(c[1]), c[2], span=sp)

    def lvalue(self, sp: A.Span, c: list[Any]) -> A.LValue:
        return A.LValue(str(c[0]), tuple(c[1:]), span=sp)

    def call_lvalue(self, sp: A.Span, c: list[Any]) -> A.LValue:
        call = A.Call(str(c[0]), tuple(c[1] or ()), span=sp)
        return A.LValue(str(c[0]), tuple(c[2:]), span=sp, call=call)

    def lv_field(self, sp: A.Span, c: list[Any]) -> A.LvField:
        return A.LvField(str(c[0]), span=self._tok_span(c[0]))

    def lv_index(self, sp: A.Span, c: list[Any]) -> A.LvIndex:
        return A.LvIndex(c[0], span=sp)

    # -- suspending right-hand sides
    def choose(self, sp: A.Span, c: list[Any]) -> A.Choose:
        prompt, args = (None, ()) if c[4] is None else c[4]
        return A.Choose(c[0], c[1], c[2] is not None, prompt, span=sp,
                        prompt_args=args, openly=c[3] is not None)

    def prompt(self, c: list[Any]) -> tuple[str, tuple[Any, ...]]:
        return _unquote(c[0]), tuple(c[1:])

    def or_pass(self, c: list[Any]) -> bool:
        return True

    def openly(self, c: list[Any]) -> bool:
        return True

    def choice_one(self, sp: A.Span, c: list[Any]) -> A.ChoiceOne:
        return A.ChoiceOne(c[0], span=sp)

    def choice_subset(self, sp: A.Span, c: list[Any]) -> A.ChoiceSubset:
        return A.ChoiceSubset(c[0], c[1], c[2], span=sp)

    def choice_record(self, sp: A.Span, c: list[Any]) -> A.ChoiceRecord:
        return A.ChoiceRecord(str(c[0]), tuple(c[1:]), span=sp)

    def field_choice(self, sp: A.Span, c: list[Any]) -> A.FieldChoice:
        return A.FieldChoice(str(c[0]), c[1], c[2] is not None, span=sp)

    def simultaneous(self, sp: A.Span, c: list[Any]) -> A.Simultaneous:
        return A.Simultaneous(str(c[0]), c[1], c[2], span=sp)

    def roll(self, sp: A.Span, c: list[Any]) -> A.Roll:
        return A.Roll(c[0], span=sp)

    def random_pick(self, sp: A.Span, c: list[Any]) -> A.RandomPick:
        return A.RandomPick(c[0], span=sp)

    def draw(self, sp: A.Span, c: list[Any]) -> A.Draw:
        return A.Draw(c[1], c[0], span=sp)

    # -- expressions
    def if_expr(self, sp: A.Span, c: list[Any]) -> A.IfExpr:
        return A.IfExpr(c[0], c[1], c[2], span=sp)

    def or_op(self, sp: A.Span, c: list[Any]) -> A.Or:
        return A.Or(c[0], c[1], span=sp)

    def and_op(self, sp: A.Span, c: list[Any]) -> A.And:
        return A.And(c[0], c[1], span=sp)

    def not_op(self, sp: A.Span, c: list[Any]) -> A.Not:
        return A.Not(c[0], span=sp)

    def compare(self, sp: A.Span, c: list[Any]) -> A.Compare:
        return A.Compare(str(c[1]), c[0], c[2], span=sp)

    def in_op(self, sp: A.Span, c: list[Any]) -> A.In:
        return A.In(c[0], c[1], False, span=sp)

    def not_in_op(self, sp: A.Span, c: list[Any]) -> A.In:
        return A.In(c[0], c[1], True, span=sp)

    def range_op(self, sp: A.Span, c: list[Any]) -> A.Range:
        return A.Range(c[0], c[1], span=sp)

    def binop(self, sp: A.Span, c: list[Any]) -> A.BinOp:
        return A.BinOp(str(c[1]), c[0], c[2], span=sp)

    def neg(self, sp: A.Span, c: list[Any]) -> A.Neg:
        return A.Neg(c[0], span=sp)

    def field(self, sp: A.Span, c: list[Any]) -> A.Field:
        return A.Field(c[0], str(c[1]), span=sp, name_span=self._tok_span(c[1]))

    def index(self, sp: A.Span, c: list[Any]) -> A.Index:
        return A.Index(c[0], c[1], span=sp)

    def call(self, sp: A.Span, c: list[Any]) -> A.Call:
        return A.Call(str(c[0]), tuple(c[1] or ()), span=sp)

    def gen_call(self, sp: A.Span, c: list[Any]) -> A.GenCall:
        return A.GenCall(str(c[0]), c[1], str(c[2]), c[3], c[4], span=sp)

    def args(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def int_lit(self, sp: A.Span, c: list[Any]) -> A.IntLit:
        return A.IntLit(_int(c[0]), span=sp)

    def str_lit(self, sp: A.Span, c: list[Any]) -> A.StrLit:
        return A.StrLit(_unquote(c[0]), span=sp)

    def true_lit(self, sp: A.Span, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(True, span=sp)

    def false_lit(self, sp: A.Span, c: list[Any]) -> A.BoolLit:
        return A.BoolLit(False, span=sp)

    def none_lit(self, sp: A.Span, c: list[Any]) -> A.NoneLit:
        return A.NoneLit(span=sp)

    def name(self, sp: A.Span, c: list[Any]) -> A.Name:
        return A.Name(str(c[0]), span=sp)

    def players_name(self, sp: A.Span, c: list[Any]) -> A.Name:
        return A.Name("players", span=sp)

    def list_lit(self, sp: A.Span, c: list[Any]) -> A.ListLit:
        return A.ListLit(tuple(x for x in c if x is not None), span=sp)

    def list_comp(self, sp: A.Span, c: list[Any]) -> A.ListComp:
        return A.ListComp(c[0], str(c[1]), c[2], c[3], span=sp)

    def map_lit(self, sp: A.Span, c: list[Any]) -> A.MapLit:
        return A.MapLit(tuple(x for x in c if x is not None), span=sp)

    def map_comp(self, sp: A.Span, c: list[Any]) -> A.MapComp:
        return A.MapComp(c[0], c[1], str(c[2]), c[3], c[4], span=sp)

    def bounds_decl(self, sp: A.Span, c: list[Any]) -> A.BoundsDecl:
        return A.BoundsDecl(tuple(c), span=sp)

    def bots_decl(self, sp: A.Span, c: list[Any]) -> A.BotsDecl:
        return A.BotsDecl(tuple(c), span=sp)

    def bot_item(self, sp: A.Span, c: list[Any]) -> A.BotItem:
        return A.BotItem(str(c[0]), c[1], span=sp)

    def bot_word(self, c: list[Any]) -> str:
        return str(c[0])

    def bot_value(self, c: list[Any]) -> str:
        return "".join(str(t) for t in c if t is not None)

    def bound_item(self, sp: A.Span, c: list[Any]) -> A.BoundItem:
        return A.BoundItem(str(c[0]), c[2], c[3], span=sp,
                           field=str(c[1]) if c[1] is not None else None)

    def bound_word(self, c: list[Any]) -> str:
        return str(c[0])

    def bound_int(self, c: list[Any]) -> int:
        return _int(c[-1]) * (-1 if len(c) > 1 and c[0] is not None else 1)

    def view_decl(self, sp: A.Span, c: list[Any]) -> A.ViewDecl:
        return A.ViewDecl(tuple(c), span=sp)

    def view_bookkeeping(self, sp: A.Span, c: list[Any]) -> A.ViewBookkeeping:
        return A.ViewBookkeeping(str(c[0]), tuple(str(t) for t in c[1:]), span=sp)

    def view_reveal(self, sp: A.Span, c: list[Any]) -> A.ViewReveal:
        return A.ViewReveal(str(c[0]), str(c[1]), tuple(str(t) for t in c[2:]), span=sp)

    def view_section(self, sp: A.Span, c: list[Any]) -> A.ViewSection:
        return A.ViewSection(str(c[0]), _unquote(c[1]), tuple(c[2:]), span=sp)

    def view_panel(self, sp: A.Span, c: list[Any]) -> A.ViewPanel:
        return A.ViewPanel(str(c[0]), str(c[1]), tuple(c[2:]), span=sp)

    def view_label(self, sp: A.Span, c: list[Any]) -> A.ViewLabel:
        return A.ViewLabel(str(c[0]), str(c[1]), c[2], None if c[3] is None else str(c[3]),
                           tuple(c[6:]), None if c[4] is None else str(c[4]),
                           None if c[5] is None else _unquote(c[5]), span=sp)

    def view_action_label(self, sp: A.Span, c: list[Any]) -> A.ViewActionLabel:
        names = [x for x in c if isinstance(x, Token)]
        return A.ViewActionLabel(str(names[0]), str(names[1]), tuple(str(n) for n in names[2:]),
                                 tuple(x for x in c if not isinstance(x, Token)), span=sp)

    def view_row(self, sp: A.Span, c: list[Any]) -> A.ViewRow:
        unit = c[2]
        quoted = unit is not None and getattr(unit, "type", "") == "STRING"
        text = None if unit is None else (_unquote(unit) if quoted else str(unit))
        on = c[5][1] if c[5] is not None else None      # view_on: ("on", spaces or positions)
        return A.ViewRow(str(c[0]), _unquote(c[1]), text, c[3], span=sp, unit_quoted=quoted,
                         extra=c[4], on=on)

    def view_on(self, c: list[Any]) -> tuple[str, Any]:
        return ("on", c[0])

    def eligible_decl(self, sp: A.Span, c: list[Any]) -> A.EligibleDecl:
        return A.EligibleDecl(str(c[0]), c[1], span=sp)

    def entry(self, sp: A.Span, c: list[Any]) -> A.Entry:
        return A.Entry(c[0], c[1], span=sp)


class WordError(MercatorError, ValueError):
    """A name where only one word may stand (a soft keyword), with a hint for the diagnostic."""

    def __init__(self, message: str, hint: str):
        super().__init__(message)
        self.hint = hint


def _word(tok: Any, want: str, hint: str) -> None:
    """A word the grammar reads as a name where only `want` may stand (a soft keyword)."""
    if str(tok) != want:
        raise WordError(f"unexpected '{tok}'", f"did you mean '{want}'? {hint}")


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
