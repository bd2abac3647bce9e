"""The engine: what runs a game once a rulebook is compiled.

It owns the Program at run time (new_game, pending, apply, the VM loop, results), the State (a
value: cloned, compared, hashed, written to JSON), the nodes a game waits at (Decision, Chance,
Terminal), run-time values and the helpers generated code calls (values, exprs, builtins,
limits), chance, each seat's record and view (seen, view). It imports only dsl/ (for spans and
types) and itself: never the compiler, the agents, the tools or the CLI.
"""
