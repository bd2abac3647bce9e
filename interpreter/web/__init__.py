"""The browser interface: `mercator serve` runs a small local web server (Starlette, served by
uvicorn) over a game session of interpreter/tools/session.py. Each seat joins by its own secret
link; a page or a message sent to a connection is built only from the view of the seat its token
names (the engine's per-seat observation, interpreter/engine/view.py), and a request without a
valid token sees the spectator's view. It sits above the tools and below the CLI, which only
parses the command's flags and starts it; nothing here knows the rules of a game.
"""
