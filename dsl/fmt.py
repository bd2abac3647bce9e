"""The canonical printer: a ``Rulebook`` AST -> rulebook text (``mercator fmt``).

The canonical form:

* 2-space indentation, one statement per line, ``{`` at the end of the line that opens a
  block and ``}`` on a line of its own (an empty block prints as ``{}``);
* one field per line in ``player {}``, ``table {}`` and ``record {}``; the default
  visibility ``public`` is not printed;
* one blank line between top-level declarations;
* the fewest parentheses that keep the tree: precedence, loosest first, is
  ``if-then-else`` < ``or`` < ``and`` < ``not`` < comparison / ``in`` < range ``..`` <
  ``+ -`` < ``* / %`` < unary ``-`` < postfix (``.f``, ``[i]``, calls); ``or``, ``and``,
  ``+ -`` and ``* / %`` associate to the left; comparisons and ranges do not chain, so a
  nested one is parenthesised;
* strings re-escaped (``\\`` ``"`` and newline);
* ``choose WHO subset of X size LO..HI``: ``LO`` and ``HI`` are range operands, and so is
  the ``N`` of ``draw N from X``;
* a ``const`` / ``table`` whose value is a list or map literal is printed as one literal
  (broken like any other when it is long), unless
  a comment sits inside the literal: then one row a line (the elements that started one
  line of the source), each element with a trailing ``,``, so the comments stay beside the
  rows they describe;
* ``;`` only where the grammar needs it: after a bare ``return`` that is followed by a
  statement starting with a name or ``if`` (which would otherwise be read as its value);
* lines within 100 columns (``dsl.fmt_comments.WIDTH``, the width of the shipped rulebooks):
  a construct that fits is printed on one line; a longer one is broken at its outermost
  groups first, continuation lines 2 columns deeper than the line (or the broken group) they
  continue, 4 in the head of a block so they stand apart from its body.  The break points:
  after the head of a ``fn`` (``=``), ``invariant``, ``score``, ``tiebreak``, ``eligible`` and
  ``end after .. when``; before every ``and`` / ``or`` of a chain at once; before a comparison
  or ``in`` operator; before ``then`` and ``else`` (``else`` lined up with its ``if`` when
  that starts the line); before ``when`` / ``where`` in a block head and a ``stat``; before
  ``from`` / ``to`` in ``move``, ``add`` and ``remove``; and, only where the next part does
  not fit on the line, before ``+ -`` / ``* / %``, after the commas of argument and parameter
  lists, list and map literals and enums, before a comprehension's ``for`` and ``if``, and
  before ``size``, ``with pass``, ``openly`` and ``prompt`` in a ``choose``.  A line is longer
  than the width only when a comment or a part without a break point makes it so: a long
  token (a string or name), or rarely a long ``a.b[c].d`` chain, type or declaration head.
  ``format_decl`` (what ``mercator diff`` shows) breaks no lines unless given a width.

Guarantee: for every text ``x`` that parses, ``parse(format_rulebook(parse(x)))`` equals
``parse(x)`` (AST equality ignores spans), and formatting is idempotent.

Comments are not in the AST (they change no rule, and AST equality ignores them): the parser
gives them apart, with their positions (``dsl.parser.comments``), and the printer weaves them
back in beside the lines they stood by (dsl/fmt_comments.py says exactly where), so
``format_rulebook(parse(x), comments(x))`` keeps every comment of ``x``, in order.

Limitations:

* The printer cannot emit a tree the grammar cannot express, and no parse produces one:
  a nested optional type ``T??``, an ``anytime`` action without parameters, a place
  starting with a call but with no ``.f`` / ``[i]`` step, and a string holding a backslash
  followed by ``n`` (the parser's unescaping reads ``\\n`` in the source as a newline
  whatever precedes it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from mercator.dsl import ast as A
from mercator.dsl.fmt_comments import BREAK, FILL, IFS, Line, cat, flat, group, weave
from mercator.dsl.limits import DeepRecursion, depth_errors
from mercator.dsl.errors import MercatorError

if TYPE_CHECKING:
    from mercator.dsl.parser import Comment

__all__ = ["format_rulebook", "format_decl", "format_expr", "format_type", "format_stmt",
           "escape_string"]

# Precedence levels, loosest first (the grammar's ?expr .. ?atom chain).
_IF, _OR, _AND, _NOT, _CMP, _RANGE, _SUM, _PROD, _UNARY, _POSTFIX, _ATOM = range(11)
_ADD_OPS = ("+", "-")
_MUL_OPS = ("*", "/", "%")


# ----------------------------------------------------------------- strings
def escape_string(value: str) -> str:
    """``value`` as a STRING token (with quotes) that the parser reads back as ``value``."""
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{out}"'


# ------------------------------------------------------------------- types
def format_type(t: A.TypeExpr) -> str:
    if isinstance(t, A.SimpleType):
        return t.name
    if isinstance(t, A.GenericType):
        return f"{t.name}<{', '.join(format_type(a) for a in t.args)}>"
    if isinstance(t, A.OptionalType):
        return f"{format_type(t.inner)}?"
    raise TypeError(f"not a type: {t!r}")


# ------------------------------------------------------------- expressions
def _level(e: A.Expr) -> int:
    if isinstance(e, A.IfExpr):
        return _IF
    if isinstance(e, A.Or):
        return _OR
    if isinstance(e, A.And):
        return _AND
    if isinstance(e, A.Not):
        return _NOT
    if isinstance(e, (A.Compare, A.In)):
        return _CMP
    if isinstance(e, A.Range):
        return _RANGE
    if isinstance(e, A.BinOp):
        if e.op in _ADD_OPS:
            return _SUM
        if e.op in _MUL_OPS:
            return _PROD
        raise ValueError(f"unknown binary operator {e.op!r}")
    if isinstance(e, A.Neg):
        return _UNARY
    if isinstance(e, (A.Field, A.Index, A.Call, A.GenCall)):
        return _POSTFIX
    return _ATOM


def format_expr(e: A.Expr, min_level: int = _IF) -> str:
    """``e`` as text on one line; parenthesised when it binds looser than ``min_level``
    requires."""
    return flat(_fx(e, min_level))


def _fx(e: A.Expr, min_level: int = _IF) -> str:
    """``e`` as marked text (dsl/fmt_comments.py: the points where a long line may break)."""
    text = _expr(e)
    return f"({text})" if _level(e) < min_level else text


def _fill(items: Sequence[str]) -> str:
    """Items separated by ``,``, each on the line before if it fits there (an argument list,
    a literal's elements)."""
    return group(*(f"{t}," for t in items[:-1]), *items[-1:], kind=FILL) if items else ""


def _args(args: tuple[A.Expr, ...]) -> str:
    return _fill([_fx(a) for a in args])


def _generator(elem: str, var: str, it: A.Expr, cond: Optional[A.Expr]) -> str:
    parts = [elem, f"for {var} in {_fx(it)}"]
    if cond is not None:
        parts.append(f"if {_fx(cond)}")
    return group(*parts, kind=FILL)


def _bool_chain(e: A.Or | A.And, word: str, lvl: int, right_lvl: int) -> str:
    """``a or b or c`` / ``a and b and c``: each operand a line when the chain breaks."""
    kind = type(e)
    operands: list[A.Expr] = []
    cur: A.Expr = e
    while isinstance(cur, kind):
        operands.append(cur.right)
        cur = cur.left
    operands.append(cur)
    operands.reverse()
    parts = [_fx(operands[0], lvl)] + [f"{word} {_fx(x, right_lvl)}" for x in operands[1:]]
    return group(*parts)


def _arith_chain(e: A.BinOp) -> str:
    """``a + b - c`` (or ``* / %``): a new line before an operator where the next operand
    does not fit."""
    lvl = _level(e)
    pairs: list[tuple[str, A.Expr]] = []
    cur: A.Expr = e
    while isinstance(cur, A.BinOp) and _level(cur) == lvl:
        pairs.append((cur.op, cur.right))
        cur = cur.left
    pairs.reverse()
    parts = [_fx(cur, lvl)] + [f"{op} {_fx(x, lvl + 1)}" for op, x in pairs]
    return group(*parts, kind=FILL)


def _if_chain(e: A.IfExpr) -> str:
    """``if a then b else if c then d else e``: a new line before each ``else``."""
    parts: list[str] = []
    cur: A.Expr = e
    word = "if"
    while isinstance(cur, A.IfExpr):
        parts.append(group(f"{word} {_fx(cur.cond)}", f"then {_fx(cur.then)}"))
        cur, word = cur.else_, "else if"
    parts.append(f"else {_fx(cur, _IF)}")
    return group(*parts, kind=IFS)


def _expr(e: A.Expr) -> str:
    f = _fx
    if isinstance(e, A.IntLit):
        if e.value < 0:  # not produced by the parser; keep the tree printable anyway
            raise ValueError("IntLit is non-negative; write Neg(IntLit(n))")
        return str(e.value)
    if isinstance(e, A.StrLit):
        return escape_string(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.NoneLit):
        return "none"
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.ListLit):
        return f"[{_args(e.items)}]"
    if isinstance(e, A.ListComp):
        return f"[{_generator(f(e.elem), e.var, e.iter, e.cond)}]"
    if isinstance(e, A.MapLit):
        return "{" + _fill([group(f"{f(en.key)}:", f(en.value)) for en in e.entries]) + "}"
    if isinstance(e, A.MapComp):
        return "{" + _generator(f"{f(e.key)}: {f(e.value)}", e.var, e.iter, e.cond) + "}"
    if isinstance(e, A.IfExpr):
        return _if_chain(e)
    if isinstance(e, A.Or):
        return _bool_chain(e, "or", _OR, _AND)
    if isinstance(e, A.And):
        return _bool_chain(e, "and", _AND, _NOT)
    if isinstance(e, A.Not):
        return f"not {f(e.operand, _NOT)}"
    if isinstance(e, A.Compare):
        return group(f(e.left, _RANGE), f"{e.op} {f(e.right, _RANGE)}")
    if isinstance(e, A.In):
        op = "not in" if e.negated else "in"
        return group(f(e.item, _RANGE), f"{op} {f(e.coll, _RANGE)}")
    if isinstance(e, A.Range):
        return f"{f(e.lo, _SUM)}..{f(e.hi, _SUM)}"
    if isinstance(e, A.BinOp):
        _level(e)  # an unknown operator is an error
        return _arith_chain(e)
    if isinstance(e, A.Neg):
        return f"-{f(e.operand, _UNARY)}"
    if isinstance(e, A.Field):
        return f"{f(e.obj, _POSTFIX)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{f(e.obj, _POSTFIX)}[{f(e.key)}]"
    if isinstance(e, A.Call):
        return f"{e.name}({_args(e.args)})"
    if isinstance(e, A.GenCall):
        return f"{e.name}({_generator(f(e.elem), e.var, e.iter, e.cond)})"
    raise TypeError(f"not an expression: {e!r}")


