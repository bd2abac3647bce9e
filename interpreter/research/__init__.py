"""The research interface: adapters that make any rulebook a game of the research frameworks —
OpenSpiel (`openspiel.py`, the extra `mercator[openspiel]`) and, next, PettingZoo. They stand on
the engine's action ids (engine/encoding.py), information states, views and resampling, and on
the tools' rulebook names (tools/rulebooks.py); nothing below imports them."""
