"""Mercator: a rules-as-data engine for board games.

The installed package: `mercator.dsl` (the rulebook language: parser, checker), `mercator.interpreter`
(compiler, engine, agents, tools, research adapters, web, command line), `mercator.rulebooks` (the
shipped games, variants, examples and libraries), and the research adapters by their short names,
`mercator.openspiel` and `mercator.pettingzoo`. In the repository the first three are the folders
dsl/, interpreter/ and rulebooks/ (this folder links to them).
"""
