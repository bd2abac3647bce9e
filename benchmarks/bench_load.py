"""Start-up and loading costs, each in a fresh Python process: --version, import, check, compile.

    .venv/bin/python benchmarks/bench_load.py [--repeat 5] [--warmup 1]

Each measurement runs as its own subprocess (the same Python as this script, working directory
the measured checkout) and is timed from outside, start to exit: the median, min and max of
--repeat runs, after --warmup untimed runs. Bytecode: the children write and read it under a
private temporary PYTHONPYCACHEPREFIX (filled by the warm-up runs, so imports are as warm as an
installed package's, whatever PYTHONDONTWRITEBYTECODE says and without writing __pycache__ into
the checkout); --no-bytecode runs them with PYTHONDONTWRITEBYTECODE=1 and no prefix instead, so
they read only the .pyc files already beside the sources (the installed standard library and
packages have them; a checkout only ever used that way has none, and its modules are compiled
in every run). Per-user
caches (such as a cached parser) are warm too; --cold-cache gives every run an empty
XDG_CACHE_HOME. The load rows also
report the time measured inside the child, from before its first import of dsl to the end.
- python -c pass: the interpreter's own start-up, for reference;
- mercator --version: `python -m mercator.interpreter.cli --version` (if that fails, as the
  older form `python -c "from mercator.interpreter.cli import main; main(['--version'])"`);
- import dsl.loader: `python -c "import mercator.dsl.loader"`;
- load: dsl.loader.load of every rulebooks/*.rules, rulebooks/variants/*.rules and
  rulebooks/lib/*.rules in one process (parse + check; each must have no error);
- load + compile: the same, then compile_program (interpreter.program.Program in older
  checkouts) of each loaded file that is a game (not a library);
- mercator check: `python -m mercator.interpreter.cli check` of all those files, end to end.
(An older checkout on PYTHONPATH, from before the package was named mercator, is run by its
top-level names: `interpreter.cli`, `dsl.loader`.)

Then, per file (issue 37, checking at editor speed), one row for each of those files:
- check: `python -m mercator.interpreter.cli check FILE` in a fresh process, the file as it is
  (what an editor asks when nothing changed; per-user caches warm from the warm-up run);
- check, edited: the same on a copy of rulebooks/ in a temporary folder where, before every run
  (warm-up included), a new comment line is added to the end of FILE (what an editor asks after
  each keystroke: nothing made from that text is in any cache, its libraries and bases are);
- in-process, edited: inside one process that has checked FILE once (everything imported,
  its libraries parsed, its text as it is checked once more), the median of --repeat checks
  of FILE's text with a new comment line each time (dsl.loader.load_text, then the compile
  `mercator check` does): the cost of one check in a process an editor keeps open; "in-proc,
  mid": the same with the comment line in the middle of the file instead of at its end (what
  follows it moves down a line);
- served, edited: as "check, edited", with `mercator check --server` running (started in the
  same environment, so it serves those commands; its first check, cold, among the untimed
  warm-up runs): each command asks it for the edited file's outcome and prints it;
- watch, edited: `mercator check --watch FILE` kept running on the temporary copy: --repeat
  times a new comment line is added to FILE and the time the next check took is read from the
  line it prints ("checked in N ms"; the wait for it to notice the change is not counted);
  "watch, mid": then --repeat times a comment line inserted in the middle of the file; '-'
  for a checkout without --watch.
--per-file-only skips the rows above; --warm-only also the per-file rows of fresh processes
(check, edited); --files PATTERN... measures only those files.

--parts (instead of everything above) says where an edited check's time goes, in one fresh
process: the imports one by one (attrs, the AST, the loader, the parser with lark, the checker,
cli.common with the compiler and the engine), then for each --files file (default: manila and
genoa) the median of --repeat edits (a comment line added in the middle of the file, after
the file was parsed as it is) of: parse, check (dsl.checker.check_items on the parsed
declarations, its libraries' included) and the compile `mercator check` runs; and, timed
apart, the part of that compile before any body is written: the code generator made, the
constants computed and the fns defined (interpreter/compiler/build.py, `_build`). One untimed run
first (it fills the bytecode cache).

Old checkouts: PYTHONPATH=<old checkout> .venv/bin/python benchmarks/bench_load.py measures that
checkout (its code and its rulebooks; the header names it): the children inherit PYTHONPATH and
run in that checkout's directory. This checkout is used only when nothing else provides `dsl`
and `interpreter`. A checkout of the package mercator on PYTHONPATH (mercator/ beside dsl/) is
measured the same way, by the names mercator.*.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # bench_common beside this script (not an engine path)
from bench_common import _old_checkout, describe  # noqa: E402

# the checkout's installed names: an older checkout's top-level packages, or mercator.*
PKG = "" if _old_checkout() else "mercator."

LOAD = """
import glob, os, sys, time
t0 = time.perf_counter()
from {pkg}dsl.loader import load
paths = sys.argv[1:]
results = [(p, load(p)) for p in paths]
bad = [p for p, r in results if not (r.ok or r.library)]
if bad:
    sys.exit("errors in " + ", ".join(bad))
