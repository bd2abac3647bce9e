"""Mercator: a rules-as-data engine for board games.

The installed package: `mercator.dsl` (the rulebook language: parser, checker), `mercator.interpreter`
(compiler, engine, agents, tools, research adapters, web, command line), `mercator.rulebooks` (the
shipped games, variants, examples and libraries), and the research adapters by their short names,
`mercator.openspiel` and `mercator.pettingzoo`. In the repository the first three are the folders
dsl/, interpreter/ and rulebooks/ at its root: an installed wheel holds them inside mercator/
(pyproject.toml maps the folders), and a source tree run in place (a checkout on PYTHONPATH, an
editable install, an unpacked sdist) finds them beside this folder, through the search path set
below.
"""
import os as _os

if __name__ != "mercator":
    raise ImportError(f"Mercator's package was imported a second time, as {__name__!r}; import it "
                      "as 'mercator' only (two copies of its modules would hold two copies of every "
                      "class, and their values would never compare equal)")


def _source_tree_path(here: str) -> list[str]:
    """The folders in which mercator's subpackages are found besides this one: in a source tree
    (dsl/ beside mercator/ rather than inside it) the tree's root."""
    root = _os.path.dirname(here)
    if not _os.path.isdir(_os.path.join(here, "dsl")) and \
            _os.path.isfile(_os.path.join(root, "dsl", "grammar.lark")):
        return [root]
    return []


__path__ += _source_tree_path(_os.path.dirname(_os.path.abspath(__file__)))  # noqa: F821