# ------------------------------------------------------ right-hand sides
def _lvalue(lv: A.LValue) -> str:
    # a place may start with a call (`first(players).points`); the grammar then needs a step
    parts = [lv.root if lv.call is None else f"{lv.call.name}({_args(lv.call.args)})"]
    for step in lv.steps:
        if isinstance(step, A.LvField):
            parts.append(f".{step.name}")
        else:
            parts.append(f"[{_fx(step.key)}]")
    return "".join(parts)


def _choice_kind(k: Any) -> list[str]:
    """The parts of a choice between which a long ``choose`` breaks."""
    if isinstance(k, A.ChoiceOne):
        return [f"one of {_fx(k.options)}"]
    if isinstance(k, A.ChoiceSubset):
        return [f"subset of {_fx(k.options)}", f"size {_fx(k.lo, _SUM)}..{_fx(k.hi, _SUM)}"]
    fields = [group(f"{f.name}:", *_choice_kind(f.kind), *(["with pass"] if f.allow_pass else []))
              for f in k.fields]
    return [f"record {k.record} {{ {_fill(fields)} }}"]


def _choose(c: A.Choose) -> str:
    kind = _choice_kind(c.kind)
    parts = [f"choose {_fx(c.who)} {kind[0]}", *kind[1:]]
    if c.allow_pass:
        parts.append("with pass")
    if c.openly:
        parts.append("openly")
    if c.prompt is not None:
        parts.append("prompt " + _fill([escape_string(c.prompt), *map(_fx, c.prompt_args)]))
    return group(*parts, kind=FILL)


