"""The compiler: a checked rulebook (dsl.checked) → a Program of the engine.

It owns everything that turns rule text into fast Python once per rulebook: expressions and
fns as generated code (codegen, inline, memo), statements as ops (stmts) and the decisions and
chance among them (decisions), runs of ops fused into generated functions (fuse), the any-time
actions' offer functions (actions), starting values (defaults), the assembly (build), and the
rollout random playouts run (rollout: each body one generated function). It
imports the engine's run-time helpers, which the generated code calls; the engine never
imports it.
"""
from mercator.interpreter.compiler.build import compile_program

__all__ = ["compile_program"]
