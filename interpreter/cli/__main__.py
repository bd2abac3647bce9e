"""`python -m interpreter.cli`: the mercator command."""
from interpreter.cli.main import main

raise SystemExit(main())