if COMPILE:
    import {pkg}interpreter as interpreter
    pkg = os.path.dirname(interpreter.__file__)
    if os.path.isfile(os.path.join(pkg, "compiler", "__init__.py")):
        from {pkg}interpreter.compiler import compile_program
    else:
        from {pkg}interpreter.program import Program as compile_program
    games = [compile_program(r.rulebook) for p, r in results if r.rulebook is not None]
    print("compiled", len(games))
print("seconds", time.perf_counter() - t0)
""".replace("{pkg}", PKG)


def find_checkout() -> tuple[str, dict[str, str]]:
    """(checkout that provides dsl and interpreter, environment for the children).

    PYTHONPATH (or an installed mercator) wins; our own checkout is added, last, only when
    neither package can be imported otherwise."""
    env = dict(os.environ)
    old = _old_checkout() or _package_checkout()
    if old:
        return old, env
    if ROOT not in sys.path:
        sys.path.append(ROOT)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), ROOT) if p)
    return ROOT, env


def _package_checkout() -> str:
    """The checkout of the package mercator (mercator/ beside dsl/) first on PYTHONPATH, or ''."""
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isfile(os.path.join(entry, "mercator", "__init__.py")) and \
                os.path.isfile(os.path.join(entry, "dsl", "grammar.lark")):
            return os.path.abspath(entry)
    return ""


class Failed(Exception):
    """A child exited with an error."""


def run(argv: list[str], cwd: str, env: dict[str, str], cold: bool,
        no_bytecode: bool) -> tuple[float, str]:
    """Run one child; (wall seconds, its stdout). Raises Failed on a non-zero exit. cold: with
    XDG_CACHE_HOME a new empty directory (no per-user cache, e.g. of the parser tables);
    no_bytecode: none written, only .pyc files already beside the sources read."""
    with tempfile.TemporaryDirectory() as empty:
        if cold:
            env = {**env, "XDG_CACHE_HOME": empty}
        if no_bytecode:
            env = {k: v for k, v in env.items() if k != "PYTHONPYCACHEPREFIX"}
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        t0 = time.perf_counter()
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise Failed((p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"])
    return dt, p.stdout


def measure(argv: list[str], cwd: str, env: dict[str, str], repeat: int, warmup: int,
            cold: bool, no_bytecode: bool) -> tuple[list[float], list[float], str]:
    """(wall seconds of each timed run, in-child seconds reported by each, last stdout)."""
    walls, inner, out = [], [], ""
    for k in range(warmup + repeat):
        dt, out = run(argv, cwd, env, cold, no_bytecode)
        if k >= warmup:
            walls.append(dt)
            for line in out.splitlines():
                if line.startswith("seconds "):
                    inner.append(float(line.split()[1]))
    return walls, inner, out


def ms(x: float) -> str:
    """Seconds as milliseconds with the unit."""
    return f"{x * 1000:,.0f} ms"


def main(argv: Optional[list[str]] = None) -> None:
    """Print one line per measurement."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  .venv/bin/python benchmarks/bench_load.py --repeat 5\n"
               "  PYTHONPATH=../old-checkout .venv/bin/python benchmarks/bench_load.py")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each (default: 5)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed runs of each first (default: 1)")
    ap.add_argument("--cold-cache", action="store_true",
                    help="run every child with XDG_CACHE_HOME set to a new empty directory, so "
                         "per-user caches (such as a cached parser) are rebuilt in each run; "
                         "Python's own bytecode caches stay warm")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="PYTHONDONTWRITEBYTECODE=1 in the children and no private cache: "
                         "modules without a .pyc beside them are compiled in every run")
    ap.add_argument("--per-file-only", action="store_true",
                    help="measure only the per-file rows (check FILE, edited, in-process)")
    ap.add_argument("--warm-only", action="store_true",
                    help="only the per-file rows of a kept process (in-process and watch), "
                         "not those of fresh processes")
    ap.add_argument("--files", nargs="+", metavar="PATH",
                    help="the files of the per-file rows, relative to the checkout "
                         "(default: every file measured above)")
    ap.add_argument("--parts", action="store_true",
                    help="only: where an edited check's time goes (imports, parse, check, "
                         "compile), in one process")
    args = ap.parse_args(argv)
    checkout, env = find_checkout()
    pycache = tempfile.TemporaryDirectory(prefix="bench_load_pycache_")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache.name
    py = sys.executable
    files = [os.path.relpath(p, checkout) for pattern in
             ("rulebooks/*.rules", "rulebooks/variants/*.rules", "rulebooks/lib/*.rules")
             for p in sorted(glob.glob(os.path.join(checkout, pattern)))]
    print(f"engine: {describe(checkout)}; python {sys.version.split()[0]}; {len(files)} files "
          f"(rulebooks/*.rules, variants/, lib/)")
    cold = ", each with an empty XDG_CACHE_HOME" if args.cold_cache else ""
    cold += ", PYTHONDONTWRITEBYTECODE=1 (no bytecode written)" if args.no_bytecode else \
        ", bytecode cached"
    print(f"wall = one fresh process, start to exit, over {args.repeat} runs after "
          f"{args.warmup} untimed{cold}; in-process = from the child's first dsl import to "
          f"its end")
    if args.parts:
        _, _, out = measure([py, "-c", PARTS, str(args.repeat),
                             *(args.files or ["rulebooks/manila.rules", "rulebooks/genoa.rules"])],
                            checkout, env, 1, 1, args.cold_cache, args.no_bytecode)
        print(out, end="")
        return
    if not (args.per_file_only or args.warm_only):
        totals(args, checkout, env, py, files)
    per_file(args, checkout, env, py, args.files or files)


