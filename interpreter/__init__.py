"""Mercator's interpreter, in layers (each imports only the layers before it, and dsl/):

- engine/   — runs a compiled game: Program, State, Decision/Chance/Terminal, values, views
- compiler/ — a checked rulebook → an engine Program (generated Python, ops, fused runs)
- agents/   — who answers a decision: random bots, a person at the terminal
- tools/    — saves, explore (searched play), designer (compare rulebooks and variants)
- cli/      — the `mercator` command

docs/architecture.md shows the flow of data and where each kind of change goes.
"""

if __name__ != "mercator.interpreter":
    raise ImportError(
        f"this is Mercator's interpreter package, imported as {__name__!r}: import it as "
        "'mercator.interpreter' (the repository's mercator/ folder finds interpreter/ beside it). Importing "
        "it under another name would load a second copy of every module beside mercator.interpreter, "
        "whose classes never compare equal to the first copy's")

