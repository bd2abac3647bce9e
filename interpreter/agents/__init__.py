"""Agents: who answers a Decision — a person at the terminal, or a bot.

They see a game only through the engine's interface (pending, apply, clone, observe); they
never import the compiler, the tools or the CLI.
"""