def _rhs(r: A.Rhs) -> str:
    if isinstance(r, A.Choose):
        return _choose(r)
    if isinstance(r, A.Simultaneous):
        return f"simultaneous {r.var} in {_fx(r.players)}: {_choose(r.choose)}"
    if isinstance(r, A.Roll):
        return f"roll {_fx(r.sides)}"
    if isinstance(r, A.RandomPick):
        return f"random one of {_fx(r.options)}"
    if isinstance(r, A.Draw):
        n = f"{_fx(r.count, _SUM)} " if r.count is not None else ""
        return f"draw {n}from {_lvalue(r.source)}"
    return _fx(r)


# -------------------------------------------------------------- statements
def _lines_of(node: Any) -> tuple[int, int]:
    """The first and last source line of a node (0, 0 for a tree built without spans)."""
    sp = node.span
    return sp.line, sp.end_line


def _one(text: str, level: int, node: Any) -> list[Line]:
    """A construct printed on one line, standing for all the source lines of ``node``."""
    return [Line(text, level, *_lines_of(node))]


def _block(head: str, level: int, first: int, block: A.Block) -> list[Line]:
    """``head {`` + the statements one level deeper + ``}`` (``{}`` when empty: fmt_comments)."""
    opened, closed = _lines_of(block)
    return [Line(f"{head} {{", level, first, opened), *_stmts(block.stmts, level + 1),
            Line("}", level, closed, closed)]