def totals(args: argparse.Namespace, checkout: str, env: dict[str, str], py: str,
           files: list[str]) -> None:
    """The rows of start-up, import, load and check of every file together."""
    print(f"{'measurement':34s} {'median':>9s} {'min':>9s} {'max':>9s} {'in-process':>11s}")
    version = [[py, "-m", f"{PKG}interpreter.cli", "--version"],
               [py, "-c", f"from {PKG}interpreter.cli import main; main(['--version'])"]]
    rows: list[tuple[str, list[list[str]]]] = [
        ("python -c pass (start-up)", [[py, "-c", "pass"]]),
        ("mercator --version", version),
        ("import dsl.loader", [[py, "-c", f"import {PKG}dsl.loader"]]),
        (f"load {len(files)} files", [[py, "-c", "COMPILE = False\n" + LOAD, *files]]),
        (f"load {len(files)} files + compile games",
         [[py, "-c", "COMPILE = True\n" + LOAD, *files]]),
        (f"mercator check ({len(files)} files)",
         [[py, "-m", f"{PKG}interpreter.cli", "check", *files]]),
    ]
    for name, forms in rows:
        problem = ""
        for form in forms:                       # the first form that works
            try:
                walls, inner, out = measure(form, checkout, env, args.repeat, args.warmup,
                                            args.cold_cache, args.no_bytecode)
                break
            except Failed as exc:
                problem = str(exc.args[0])
        else:
            print(f"{name:34s} failed: {problem}", flush=True)
            continue
        if form is version[1]:
            name += " (old form)"
        if "compiled " in out:
            name = name.replace("games", out.split("compiled ")[1].split()[0] + " games")
        inside = ms(statistics.median(inner)) if inner else "-"
        print(f"{name:34s} {ms(statistics.median(walls)):>9s} {ms(min(walls)):>9s} "
              f"{ms(max(walls)):>9s} {inside:>11s}", flush=True)


