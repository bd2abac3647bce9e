"""Tools built on the engine and the agents: saved games (saves), searched play that checks
invariants and finds unreached rules (explore), and a designer's comparison of rulebooks and
variants (designer). They never import the CLI.
"""