def _chain(lines: list[Line], word: str, block: A.Block, level: int) -> list[Line]:
    """Continue a block that ends ``lines`` on its closing line: ``} word {``."""
    last = lines.pop()
    return lines + _block(f"{last.text} {word}", level, last.first, block)


def _starts_like_expr(s: A.Stmt) -> bool:
    """Whether ``s`` starts with a token that can begin an expression (NAME or ``if``)."""
    return isinstance(s, (A.Assign, A.CallStmt, A.If))


def _stmts(stmts: tuple[A.Stmt, ...], level: int) -> list[Line]:
    out: list[Line] = []
    for i, s in enumerate(stmts):
        if isinstance(s, A.Empty):
            continue
        lines = _stmt(s, level)
        nxt = next((t for t in stmts[i + 1:] if not isinstance(t, A.Empty)), None)
        if isinstance(s, A.Return) and s.value is None and nxt is not None and _starts_like_expr(nxt):
            lines[-1].text += ";"  # else `return` would take the next statement as its value
        out.extend(lines)
    return out


def format_stmt(s: A.Stmt, level: int = 0) -> str:
    """One statement (with its nested blocks) as text, indented ``level`` steps."""
    return "\n".join(weave(_stmt(s, level)))


def _simple_stmt(s: A.Stmt) -> Optional[str]:
    """The text of a statement without a block, or None for one with a block."""
    f = _fx
    if isinstance(s, A.Let):
        typ = "" if s.type is None else f": {format_type(s.type)}"
        return f"let {s.name}{typ} = {_rhs(s.rhs)}"
    if isinstance(s, A.Assign):
        return f"{_lvalue(s.target)} {s.op} {_rhs(s.rhs)}"
    if isinstance(s, A.Move):
        return group(f"move {f(s.item)}", f"from {_lvalue(s.source)}", f"to {_lvalue(s.dest)}")
    if isinstance(s, A.Add):
        return group(f"add {f(s.item)}", f"to {_lvalue(s.dest)}")
    if isinstance(s, A.Remove):
        return group(f"remove {f(s.item)}", f"from {_lvalue(s.source)}")
    if isinstance(s, A.Shuffle):
        return f"shuffle {_lvalue(s.target)}"
    if isinstance(s, A.Emit):
        return f"emit {s.event}({_args(s.args)})"
    if isinstance(s, A.CallStmt):
        return f"{s.name}({_args(s.args)})"
    if isinstance(s, A.Return):
        return "return" if s.value is None else f"return {f(s.value)}"
    if isinstance(s, A.Break):
        return "break"
    if isinstance(s, A.EndGame):
        return "end game"
    if isinstance(s, A.Log):
        if s.audience is None:
            return f"log {_args(s.parts)}"
        who = "public" if isinstance(s.audience, str) else f"to {f(s.audience)}"
        return f"log {who}: {_args(s.parts)}"
    if isinstance(s, A.Empty):
        return ";"
    return None


