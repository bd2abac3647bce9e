"""The command line (`mercator`): argument parsing, messages and exit codes, on top of every
other layer. entry.py is the installed script (it answers --version alone), main.py holds
the parser and the player's commands (check, play, replay, fmt), simulate.py `simulate`,
design.py the designer's (diff, compare), common.py what they share."""
