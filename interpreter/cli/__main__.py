"""`python -m interpreter.cli`: the mercator command."""
from mercator.interpreter.cli.main import main

raise SystemExit(main())