def _stmt(s: A.Stmt, level: int) -> list[Line]:
    simple = _simple_stmt(s)
    if simple is not None:
        return _one(simple, level, s)
    f = _fx
    first = s.span.line
    if isinstance(s, A.If):
        lines = _block(f"if {f(s.cond)}", level, first, s.then)
        for el in s.elifs:
            lines = _chain(lines, f"elif {f(el.cond)}", el.body, level)
        if s.else_ is not None:
            lines = _chain(lines, "else", s.else_, level)
        return lines
    if isinstance(s, A.For):
        head = f"for {s.var} in {f(s.iter)}"
        if s.where is not None:
            head = group(head, f"where {f(s.where)}")
        return _block(head, level, first, s.body)
    if isinstance(s, A.Repeat):
        return _block(f"repeat {f(s.count)}", level, first, s.body)
    if isinstance(s, A.While):
        head = f"while {f(s.cond)}"
        if s.max is not None:
            head += f" limit {s.max}"
        return _block(head, level, first, s.body)
    if isinstance(s, A.Deal):
        return _deal(s, level)
    raise TypeError(f"not a statement: {s!r}")


def _deal(s: A.Deal, level: int) -> list[Line]:
    """deal on T { settings and clauses, one a line }."""
    f = _fx
    lines = [Line(f"deal on {s.table} {{", level, s.span.line, s.span.line)]
    for c in s.clauses:
        if isinstance(c, A.DealSetting):
            lines.extend(_one(f"{c.name} = {f(c.expr)}", level + 1, c))
        elif isinstance(c, A.DealRule):
            lines.extend(_one(f"{c.kind}({c.var}) = {f(c.expr)}", level + 1, c))
        else:
            lines.extend(_block(f"{c.kind}({c.var})", level + 1, c.span.line, c.body))
    return lines + [Line("}", level, s.span.end_line, s.span.end_line)]


# ------------------------------------------------------------ declarations
def _params(params: tuple[A.Param, ...]) -> str:
    return _fill([f"{p.name}: {format_type(p.type)}" for p in params])


def _field(fd: A.FieldDecl) -> str:
    text = f"{fd.name}: {format_type(fd.type)}"
    if fd.default is not None:
        text += f" = {_fx(fd.default)}"
    if fd.visibility != "public":
        text += f" {fd.visibility}"
    return text


def _fields(head: str, d: Any, fields: tuple[A.FieldDecl, ...]) -> list[Line]:
    first, last = _lines_of(d)
    return [Line(f"{head} {{", 0, first, first), *(_one(_field(fd), 1, fd)[0] for fd in fields),
            Line("}", 0, last, last)]


def _bundle_part(p: A.BundlePart) -> str:
    return f"{p.name}: {p.kind} of {p.field}" + ("" if p.to is None else f" to {p.to}") + \
        ("" if p.unit is None else f" in {p.unit_word} of {p.unit}") + \
        (" openly" if p.openly else "")


