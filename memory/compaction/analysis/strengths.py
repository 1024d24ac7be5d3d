"""How decision-like a sentence is, in either language: the scale the rule modules share."""

from __future__ import annotations

EXPLICIT = 3.0
"""A subject with a decision verb, or a matter declared settled."""
CONFIRMED = 2.75
"""A confirmation label ("Agreed:", "Decision:") in front of what was decided."""
RULE = 2.5
"""A rule, constraint, adopted proposal or plan stated as such."""
PLAN = 2.0
"""What we will (not) do, a change we made."""
COMMITMENT = 1.5
"""What I will do, with something concrete (a time, a name, a number)."""
