"""The command line (`mercator`): argument parsing, messages and exit codes, on top of every
other layer. main.py holds the player's commands (check, play, simulate, replay, fmt), design.py
the designer's (diff, compare), common.py what both share."""
