"""`python -m mercator.interpreter.cli`: the mercator command."""
from mercator.interpreter.cli.entry import main

raise SystemExit(main())
