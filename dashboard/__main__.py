"""``python -m dashboard [--host 127.0.0.1] [--port 8050] [--master URL]``."""

from __future__ import annotations

import argparse

from dashboard.app import run


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m dashboard", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8050)
    parser.add_argument("--master", default=None, help="Spark master URL (default local[*])")
    args = parser.parse_args()
    run(host=args.host, port=args.port, master=args.master)


if __name__ == "__main__":
    main()
