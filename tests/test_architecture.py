"""The import contract (docs/architecture.md): dsl/ never imports interpreter/; inside
interpreter/ the layers engine < compiler < agents < tools < research < web < cli import only
downward; and no
module imports, directly or through others, itself.

Imports are read from the source with `ast`, at module level and inside functions alike (a lazy
import is an import); those under `if TYPE_CHECKING:` are only for type hints: they may not go
upward either, but they are left out of the cycle check.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mercator.dsl.graphs import strongly_connected

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["engine", "compiler", "agents", "tools", "research", "web", "cli"]


def module_name(path: Path) -> str:
    """'interpreter.engine.state' for interpreter/engine/state.py (packages by their __init__)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _package_of(module: str, is_package: bool) -> str:
    """The package a relative import in `module` starts from."""
    return module if is_package else module.rpartition(".")[0]


def _resolve(name: str, level: int, package: str) -> str:
    """The absolute name of `from <level dots><name> import ...` written in `package`."""
    if level == 0:
        return name
    base = package.split(".")
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([name] if name else []))


_DYNAMIC = ("import_module", "__import__")


def imports_in_source(source: str, module: str, is_package: bool = False
                      ) -> list[tuple[str, bool, int]]:
    """(imported module, only for type checking?, line) of every import in a module's source:
    `import x`, `from x import y`, relative imports (`from ..engine import state`), and
    `importlib.import_module("x")` / `__import__("x")` with a literal name. A dynamic import of a
    name computed at run time cannot be checked: it is reported as the module '<dynamic>'."""
    tree = ast.parse(source)
    package = _package_of(module, is_package)
    found: list[tuple[str, bool, int]] = []

    def walk(node: ast.AST, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = typing_only or _type_checking_block(child)
            if isinstance(child, ast.Import):
                found.extend((a.name, inner, child.lineno) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(child.module or "", child.level, package)
                if child.module or child.level == 0:
                    found.append((base, inner, child.lineno))
                # `from interpreter.engine import limits` imports the module engine.limits
                found.extend((f"{base}.{a.name}", inner, child.lineno) for a in child.names)
            elif isinstance(child, ast.Call):
                func = child.func
                called = func.attr if isinstance(func, ast.Attribute) else \
                    func.id if isinstance(func, ast.Name) else ""
                if called in _DYNAMIC:
                    arg = child.args[0] if child.args else None
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        name = arg.value
                        level = len(name) - len(name.lstrip("."))
                        found.append((_resolve(name.lstrip("."), level, package), inner,
                                      child.lineno))
                    else:
                        found.append(("<dynamic>", inner, child.lineno))
            walk(child, inner)
    walk(tree, False)
    # the installed package is mercator.*: mercator.interpreter.engine.state is the module
    # interpreter/engine/state.py
    return [(m[len("mercator."):] if m.startswith("mercator.") else m, t, line)
            for m, t, line in found]


def imports_of(path: Path) -> list[tuple[str, bool, int]]:
    """(imported module, only for type checking?, line) of every import in a file."""
    return imports_in_source(path.read_text(encoding="utf-8"), module_name(path),
                             path.name == "__init__.py")


def bare_imports(path: Path) -> list[str]:
    """Imports of dsl or interpreter not through mercator.* (they would load a second copy)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and \
            node.level == 0 else []
        out += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                if n.split(".")[0] in ("dsl", "interpreter")]
    return out


def project_graph() -> dict[str, list[tuple[str, bool, int]]]:
    """Every module of dsl/ and interpreter/ with its imports of project modules."""
    files = sorted((ROOT / "dsl").rglob("*.py")) + sorted((ROOT / "interpreter").rglob("*.py"))
    mods = {module_name(f): f for f in files}
    graph: dict[str, list[tuple[str, bool, int]]] = {}
    for name, path in mods.items():
        graph[name] = [(m, t, line) for m, t, line in imports_of(path)
                       if m in mods or m == "<dynamic>"]
    return graph


def layer_of(module: str) -> int | None:
    """The layer index of an interpreter module (None for dsl and the package itself)."""
    parts = module.split(".")
    if parts[0] != "interpreter" or len(parts) < 2:
        return None
    return LAYERS.index(parts[1])


def violations(graph: dict[str, list[tuple[str, bool, int]]]) -> list[str]:
    """Every broken rule of the contract, as text."""
    bad = []
    for mod, imps in graph.items():
        for target, _, line in imps:
            if target == "<dynamic>":
                bad.append(f"{mod}:{line} imports a module whose name is computed at run time: "
                           "the contract cannot check it (import it by name)")
                continue
            if mod.startswith("dsl") and target.startswith("interpreter"):
                bad.append(f"{mod}:{line} imports {target}: dsl/ never imports interpreter/")
            lm, lt = layer_of(mod), layer_of(target)
            if lm is not None and lt is not None and lt > lm:
                bad.append(f"{mod}:{line} imports {target}: {LAYERS[lm]} may not import "
                           f"{LAYERS[lt]} (layers: {' < '.join(LAYERS)})")
    edges = {m: {t for t, typing_only, _ in imps if not typing_only and t != m}
             for m, imps in graph.items()}
    for comp in strongly_connected(edges):
        if len(comp) > 1:
            bad.append("import cycle: " + " -> ".join(sorted(comp)))
    return bad


def test_every_interpreter_module_is_in_a_layer() -> None:
    names = [m for m in project_graph() if m.startswith("interpreter.")]
    assert names
    for m in names:
        assert m.split(".")[1] in LAYERS, f"{m} is in no layer of {LAYERS}"


def test_the_import_contract_holds() -> None:
    assert violations(project_graph()) == []


def test_each_layer_says_what_it_owns() -> None:
    for layer in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / "interpreter" / layer / "__init__.py").read_text()))
        assert doc and len(doc.split()) >= 15, f"interpreter/{layer}/__init__.py needs a docstring"


@pytest.mark.parametrize("graph, expected", [
    ({"dsl.checker": [("interpreter.engine.state", False, 3)], "interpreter.engine.state": []},
     "dsl/ never imports interpreter/"),
    ({"interpreter.engine.program": [("interpreter.compiler.build", True, 9)],
      "interpreter.compiler.build": []}, "engine may not import compiler"),
    ({"interpreter.tools.saves": [("interpreter.cli.main", False, 4)], "interpreter.cli.main": []},
     "tools may not import cli"),
    ({"interpreter.tools.session": [("interpreter.web.app", False, 4)], "interpreter.web.app": []},
     "tools may not import web"),
    ({"interpreter.web.app": [("interpreter.cli.common", False, 4)], "interpreter.cli.common": []},
     "web may not import cli"),
    ({"interpreter.cli.main": [("interpreter.cli.design", False, 1)],
      "interpreter.cli.design": [("interpreter.cli.main", False, 2)]}, "import cycle"),
])
def test_the_contract_catches_each_kind_of_violation(graph: dict, expected: str) -> None:
    found = violations(graph)
    assert any(expected in v for v in found), found


def test_a_type_only_import_within_a_layer_is_no_cycle() -> None:
    graph = {"interpreter.compiler.stmts": [("interpreter.compiler.decisions", False, 1)],
             "interpreter.compiler.decisions": [("interpreter.compiler.stmts", True, 2)]}
    assert violations(graph) == []


def test_everything_imports_the_project_as_mercator() -> None:
    files = [p for top in ("dsl", "interpreter", "tests", "mercator") for p in
             sorted((ROOT / top).rglob("*.py"))]
    bad = [b for f in files for b in bare_imports(f)]
    assert bad == []


@pytest.mark.parametrize("source, module, expected", [
    # a relative import reaching up a layer
    ("from ..cli import main\n", "interpreter.tools.saves", "tools may not import cli"),
    ("from ..interpreter.engine import state\n", "dsl.checker", "dsl/ never imports interpreter/"),
    ("from ..web.app import serve\n", "interpreter.agents.base", "agents may not import web"),
    # importlib, at module level or inside a function
    ("import importlib\ndef f():\n    return importlib.import_module('mercator.interpreter.cli.main')\n",
     "interpreter.engine.state", "engine may not import cli"),
    ("def f():\n    return __import__('mercator.interpreter.web.app')\n",
     "interpreter.compiler.build", "compiler may not import web"),
    ("import importlib\nname = 'x'\nimportlib.import_module(name)\n", "interpreter.engine.state",
     "computed at run time"),
])
def test_the_contract_reads_every_form_of_import(source: str, module: str, expected: str) -> None:
    imports = imports_in_source(source, module)
    graph = {module: imports, **{m: [] for m, _, _ in imports}}
    found = violations(graph)
    assert any(expected in v for v in found), found


def test_a_relative_import_in_a_package_init_starts_from_that_package() -> None:
    assert imports_in_source("from .state import State\n", "interpreter.engine", True)[0][0] \
        == "interpreter.engine.state"
    assert imports_in_source("from . import state\n", "interpreter.engine.program")[0][0] \
        == "interpreter.engine.state"
