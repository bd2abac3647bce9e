"""Tools built on the engine and the agents: saved games (saves), searched play that checks
invariants and finds unreached rules (explore), a designer's comparison of rulebooks and
variants (designer), many games on workers or Ray (parallel) and a file that keeps them for a
run taken up again (results), and the game session an interface plays through (session). They
never import the web interface or the CLI.
"""
