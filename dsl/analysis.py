"""Flow checks on a rulebook that passed the type checker, each "on the face of the rules": they
read conditions, guards and statements as written, not values (docs/diagnostics.md says what
each accepts).

W251  a statement, branch, trigger, action or phase that can never run   (dsl/check_reach.py)
W292  a decision whose options may be empty, with no 'with pass'         (dsl/check_options.py)
W293  a conservation law changed on one side only                        (dsl/check_conservation.py)
"""
from __future__ import annotations

from mercator.dsl.check_conservation import Conservation
from mercator.dsl.check_options import Analysis
from mercator.dsl.check_reach import Reachability
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic


def analyse(rb: CheckedRulebook) -> list[Diagnostic]:
    """The flow warnings of a checked rulebook."""
    an = Analysis(rb)
    an.check_choices()
    cons = Conservation(rb)
    cons.check()
    reach = Reachability(rb, an)
    reach.check()
    return an.diags + cons.diags + reach.diags
