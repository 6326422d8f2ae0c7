"""The ``slotscope`` console script: core's command line, with ``dashboard`` served.

This module sits above both packages: ``core`` never imports the dashboard, so
:func:`core.cli.main` is handed :func:`serve`, which starts the web server for
the ``dashboard`` command (``python -m core dashboard`` has none, and says so).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.cli import main as core_main


def serve(host: str, port: int, master: str | None) -> None:
    """Serve the dashboard on host:port; Spark on ``master`` (default local[*])."""
    from dashboard.app import run  # Dash and Flask load (~0.6 s) for this command only

    run(host=host, port=port, master=master)


def main(argv: Sequence[str] | None = None) -> int:
    """``slotscope ...``: every command of :mod:`core.cli`, ``dashboard`` included."""
    return core_main(argv, serve_dashboard=serve)
