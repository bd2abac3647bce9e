"""The command line (`mercator`): argument parsing, messages and exit codes, on top of every
other layer. main.py holds the parser and the player's commands (check, play, replay, fmt),
simulate.py `simulate`, design.py the designer's (diff, compare), common.py what they share."""