CHECK_IN_PROCESS = """
import statistics, sys, time
from {pkg}dsl.loader import load, load_text
from {pkg}interpreter.cli.common import compiles
repeat, path = int(sys.argv[1]), sys.argv[2]
with open(path, encoding="utf-8") as f:
    text = f.read()
res = load(path)                 # everything imported, the file's libraries and bases parsed
if res.rulebook is not None:
    compiles(res)
res = load_text(text, path)      # (the text as it is, once: what an editor checked last)
lines = text.split("\\n")
mid = len(lines) // 2
for where in ("end", "mid"):
    times = []
    for k in range(repeat):
        note = f"# edit {k} {time.time()}"
        edited = text + f"\\n{note}\\n" if where == "end" else \\
            "\\n".join(lines[:mid] + [note] + lines[mid:])
        t0 = time.perf_counter()
        res = load_text(edited, path)
        if any(d.is_error for d in res.diagnostics):
            sys.exit(f"{path}: errors")
        if res.rulebook is not None and not compiles(res):
            sys.exit(f"{path}: does not compile")
        times.append(time.perf_counter() - t0)
    print("seconds", statistics.median(times))
""".replace("{pkg}", PKG)


PARTS = """
import statistics, sys, time
t = [time.perf_counter()]
names = ["attrs", "{pkg}dsl.ast", "{pkg}dsl.loader", "{pkg}dsl.parser", "{pkg}dsl.checker",
         "{pkg}interpreter.cli.common"]
for name in names:
    __import__(name)
    t.append(time.perf_counter())
labels = ["attrs", "ast", "loader", "parser+lark", "checker", "cli.common (compiler, engine)"]
print("imports, ms: " + ", ".join(f"{n} {1e3 * (b - a):.0f}" for n, a, b in zip(labels, t, t[1:])))
from {pkg}dsl.loader import load, load_text
from {pkg}dsl.parser import parse
from {pkg}dsl.checker import check_items
from {pkg}interpreter.tools.game import game_of
from {pkg}interpreter.compiler.codegen import CodeGen
repeat = int(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    game_of(load(path))
    parse(text, path)
    lines = text.split("\\n")
    mid = len(lines) // 2
    rows = []
    for k in range(repeat):      # a comment line added in the middle of the file
        edited = "\\n".join(lines[:mid] + [f"# edit {k} {time.time()}"] + lines[mid:])
        a = time.perf_counter(); parse(edited, path); b = time.perf_counter()
        res = load_text(edited, path)          # (untimed: its parse reuses the one above)
        c = time.perf_counter()
        check_items(tuple(res.items), path, res.sources); d = time.perf_counter()
        game_of(res).program; e = time.perf_counter()
        ex = CodeGen(res.rulebook)             # what the compile spends before any body
        early = ex.const_fns()
        if early:
            ex.define_fns(early)
        ex.define_consts(); ex.define_fns(); f = time.perf_counter()
        rows.append((b - a, d - c, e - d, f - e))
    med = [1e3 * statistics.median(r[i] for r in rows) for i in range(4)]
    print(f"{path}, ms (median of {repeat} edits): parse {med[0]:.0f}, check {med[1]:.0f}, "
          f"compile {med[2]:.0f} (of which constants and fns {med[3]:.0f})")
""".replace("{pkg}", PKG)


