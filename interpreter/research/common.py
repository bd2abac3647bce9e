"""What the research adapters share."""
from __future__ import annotations


class ResearchError(ValueError):
    """A rulebook or a parameter an adapter cannot use, said so that the user can fix it."""
