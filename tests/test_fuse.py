"""Fused runs of statements (interpreter/compiler/fuse.py) behave exactly as the ops run one by one: the
same states, the same narration, and runtime errors located at the same rulebook line. The ops
one by one are what coverage tracing runs (Program.coverage set)."""
from __future__ import annotations

import random

import pytest

from mercator.dsl import ast as A
from mercator.dsl.loader import load_text
from mercator.interpreter.compiler.control import jump
from mercator.interpreter.compiler.fuse import SIMPLE
from mercator.interpreter.engine.program import MercatorRuntimeError, Program
from mercator.interpreter.compiler import compile_program

HEAD = 'game "T" players 2..3\n'

EVERY_STATEMENT = """
enum C { red, blue, green }
record R { a: int = 1  b: list<int> = [] }
event hit(n: int)
player { x: int  hand: bag<C>  seen: list<int>  rec: R }
table { m: map<player, int> = {}  log_total: int  deck: list<int> = [5, 6, 7, 8]
        pool: bag<C> = {red: 3, blue: 20}
        groups: map<C, list<int>> = {red: [], blue: [], green: []}  nested: list<list<int>> = [] }
stat hits counts hit(n) when n > 1
stat hit_sum counts hit(n) as n * 2 + len(deck) when n != 3
stat every_hit counts hit
fn twice(n: int) -> int = 2 * n
round r limit 3 { phase a {
  let k = choose first(players) one of [0, 1, 2]
  let t = 0
  for p in players where p != first(players) or k > 0 {
    p.x += twice(k) + 1
    p.seen = p.seen + [k]
    p.rec.a -= 1
    add k to p.rec.b
    add C[k] to p.hand
    add k to groups[C[2 - k]]
    add [k, len(nested)] to nested
    let mine = [1]
    add k to mine
    remove C[k] from p.hand
    move k from mine to p.seen
    move first(nested) from nested to nested
    p.x += len(mine) + len(groups[blue]) + count(p.hand) + len(nested)
    if k == 0 { p.hand[red] += 1 } elif k == 1 { move blue from pool to p.hand } else { t += 1 }
    m[p] = p.x
    emit hit(k)
    log "player", p, "has", p.x
  }
  for c in C { if c in pool { pool[c] -= 1 } }
  deck[0] = deck[0] + k
  remove 6 from deck
  add 6 to deck
  log_total = log_total + t
} }
score p: p.x + len(p.seen) + p.rec.a
"""


