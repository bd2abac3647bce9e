"""The generated code compiled by Cython (issue 37's moonshot): an optional path, off unless
asked for (`compile_program(..., native=True)` or MERCATOR_NATIVE=1), with the pure-Python
path as the fallback.

How: the rulebook is built twice. The first build records the source of every piece of code
the compiler generates (CodeGen._code: fns, expressions, fused runs, the compiled rollout's
bodies and resume points, the any-time actions' offers); the pieces are written into one
module (each `lambda s, L: e` as `def _E<k>(s, L): return e`, each piece of `def`s with its
functions renamed `_N<k>_<name>`), cut into translation units of about UNIT_KB of source each
(MERCATOR_NATIVE_UNIT_KB), which Cython compiles to C and the C compiler, one unit after
another, to one extension module each (the C compiler's peak memory is one unit's: a whole
large game at -O2 needed more than 6 GB), kept in the per-user cache directory
(dsl/parse_cache.cache_dir, subfolder native/) under a digest of the units' source, Cython's
version, Python's and the C flags. The second build runs with the first unit's `__dict__` as
the namespace every piece is run in: each piece, written again with the same text, is bound to
its compiled function in place of being compiled by Python (a piece the module lacks, or one
Cython refused, stays Python). The compiled functions read their globals (tables, constants,
the step budget, the rollout's context) from that dict, as the Python functions read the
namespace, so the games are the same: the other units' C is rewritten to take that same dict
as their globals (_shared_globals), so a name bound in the namespace at any time is seen by all.

Each Program gets its own copy of the extension modules (a copy of each .so loaded from a
temporary file), since a module's globals belong to one Program.

What differs: Cython's traceback frames carry no locals, so an error inside compiled code is
relocated to its statement by the traceback's line only where the frame is known without them:
a fused run called by the VM's loop (Fused.relocate: the frame on top of the stack); inside the
compiled rollout it is reported at the statement its frame's pc was left at.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from typing import Any, Callable, Optional

from mercator.interpreter.engine.program import Program

from mercator.interpreter.engine.exprs import NATIVE as NATIVE_PREFIX  # the modules' names
_LAMBDA = re.compile(r"lambda ([\w, ]*):")
_DEF = re.compile(r"def (\w+)\(")
_ERROR_LINE = re.compile(r":(\d+):\d+:")
_warned: set[str] = set()
# about this much Python source in each translation unit (KB; docs/performance.md, session 36)
UNIT_KB = 256
_EXT = sysconfig.get_config_var("EXT_SUFFIX") or ".so"     # an extension module's file ending
_copies = 0
# what the last native_program did (for benchmarks and tests): pieces, compiled, hits, ...
last: dict[str, Any] = {}


def _warn(why: str) -> None:
    if why not in _warned:
        _warned.add(why)
        print(f"mercator: the native (Cython) path is not used: {why}; running pure Python",
              file=sys.stderr)


class NativeLink:
    """CodeGen's link: records the pieces (first build), or binds them to the compiled
    module's functions (second build; `globals` the module's __dict__)."""

    def __init__(self, aliases: Optional[dict] = None, globals: Optional[dict] = None):
        self.aliases = aliases
        self.globals = globals
        self.recorded: list[tuple[str, str]] = []
        self.starts: dict[str, int] = {}   # a compiled def's name -> its piece's first line
        self.hits = 0
        self.misses = 0

    def piece(self, text: str, mode: str) -> Optional[str]:
        if self.aliases is None:
            self.recorded.append((mode, text))
            return None
        alias = self.aliases.get((mode, text))
        if alias is None:
            self.misses += 1
        else:
            self.hits += 1
        return alias  # type: ignore[no-any-return]


def adopt(ex: Any, funcs: tuple) -> None:
    """With the native link, each of funcs (engine helpers the generated code calls often, callers
    before their callees) that the namespace holds is replaced by a copy written from its own
    source as a piece (so compiled with the module); the globals it reads are put in the
    namespace. A function that would read a name bound otherwise there stays as it is."""
    if ex.native is None:
        return
    ns = ex.ns
    done: dict = ns.setdefault("_ADOPTED", {})       # original -> its copy
    for f in funcs:
        names = [k for k, v in ns.items() if v is f]
        if names and f not in done:
            done[f] = _adopted(ex, f, done)
        if names and done[f] is not None:
            for k in names:
                ns[k] = done[f]


def helpers() -> tuple:
    """The engine's helpers adopt compiles with the rulebook's code (callers first)."""
    from mercator.interpreter.compiler.decisions import (draw_item, drawable, in_bag, roll_die,
                                                         sample_item)
    from mercator.interpreter.engine import limits
    from mercator.interpreter.engine.builtins import RUNTIME_BUILTINS
    from mercator.interpreter.engine.exprs import take_item
    from mercator.interpreter.engine.state import rng_below
    from mercator.interpreter.engine.values import deep_copy, flat_copy
    return (draw_item, sample_item, drawable, in_bag, take_item, roll_die, rng_below,
            limits.charged,
            limits.lazy_range, limits.int_range, limits.bag_walk, flat_copy, deep_copy,
            *RUNTIME_BUILTINS.values())


def _adopted(ex: Any, f: Any, done: dict) -> Any:
    """f written again from its source (no annotations) into the namespace, or None."""
    import ast
    import dis
    import inspect
    import textwrap
    ns = ex.ns
    if not inspect.isfunction(f) or f.__name__ == "<lambda>":
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    except (OSError, TypeError, SyntaxError):
        return None
    fn = tree.body[0]      # (the name checked: the file may have changed since it was loaded)
    if not isinstance(fn, ast.FunctionDef) or fn.name != f.__name__ or fn.decorator_list or \
            f.__code__.co_freevars or \
            any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
        return None
    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    fn.returns = None
    used = {n.id for d in [*a.defaults, *a.kw_defaults] if d is not None
            for n in ast.walk(d) if isinstance(n, ast.Name)}
    # a default read from a global (charged's `_m=METER`, bound once) becomes a local bound at
    # the start: the module evaluates defaults when it loads, before its globals are put in
    if a.posonlyargs or any(d is not None for d in a.kw_defaults):
        return None
    while a.defaults and not isinstance(a.defaults[-1], ast.Constant):
        fn.body.insert(0, ast.Assign([ast.Name(a.args.pop().arg, ast.Store())], a.defaults.pop(),
                                     lineno=0))
    if not all(isinstance(d, ast.Constant) for d in a.defaults):
        return None
    codes = [f.__code__]
    while codes:
        code = codes.pop()
        used |= {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
        codes.extend(c for c in code.co_consts if inspect.iscode(c))
    if ns.get(f.__name__, f) is not f:
        return None
    for name in used:
        if name not in f.__globals__:         # a builtin: the namespace must not bind it
            if name in ns:
                return None
        elif name not in ns:
            ns[name] = f.__globals__[name]
        elif ns[name] is not f.__globals__[name] and ns[name] is not done.get(f.__globals__[name]):
            return None
    exec(ex.build(lambda: ast.unparse(fn) + "\n", f"<helper {f.__name__}>", "exec"), ns)
    return ns[f.__name__]


def _piece_source(k: int, mode: str, text: str) -> Optional[tuple[str, str]]:
    """(module source of piece k, the code binding it where the piece ran), or None when the
    piece is not of a shape written into the module."""
    if mode == "eval":
        m = _LAMBDA.match(text)
        if m is None:
            return None
        return (f"def _E{k}({m.group(1)}):\n    return (\n{text[m.end():]}\n    )\n",
                f"_E{k}")
    if mode != "exec":
        return None
    import ast
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if not tree.body or not all(isinstance(n, ast.FunctionDef) and not n.decorator_list
                                for n in tree.body):
        return None
    lines = text.split("\n")
    names = []
    for n in tree.body:
        assert isinstance(n, ast.FunctionDef)
        i = n.lineno - 1
        if not lines[i].startswith(f"def {n.name}("):
            return None
        lines[i] = f"def _N{k}_{n.name}(" + lines[i][len(f"def {n.name}("):]
        names.append(n.name)
    src = "\n".join(lines)
    if not src.endswith("\n"):
        src += "\n"
    return src, "".join(f"{n} = _N{k}_{n}\n" for n in names)


# Cython's directives, in the module's first line (so in its source, and in the cache's key):
# none that changes Python's semantics (no C integer types, division or indexing). binding=True:
# the fused runs and rollout bodies are keyed by their __code__ and carry attributes (fuse.py).
# emit_code_comments=False: no copy of each source line in the C (Manila's 28.9 MB of C to
# 24.8 MB; the same speed, docs/performance.md)
_HEADER = ("# cython: language_level=3, binding=True, infer_types=False, "
           "annotation_typing=False, always_allow_keywords=False, "
           "emit_code_comments=False\n"
           "# generated by mercator's compiler from a rulebook (compiler/native.py)\n")


# What a unit's size counts: its source, and each function as DEF_WEIGHT bytes more. Cython
# writes about 30 bytes of C a byte of source and about 12 KB more for each function (its
# wrapper, code object, creation in the module's init); Die Händler's first unit, cut by source
# alone, held 655 small functions (16 MB of C against 9-11 MB for the others) and the C
# compiler's peak was 2.2 GB in it against at most 1.1 GB in the others (docs/performance.md,
# session 36).
DEF_WEIGHT = 400
_DEFS = re.compile(r"^[ \t]*def ", re.M)


def _unit_bytes() -> int:
    """How much Python source goes into one translation unit (MERCATOR_NATIVE_UNIT_KB; 0: the
    whole module in one)."""
    try:
        kb = int(os.environ.get("MERCATOR_NATIVE_UNIT_KB") or UNIT_KB)
    except ValueError:
        kb = UNIT_KB
    return max(kb, 0) * 1024


def module_source(recorded: list[tuple[str, str]], skip: set[int], unit: int = 0
                  ) -> tuple[list[str], dict, list, dict]:
    """The module's source cut into units of about `unit` bytes each (functions weighted: see
    DEF_WEIGHT; one unit if 0; a piece is never cut), the aliases ((mode, text) -> binding
    code), each piece's first and last line in its unit, its number and its unit's (for
    Cython's errors), and the first line of the piece of each compiled `def` in its unit (by
    its name, for Fused.relocate)."""
    units: list[list[str]] = [[_HEADER]]
    size = len(_HEADER)
    line = _HEADER.count("\n") + 1
    aliases: dict = {}
    starts: dict[str, int] = {}
    spans: list[tuple[int, int, int, int]] = []
    k = 0
    for mode, text in recorded:
        if (mode, text) in aliases:
            continue
        k += 1
        if k in skip:
            continue
        got = _piece_source(k, mode, text)
        if got is None:
            continue
        src, alias = got
        weight = len(src) + DEF_WEIGHT * len(_DEFS.findall(src))
        if unit and size > len(_HEADER) and size + weight > unit:
            units.append([_HEADER])      # a new translation unit (its lines counted afresh)
            size = len(_HEADER)
            line = _HEADER.count("\n") + 1
        n = src.count("\n")
        spans.append((line, line + n, k, len(units) - 1))
        line += n + 1
        size += weight + 1
        units[-1].append(src + "\n")
        aliases[(mode, text)] = alias
        if mode == "exec":                 # a def's compiled name -> its piece's first line
            for ln in alias.splitlines():
                starts[ln.split(" = ")[1]] = spans[-1][0]
    return ["".join(u) for u in units], aliases, spans, starts


# Cython's command line, with names it does not see defined left to be looked up when run (the
# module's globals are the namespace put in after loading, as for the Python pieces)
_CYTHON = ("import sys\nfrom Cython.Compiler import Options\n"
           "Options.error_on_unknown_names = False\n"
           "from Cython.Compiler.Main import main\n"
           "sys.argv = ['cython'] + sys.argv[1:]\nmain(command_line=1)\n")


def _cflags() -> list[str]:
    return (os.environ.get("MERCATOR_NATIVE_CFLAGS") or "-O2").split()


def _cache_root() -> Optional[str]:
    from mercator.dsl.parse_cache import cache_dir
    root = cache_dir()
    if root is None:
        return None
    out = os.path.join(root, "native")
    os.makedirs(out, mode=0o700, exist_ok=True)
    return out


# The C of every unit but the first is changed in one place: where the module's init takes its
# own __dict__ as the dict its functions read their globals from (and bind its defs in), it takes
# the dict put in the module as `__mercator_globals__` before the init runs (_load: the first
# unit's __dict__, the Program's namespace). So all units read the same namespace, as the one
# module did, and a name bound in it later (the rollout's context, made on first use) is seen by
# all. Cython offers no way to give a module another globals dict: the one line is found by its
# text, and a Cython that writes it otherwise fails the build (one warning; pure Python runs).
_GLOBALS_LINE = re.compile(r"([\w>-]*__pyx_d) = PyModule_GetDict\(__pyx_m\);")
_GLOBALS_NAME = "__mercator_globals__"
_GLOBALS_C = (r'\1 = PyDict_GetItemString(PyModule_GetDict(__pyx_m), "' + _GLOBALS_NAME + '");'
              r' if (!\1 && !PyErr_Occurred()) PyErr_SetString(PyExc_ImportError,'
              r' "a unit of the native module needs the namespace of the first (' + _GLOBALS_NAME
              + r')");')


def _shared_globals(c_file: str) -> None:
    """Rewrite the C of a unit after the first to read its globals from the shared namespace
    (the dict is borrowed, as PyModule_GetDict's: the init's next line takes its reference)."""
    with open(c_file) as f:
        c = f.read()
    c, n = _GLOBALS_LINE.subn(_GLOBALS_C, c)
    if n != 1:
        raise RuntimeError(f"Cython's C has {n} places where the module takes its globals "
                           "(1 expected); set MERCATOR_NATIVE_UNIT_KB=0 for one unit")
    with open(c_file, "w") as f:
        f.write(c)


def _unit_names(name: str, count: int) -> list[str]:
    """The extension modules' names: the digest's own for one unit, else one per unit."""
    return [name] if count == 1 else [f"{name}_{i}" for i in range(count)]


def _compile_module(units: list[str], spans: list, where: str, name: str
                    ) -> tuple[Optional[list[str]], set[int], str]:
    """Cython, then the C compiler, for each unit: (paths of the extensions, pieces Cython
    refused, error). Cython runs on every unit before the C compiler on any (a refusal costs no
    C compile); the C compiler runs on one unit after another, so its peak memory is one
    unit's, not the whole module's."""
    work = tempfile.mkdtemp(prefix="build-", dir=where)
    names = _unit_names(name, len(units))
    try:
        bad: set[int] = set()
        errors = ""
        for i, (unit, mod) in enumerate(zip(units, names)):
            with open(os.path.join(work, mod + ".py"), "w") as f:
                f.write(unit)
            r = subprocess.run([sys.executable, "-c", _CYTHON, "-3", mod + ".py", "-o",
                                mod + ".c"], cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                errors += r.stdout + r.stderr
                for m in _ERROR_LINE.finditer("\n".join(
                        ln for ln in (r.stdout + r.stderr).splitlines()
                        if ln.startswith(mod + ".py:"))):
                    ln = int(m.group(1))
                    bad.update(k for a, b, k, u in spans if u == i and a <= ln <= b)
                if not bad:
                    return None, bad, errors[-400:]
            elif i > 0:
                _shared_globals(os.path.join(work, mod + ".c"))
        if errors:
            return None, bad, errors[-400:]
        cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "gcc"
        for mod in names:
            cmd = cc.split() + ["-shared", "-fPIC", "-pthread", "-fno-strict-aliasing",
                                "-DNDEBUG", *_cflags(), "-I" + sysconfig.get_paths()["include"],
                                mod + ".c", "-o", mod + _EXT]
            r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                return None, set(), (r.stdout + r.stderr)[-400:]
            os.remove(os.path.join(work, mod + ".c"))      # (tens of MB each)
        finals = [os.path.join(where, mod + _EXT) for mod in names]
        # the first unit last: the cache holds the module once its first unit is there
        for mod, final in reversed(list(zip(names, finals))):
            os.replace(os.path.join(work, mod + _EXT), final)
        return finals, set(), ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _load(paths: list[str], names: list[str]) -> Any:
    """A fresh copy of the extension module (its own globals): each unit loaded from a
    temporary copy of its file (the dynamic loader gives a path already loaded the same module
    again), the units after the first with the first's __dict__ as their globals."""
    global _copies
    _copies += 1
    work = tempfile.mkdtemp(prefix="load-")
    try:
        first = None
        for path, name in zip(paths, names):
            copy = os.path.join(work, f"{name}_{_copies}" + os.path.splitext(path)[1])
            shutil.copyfile(path, copy)
            loader = importlib.machinery.ExtensionFileLoader(name, copy)
            spec = importlib.util.spec_from_file_location(name, copy, loader=loader)
            assert spec is not None
            mod = importlib.util.module_from_spec(spec)     # (made; its init not yet run)
            if first is not None:
                mod.__dict__[_GLOBALS_NAME] = first.__dict__
            loader.exec_module(mod)
            if first is None:
                first = mod
        return first
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_module(recorded: list[tuple[str, str]]) -> tuple[Optional[Any], dict, dict, str]:
    """(the compiled module, aliases, starts, why not) for the recorded pieces: from the cache,
    or compiled now (Cython's refusals drop the pieces it names and compile again)."""
    try:
        import Cython
    except ImportError:
        return None, {}, {}, "Cython is not installed (pip install 'mercator[native]')"
    root = _cache_root()
    if root is None:
        return None, {}, {}, "no private per-user cache directory (MERCATOR_CACHE_DIR)"
    skip: set[int] = set()
    spent = 0.0
    for _ in range(6):
        units, aliases, spans, starts = module_source(recorded, skip, _unit_bytes())
        # one unit: the digest as before the units (its module is built as it was then);
        # several: the cut is in it (each unit's source), and the C's rewriting
        parts = units[:1] if len(units) == 1 else [*units, f"units:{len(units)}",
                                                   _GLOBALS_C]
        key = hashlib.sha256("\0".join([*parts, Cython.__version__, sys.version,
                                        " ".join(_cflags())]).encode()).hexdigest()[:24]
        name = NATIVE_PREFIX + key
        names = _unit_names(name, len(units))
        paths = [os.path.join(root, n + _EXT) for n in names]
        built = all(os.path.exists(p) for p in paths)
        refused = os.path.join(root, name + ".refused")   # pieces Cython refused, kept
        if not built and os.path.exists(refused):
            try:                     # (Cython is not run again for them on the next load)
                with open(refused) as f:
                    more = {int(w) for w in f.read().split()}
            except (OSError, ValueError):
                more = set()
            if more - skip:
                skip |= more
                continue
        last.update(pieces=len(aliases), path=paths[0], module=name, skipped=len(skip),
                    compile_seconds=spent, units=len(units))
        if not built:
            # minutes at -O2 for a large game: say so before, and how long it took after
            print(f"mercator: compiling the game's code with Cython ({len(aliases)} pieces"
                  + (f" in {len(units)} units" if len(units) > 1 else "")
                  + f"; the first time for this rulebook, it may take minutes; kept in {root})",
                  file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            got, bad, err = _compile_module(units, spans, root, name)
            spent += time.perf_counter() - t0
            last["compile_seconds"] = spent
            if got is None and bad - skip:
                with open(refused, "w") as f:
                    f.write(" ".join(map(str, sorted(bad))) + "\n")
                skip |= bad
                continue
            if got is None:
                return None, {}, {}, f"the build failed ({err.strip().splitlines()[-1:]})"
            print(f"mercator: compiled in {spent:.0f} s", file=sys.stderr, flush=True)
        return _load(paths, names), aliases, starts, ""
    return None, {}, {}, "Cython refused too many pieces"


def native_program(rb: Any, step_budget: int,
                   build: Callable[[Program, NativeLink], None]) -> Optional[Program]:
    """The Program with its generated code compiled by Cython, or None (with a warning)
    where that cannot be done."""
    if shutil.which(os.environ.get("CC") or "gcc") is None and \
            shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]) is None:
        _warn("no C compiler found")
        return None
    rec = NativeLink()
    first = Program(rb, step_budget)
    try:
        build(first, rec)
        _record_lazy(first, getattr(first.make_rollout, "compilers"))
    except Exception:
        return None             # (the Python build reports it)
    try:
        mod, aliases, starts, why = build_module(rec.recorded)
    except Exception as exc:    # anything the tools do: the Python path
        mod, aliases, starts, why = None, {}, {}, f"{type(exc).__name__}: {exc}"
    if mod is None:
        _warn(why)
        return None
    link = NativeLink(aliases, mod.__dict__)
    link.starts = starts
    prog = Program(rb, step_budget)
    build(prog, link)
    prog.native = link          # type: ignore[attr-defined]
    last.update(hits=link.hits, misses=link.misses)
    return prog


def _record_lazy(prog: Program, compilers: list) -> None:
    """Have the first build write the pieces made on first use: the compiled rollout with
    every resume point, the fields' starting values, the any-time actions' offers for each
    number of players. (Written on first use in the second build, each must be written with
    the same text: a resume point numbers its temporaries on its own, Rollout._entry.)"""
    from mercator.interpreter.compiler.rollout import Rollout
    ro = Rollout(prog, compilers)
    adopt(prog.ex, helpers())      # (the helpers the rollout names: as build.make_rollout)
    for bid, bc in enumerate(compilers, 1):
        if ro.bodies[bid] is None:
            continue
        for pc, (path, head) in ro._entry_points(bc).items():
            ro._entry(bid, bc, pc, path, head)
    prog.start_values()            # type: ignore[attr-defined]  # (the fields' defaults)
    acts: Any = prog.actions      # type: ignore[attr-defined]
    if acts.bodies:
        for n in range(1, 9):
            try:
                acts.offer_for(n)
                acts._public_offs[n] = acts._generate_public_off(n)
            except Exception:
                pass
