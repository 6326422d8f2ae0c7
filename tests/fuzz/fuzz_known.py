"""Fuzz cases that still fail, with their cause (marked xfail(strict=True) in the tests).

Written from a run of the corpus. A fixed cause shows up as an unexpected pass: delete
its lines. What is left is accepted input the issue wants refused or named otherwise,
never a traceback. None is left today: add a case here only with its cause, e.g.
``"import:storm-supervisor-host=number": "a host given as a number becomes a node id"``.
"""

KNOWN: dict[str, str] = {}
