"""Mercator's rulebook language: text → parse → check → a checked rulebook (the package
mercator.dsl; it never imports mercator.interpreter)."""

if __name__ != "mercator.dsl":
    raise ImportError(
        f"this is Mercator's dsl package, imported as {__name__!r}: import it as "
        "'mercator.dsl' (the repository's mercator/ folder finds dsl/ beside it). Importing "
        "it under another name would load a second copy of every module beside mercator.dsl, "
        "whose classes never compare equal to the first copy's")