def _view_row(r: A.ViewRow) -> str:
    unit = "" if r.unit is None else \
        f" in {escape_string(r.unit) if r.unit_quoted else r.unit}"
    head = f"{r.kind} {escape_string(r.label)}{unit} ="
    value = _fx(r.expr)
    if r.extra is None and r.on is None:
        return group(head, value)
    # too long for one line: `with ...` and `on ...` each on a line of its own, after the
    # value (on the label's line when it is short)
    parts = [f"{head} {value}"] if len(flat(value)) < 40 and flat(value) == value else \
        [head, value]
    if r.extra is not None:
        parts.append("with " + _fx(r.extra))
    if r.on is not None:
        parts.append("on " + _fx(r.on))
    return group(*parts)


def _view(d: A.ViewDecl) -> list[Line]:
    """`view { ... }`: a line per bookkeeping list and row, sections and panels as blocks."""
    first, last = _lines_of(d)
    lines = [Line("view {", 0, first, first)]
    for it in d.items:
        if isinstance(it, A.ViewBookkeeping):
            lines.extend(_one(f"{it.word} {_fill(it.names)}", 1, it))
            continue
        if isinstance(it, A.ViewReveal):
            lines.extend(_one(f"{it.word} {it.at} end: {_fill(it.names)}", 1, it))
            continue
        if isinstance(it, A.ViewActionLabel):
            head = f"{it.word} {it.action}({', '.join(it.params)}) ="
            lines.extend(_one(group(head, _fill([_fx(p) for p in it.parts])), 1, it))
            continue
        if isinstance(it, A.ViewLabel):
            chooser = f" for {it.chooser}" if it.chooser else ""
            if it.at is not None:
                chooser += f" {it.at_word} {escape_string(it.at)}"
            head = f"{it.word} {it.var}: {format_type(it.type)}{chooser} ="
            lines.extend(_one(group(head, _fill([_fx(p) for p in it.parts])), 1, it))
            continue
        head = f"{it.word} {escape_string(it.title)}" if isinstance(it, A.ViewSection) \
            else f"{it.word} {it.var}"
        start, end = _lines_of(it)
        lines.append(Line(f"{head} {{", 1, start, start))
        lines.extend(_one(_view_row(r), 2, r)[0] for r in it.rows)
        lines.append(Line("}", 1, end, end))
    return lines + [Line("}", 0, last, last)]


def _bounds(d: A.BoundsDecl) -> list[Line]:
    """`bounds { ... }`: a line per bound."""
    first, last = _lines_of(d)
    return [Line("bounds {", 0, first, first),
            *(_one(f"{it.word} " + (f"{it.field} " if it.field else "") + f"{it.lo}"
                   + ("" if it.hi is None else f"..{it.hi}"), 1, it)[0]
              for it in d.items),
            Line("}", 0, last, last)]


def _bots(d: A.BotsDecl) -> list[Line]:
    """`bots { ... }`: a line per setting."""
    first, last = _lines_of(d)
    return [Line("bots {", 0, first, first),
            *(_one(f"{it.word} {it.value}", 1, it)[0] for it in d.items),
            Line("}", 0, last, last)]