def program(body: str) -> Program:
    res = load_text(HEAD + body, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


def play(prog: Program, seed: int, one_by_one: bool) -> tuple:
    prog.coverage = set() if one_by_one else None
    s = prog.new_game(3, seed, narrate=True)
    rng = random.Random(seed)
    while not s.over:
        prog.apply(s, rng.randrange(s.pending.count))
    prog.coverage = None
    return s.digest(), s.messages, s.stats, s.result


def test_every_statement_kind_fused_gives_the_same_game() -> None:
    prog = program(EVERY_STATEMENT)
    assert prog.fused.count > 0
    for seed in range(8):
        assert play(prog, seed, one_by_one=False) == play(prog, seed, one_by_one=True)


def test_the_op_of_a_statement_that_never_suspends_is_the_function_written_for_it() -> None:
    """One meaning for such statements, written in fuse.py, and for the control forms, written
    in control.py: run one by one (coverage), each op (an if's arms' tests, a loop's start and
    head, the body's return) is a function written by the methods the fused runs are written
    with, and so is the choice's (decisions.write_choice, the rollout's writer of it); the
    others are the jumps (an arm's end, a loop's way back)."""
    prog = program(EVERY_STATEMENT)
    play(prog, 0, one_by_one=True)
    simple = [st for b in prog.rb.phases for st in A.walk(b.block) if isinstance(st, SIMPLE)
              and not (isinstance(st, A.Let) and isinstance(st.rhs, A.Choose))]
    ops = prog.codes[prog.body_id[("phase", "a")]]
    written = [op for op in ops if getattr(op, "__code__", None) in prog.fused.lines]
    jumps = [op for op in ops if op.__qualname__ == jump(0).__qualname__]
    assert len(simple) == 25
    assert len(written) == 25 + 3 + 2 * 2 + 1 + 1      # the ifs' 3 tests; 2 loops; the choice
    assert len(jumps) == 3 + 2 == len(ops) - len(written)


CONTROL_FORMS = """
event hit(n: int)
player { x: int }
table { total: int }
stat hits counts hit(n) as n when n > 0
on hit(n) when n > 1 { total += n }
proc twice(n: int) -> int {
  if n > 2 { return n * 2 }
  return n + n
}
round r limit 2 { phase a {
  let k = choose first(players) one of [1, 2, 3]
  let t = 0
  while t < 40 limit 20 {
    let c = choose first(players) one of [0, 1]
    t += c + 2
    if t > 30 { break }
  }
  repeat k {
    let y = twice(k)
    emit hit(y)
  }
  for p in players where p != first(players) {
    let d = choose p one of [0, 1]
    p.x += d + total
  }
  if total > 500 { end game }
} }
score p: p.x + total
"""


def test_the_ops_of_the_control_forms_are_the_functions_written_for_them() -> None:
    """A while with its limit, a repeat, a for with where (each with a decision inside, so
    the VM runs their ops), break, a proc call and its returns, an emit that starts a trigger
    and end game: the same games one by one, fused and by the rollout; once run one by one,
    every op but the jumps is a function written by control.py (or fuse.py's `emits`, or
    decisions.write_choice for the choices), the methods the rollout writes them with."""
    prog = program(CONTROL_FORMS)
    for seed in range(6):
        assert play(prog, seed, one_by_one=False) == play(prog, seed, one_by_one=True)
        s = prog.new_game(3, seed)
        prog.playout(s, random.Random(seed))
        assert s.over
    for body in (("phase", "a"), ("proc", "twice")):
        ops = prog.codes[prog.body_id[body]]
        kinds = {"written" if getattr(op, "__code__", None) in prog.fused.lines else
                 "jump" if op.__qualname__ == jump(0).__qualname__ else op.__qualname__
                 for op in ops}
        assert kinds <= {"written", "jump"}, kinds


FAILING = [
    # (rule body, line of the failing statement)
    ("let k = 1\n  let z = 10 / (k - 1)", 5),
    ("let xs = [1]\n  for i in 0..2 {\n    xs[i] = 5\n  }", 6),
    ("let xs = [1, 2]\n  if len(xs) == 3 { xs[0] = 1 }\n  elif xs[5] == 1 { xs[0] = 2 }", 6),
    ("let ys = [1, 2]\n  for i in 0..3 where ys[i] > 0 {\n    ys[0] += 1\n  }", 5),
    ("let m: map<int, int> = {}\n  m[1] += 1", 5),
    ("let xs = [1]\n  remove 2 from xs", 5),
    ("let b: bag<int> = {}\n  move 3 from b to b", 5),
    ("first(players).x = 1\n  let q: player? = none\n  some(q).x = 1", 6),
    ("let m: map<int, int> = {1: 1}\n  remove 1 from m\n  remove 1 from m", 6),
    ("let n = [[1]]\n  add 2 to n[0]\n  add 3 to n[1]", 6),
]


@pytest.mark.parametrize("body,line", FAILING)
def test_a_runtime_error_inside_a_fused_run_names_its_own_line(body: str, line: int) -> None:
    prog = program("player { x: int }\nround r limit 1 { phase a {\n  " + body + "\n} }\n"
                   "score p: p.x\n")
    spans = []
    for one_by_one in (False, True):
        prog.coverage = set() if one_by_one else None
        with pytest.raises(MercatorRuntimeError) as err:
            prog.new_game(2, 0)
        spans.append((err.value.span.line, err.value.span.col, err.value.message))
    assert spans[0] == spans[1] and spans[0][0] == line


def test_a_failing_argument_of_an_emit_that_starts_a_trigger_names_the_emit() -> None:
    """Its op sets the pc on only before it pushes the triggers' frames: one by one too, the
    error is at the emit, as in apply and the rollout (not at the statement after it)."""
    prog = program("event e(n: int)\nplayer { x: int }\non e(n) { first(players).x += n }\n"
                   "round r limit 1 { phase a {\n  let z = 0\n  emit e(1 / z)\n  let w = 2\n} }\n"
                   "score p: p.x\n")
    for one_by_one in (False, True):
        prog.coverage = set() if one_by_one else None
        with pytest.raises(MercatorRuntimeError) as err:
            prog.new_game(2, 0)
        assert (err.value.span.line, err.value.span.col) == (7, 3)


REMEMBERED = """
player { x: int  got: list<int> }
fn menu(p: player) -> list<int> =           # big enough not to be written inline
  [k for k in 0..5 if k <= p.x + round_number and (k % 2 == 0 or k > 3 or p.x > 100)
                      and (k + p.x) % 7 != 6 and (p.x < 50 or k - round_number < 50)]
round r limit 3 { phase a {
  for p in players {
    let m0 = menu(p)
    repeat 1 { }         # (a loop: it ends the run of statements fused into one function)
    p.x += 1
    repeat 1 { }
    let m1 = menu(p)
    let a = [menu(p)]
    repeat 1 { }
    let b = [menu(p)]
    repeat 1 { }
    add 99 to a[0]
    if len(menu(p)) > 0 {
      let k = choose p one of menu(p)
      p.got = p.got + [k, len(m0), len(m1), len(b[0]), len(a[0])]
    }
  }
} }
score p: p.x + sum(p.got)
"""


def test_a_remembered_fn_gives_what_computing_it_again_gives() -> None:
    """menu() is remembered between ops that keep the state (interpreter/compiler/memo.py): not across
    the change to p.x, and a value handed out twice is not shared."""
    prog = program(REMEMBERED)
    assert prog.ex.memo == ["menu"]
    for seed in range(6):
        fast, slow = play(prog, seed, one_by_one=False), play(prog, seed, one_by_one=True)
        assert fast == slow


def test_code_nested_too_deeply_once_fns_are_inline_is_written_again_without() -> None:
    """Python refuses more than 200 nested parentheses: writing g inline inside this deeply
    nested expression would pass that, so the expression is compiled with g called instead."""
    deep = "(" * 180 + "g(p.x)" + " + 1)" * 180
    prog = program("player { x: int }\nfn g(x: int) -> int = x" + " + 1" * 18 + "\n"
                   "round r limit 1 { phase a { for p in players { p.x = " + deep + " } } }\n"
                   "score p: p.x\n")
    assert prog.new_game(2, 0).result.scores == (198, 198)
