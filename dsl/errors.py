"""The one base of every error Mercator raises on purpose (exported as mercator.MercatorError).

It lives in dsl/, the lowest layer, so that the rulebook language and every layer of the
interpreter can derive from it; `except mercator.MercatorError` catches a rulebook that does
not check (dsl.diagnostics.RulebookError), a rule that fails while running
(interpreter.engine.exprs.RuleError), an illegal choice, an unreadable save, and the rest. A
Python error (TypeError, KeyError, ...) is never one of them: it is a bug in Mercator.
"""
from __future__ import annotations


class MercatorError(Exception):
    """Base of every error Mercator raises on purpose (docs/python.md lists them)."""