def _one_line_decl(d: A.Decl) -> Optional[str]:
    """The text of a declaration printed on one line (when it fits: dsl/fmt_comments.py), or
    None for one with a body."""
    f = _fx
    if isinstance(d, A.GameDecl):
        return f"game {escape_string(d.name)} players {d.min_players}..{d.max_players}"
    if isinstance(d, A.UseDecl):
        return f"use {escape_string(d.path)}"
    if isinstance(d, A.EnumDecl):
        return f"enum {d.name} {{ {_fill(d.members)} }}"
    if isinstance(d, A.EventDecl):
        return f"event {d.name}({_params(d.params)})"
    if isinstance(d, A.FnDecl):
        return group(f"fn {d.name}({_params(d.params)}) -> {format_type(d.result)} =", f(d.body))
    if isinstance(d, A.InvariantDecl):
        return group(f"invariant {escape_string(d.text)}:", f(d.expr))
    if isinstance(d, A.EndDecl):
        return group(f"end after {d.round} when", f(d.cond))
    if isinstance(d, A.ScoreDecl):
        return group(f"score {d.var}:", f(d.expr) + (f" {d.wins} wins" if d.wins else ""))
    if isinstance(d, A.TiebreakDecl):
        return group(f"tiebreak {d.var}:", f(d.expr) + (f" {d.wins} wins" if d.wins else ""))
    if isinstance(d, A.EligibleDecl):
        return group(f"eligible {d.var}:", f(d.expr))
    if isinstance(d, A.EstimateDecl):
        return group(f"estimate {d.var}:", f(d.expr))
    if isinstance(d, A.PreferDecl):
        head = f"prefer {d.var}: {format_type(d.type)}"
        if d.chooser is not None:
            head += f" for {d.chooser}"
        if d.at is not None:
            head += f" {d.at_word or 'at'} {escape_string(d.at)}"
        return group(head + " =", f(d.expr))
    if isinstance(d, A.StatDecl):
        head = f"stat {d.name} counts {d.event}"
        if d.names:
            head += f"({_fill(d.names)})"
        if d.amount is not None:
            head += f" as {f(d.amount)}"
        return head if d.cond is None else group(head, f"when {f(d.cond)}")
    if isinstance(d, A.VariantDecl):
        return f"variant {escape_string(d.name)} of {escape_string(d.base)}"
    if isinstance(d, A.RemoveDecl):
        if d.kind == "invariant":
            return f"remove invariant {escape_string(d.name)}"
        if d.kind in ("estimate", "bots", "prefer"):
            return f"remove {d.kind}"
        word = {"action": "anytime"}.get(d.kind, d.kind)
        return f"remove {word} {d.name}"
    return None


def _const(d: A.ConstDecl) -> list[Line]:
    """A constant; a list or map literal as a collapsible run of lines (fmt_comments)."""
    kw = "table" if d.keyword == "table" else "const"
    typ = "" if d.type is None else f": {format_type(d.type)}"
    head = f"{kw} {d.name}{typ} = "
    v = d.value
    items: list[tuple[str, Any]]
    if isinstance(v, A.ListLit) and v.items:
        items, brackets = [(_fx(e), e) for e in v.items], "[]"
    elif isinstance(v, A.MapLit) and v.entries:
        items = [(group(f"{_fx(en.key)}:", _fx(en.value)), en) for en in v.entries]
        brackets = "{}"
    else:
        return _one(head + _fx(v), 0, d)
    first, last = _lines_of(d)
    opened, closed = _lines_of(v)
    rows: list[Line] = []
    for text, node in items:            # the elements that start on one line stay a row
        start, end = _lines_of(node)
        if rows and start == rows[-1].first:
            rows[-1].text += f"{BREAK}{cat(text + ',')}"
            rows[-1].last = end
        else:
            rows.append(Line(cat(f"{text},"), 1, start, end, part="item"))
    return [Line(head + brackets[0], 0, first, opened, part="open"), *rows,
            Line(brackets[1], 0, closed, last, part="close")]


def _prefixed(word: str, d: Any) -> list[Line]:
    """``replace`` / ``extend`` + the lines of the declaration it wraps."""
    inner = _decl(d.decl)
    inner[0].text = f"{word} {inner[0].text}"
    inner[0].first = d.span.line or inner[0].first
    return inner


