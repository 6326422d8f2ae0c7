"""The simulator's one typed error: a :class:`core.settings.SettingsError` naming its argument.

The rules (a positive finite rate, whole-number counts in their ranges, a seed
>= 0) and their wording live in :mod:`core.settings`; the simulator applies
them to its own arguments (:func:`core.simulator.simulate` and friends) and
names the argument as the Python caller wrote it (``rate``, ``tuples``), where
the settings name the field as a web user reads it.
"""

from __future__ import annotations

from core.settings import SettingsError


class SimulationError(SettingsError):
    """A bad argument to the simulator; ``argument`` names it.

    ``str(error)`` is one line: ``tuples: 5 is not between 100 and 2,000,000``.
    Catching :class:`core.settings.SettingsError` catches it too.
    """

    def __init__(self, argument: str, message: str):
        super().__init__(argument, message)
        self.argument = argument
