"""The simulator's one typed error."""

from __future__ import annotations


class SimulationError(ValueError):
    """A bad argument to the simulator; ``argument`` names it.

    ``str(error)`` is one line: ``tuples: 5 is outside [100, 2000000]``.
    """

    def __init__(self, argument: str, message: str):
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message