def _decl(d: A.Decl) -> list[Line]:
    text = _one_line_decl(d)
    if text is not None:
        return _one(text, 0, d)
    f = _fx
    first = d.span.line
    if isinstance(d, A.ConstDecl):
        return _const(d)
    if isinstance(d, A.RecordDecl):
        return _fields(f"record {d.name}", d, d.fields)
    if isinstance(d, A.BundleDecl):
        first, last = _lines_of(d)
        return [Line(f"bundle {d.name} {{", 0, first, first),
                *(_one(_bundle_part(p), 1, p)[0] for p in d.parts), Line("}", 0, last, last)]
    if isinstance(d, A.ViewDecl):
        return _view(d)
    if isinstance(d, A.BoundsDecl):
        return _bounds(d)
    if isinstance(d, A.BotsDecl):
        return _bots(d)
    if isinstance(d, A.PlayerState):
        return _fields("player", d, d.fields)
    if isinstance(d, A.TableState):
        return _fields("table", d, d.fields)
    if isinstance(d, A.SetupDecl):
        return _block("setup", 0, first, d.body)
    if isinstance(d, A.RoundDecl):
        head = f"round {d.name}" + ("" if d.max_rounds is None else f" limit {d.max_rounds}")
        lines = [Line(f"{head} {{", 0, first, first)]
        for ph in d.phases:
            lines.extend(_block(f"phase {ph.name}", 1, ph.span.line, ph.body))
        return lines + [Line("}", 0, d.span.end_line, d.span.end_line)]
    if isinstance(d, A.ProcDecl):
        head = f"proc {d.name}({_params(d.params)})"
        if d.result is not None:
            head += f" -> {format_type(d.result)}"
        return _block(head, 0, first, d.body)
    if isinstance(d, A.TriggerDecl):
        head = f"on {d.event}({', '.join(d.names)})"
        if d.label is not None:
            head += f" as {d.label}"
        if d.cond is not None:
            head = group(head, f"when {f(d.cond)}")
        return _block(head, 0, first, d.body)
    if isinstance(d, A.ActionDecl):
        head = f"anytime {d.name}({_params(d.params)})"
        if d.cond is not None:
            head = group(head, f"when {f(d.cond)}")
        return _block(head, 0, first, d.body)
    if isinstance(d, A.ReplaceDecl):
        return _prefixed("replace", d)
    if isinstance(d, A.ExtendDecl):
        return _prefixed("extend", d)
    if isinstance(d, A.PhaseInsert):
        return _block(f"phase {d.phase.name} {d.where} {d.anchor}", 0, first, d.phase.body)
    if isinstance(d, A.PhaseDecl):
        return _block(f"phase {d.name}", 0, first, d.body)
    raise TypeError(f"not a declaration: {d!r}")


_UNLIMITED = 1 << 62           # a width no line reaches: no line breaking


class TooDeep(MercatorError, ValueError):
    """A tree nested more deeply than the parser accepts (dsl/limits.py), which fmt refuses."""


def _checked_decl(d: Any) -> list[Line]:
    """The lines of one declaration; TooDeep (not RecursionError) for a tree too deep."""
    deep = depth_errors(d, "<fmt>")
    if deep:
        raise TooDeep(f"cannot format: {deep[0].message}")
    with DeepRecursion():
        try:
            lines = _decl(d)
        except RecursionError:
            raise TooDeep("cannot format: nested too deeply") from None
    lines[0].top = True
    return lines


def _own_comments(d: Any, comments: Sequence[Comment]) -> list[Comment]:
    """The comments of ``d``'s file that belong to it: those on its lines, and the comment
    lines right above it (no blank line between)."""
    first, last = _lines_of(d)
    above = {c.line for c in comments if c.own_line}
    top = first
    while top - 1 in above:
        top -= 1
    return [c for c in comments if top <= c.line <= last]


def format_decl(d: Any, comments: Sequence[Comment] = (), width: Optional[int] = None) -> str:
    """The canonical text of one declaration (also a phase on its own); with the comments of
    its file, those that belong to it too (on its lines, or right above it).  Its lines are
    not broken for width unless ``width`` is given (``mercator diff`` and the designer's
    list of changes show each construct on one line, as they quote it)."""
    return "\n".join(weave(_checked_decl(d), _own_comments(d, comments), strict=True,
                           width=_UNLIMITED if width is None else width))


def format_rulebook(rb: A.Rulebook, comments: Sequence[Comment] = ()) -> str:
    """The canonical text of ``rb`` (ends with a newline; empty rulebook -> ``""``) with the
    file's ``comments`` (dsl.parser.comments) kept in place; raises TooDeep for a tree nested
    more deeply than the parser accepts."""
    lines = [ln for d in rb.items for ln in _checked_decl(d)]
    return "".join(f"{text}\n" for text in weave(lines, comments))