def per_file(args: argparse.Namespace, checkout: str, env: dict[str, str], py: str,
             files: list[str]) -> None:
    """One row per file: `mercator check FILE` in a fresh process as the file is and after an
    edit, and one edited check inside a warm process."""
    print(f"\nper file: `mercator check FILE`, wall of a fresh process (median of {args.repeat} "
          f"after {args.warmup} untimed); edited = a new comment line added before each run; "
          f"in-process = median of {args.repeat} edited checks in one warm process")
    heads = ["check", "edited", "served", "in-process", "in-proc, mid", "watch", "watch, mid"]
    print(f"{'file':48s} " + " ".join(f"{h:>12s}" for h in heads))
    cli = [py, "-m", f"{PKG}interpreter.cli", "check"]
    with tempfile.TemporaryDirectory(prefix="bench_load_edit_") as copy:
        shutil.copytree(os.path.join(checkout, "rulebooks"), os.path.join(copy, "rulebooks"))
        for path in files:
            cells = []
            try:
                if args.warm_only:
                    cells += ["-", "-", "-"]
                else:
                    cells += fresh_checks(args, checkout, copy, env, cli, path)
                    cells.append(served(args, copy, env, cli, path))
                _, inner, _ = measure([py, "-c", CHECK_IN_PROCESS, str(args.repeat), path],
                                      checkout, env, 1, 0, args.cold_cache, args.no_bytecode)
                cells += [ms(x) for x in inner]
                for took in watched(cli + ["--watch", path], copy, env, path, args.repeat):
                    cells.append(ms(statistics.median(took)) if took else "-")
            except Failed as exc:
                cells.append(f"failed: {exc.args[0]}")
            print(f"{path:48s} " + " ".join(f"{c:>12s}" for c in cells), flush=True)


def fresh_checks(args: argparse.Namespace, checkout: str, copy: str, env: dict[str, str],
                 cli: list[str], path: str) -> list[str]:
    """The cells of `mercator check FILE` in fresh processes: the file as it is, and the copy
    in `copy` with a comment line added before each run."""
    walls, _, _ = measure(cli + [path], checkout, env, args.repeat, args.warmup,
                          args.cold_cache, args.no_bytecode)
    cells = [ms(statistics.median(walls))]
    edited = os.path.join(copy, path)
    walls = []
    for k in range(args.warmup + args.repeat):
        with open(edited, "a", encoding="utf-8") as f:
            f.write(f"\n# edit {k}\n")
        dt, _ = run(cli + [path], copy, env, args.cold_cache, args.no_bytecode)
        if k >= args.warmup:
            walls.append(dt)
    return cells + [ms(statistics.median(walls))]


def served(args: argparse.Namespace, copy: str, env: dict[str, str], cli: list[str],
           path: str) -> str:
    """The cell of `mercator check FILE` in fresh processes with a check server running (`check
    --server`, started here in the same environment, its first check untimed among the warm-up
    runs), a comment line added to the copy before each run; '-' for a checkout without
    --server."""
    proc = subprocess.Popen(cli + ["--server", "--idle", "10"], cwd=copy, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline() if proc.stderr is not None else ""
        if "ready" not in first and "already running" not in first:
            return "-"
        edited = os.path.join(copy, path)
        walls = []
        for k in range(args.warmup + args.repeat):
            with open(edited, "a", encoding="utf-8") as f:
                f.write(f"\n# served edit {k}\n")
            dt, _ = run(cli + [path], copy, env, False, args.no_bytecode)
            if k >= args.warmup:
                walls.append(dt)
        return ms(statistics.median(walls))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def watched(argv: list[str], cwd: str, env: dict[str, str], path: str,
            repeat: int) -> tuple[list[float], list[float]]:
    """The seconds each of `repeat` checks took in `mercator check --watch` (argv) after an
    edit of `path`, as it reports them: a comment line added at the end, then `repeat` times
    one added in the middle of the file; [] when the checkout has no --watch."""
    import queue
    import threading
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout or ()] + [lines.put("")],
                     daemon=True).start()

    def next_check() -> Optional[float]:
        while True:
            line = lines.get(timeout=120)
            if not line:                                  # it ended: no --watch
                return None
            if line.startswith("checked in "):
                return float(line.split()[2]) / 1000
    took: tuple[list[float], list[float]] = ([], [])
    where = os.path.join(cwd, path)
    try:
        if next_check() is None:
            return took
        for k in range(2 * repeat):
            with open(where, encoding="utf-8") as f:
                rows = f.read().split("\n")
            if k < repeat:
                rows.append(f"# watched edit {k}\n")
            else:
                rows.insert(len(rows) // 2, f"# watched edit {k}")
            with open(where + ".part", "w", encoding="utf-8") as f:
                f.write("\n".join(rows))
            os.replace(where + ".part", where)        # (never seen half written)
            got = next_check()
            if got is None:
                return took
            took[k >= repeat].append(got)
    finally:
        proc.terminate()                 # (SIGINT may be ignored in a background job)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return took


if __name__ == "__main__":
    main()
