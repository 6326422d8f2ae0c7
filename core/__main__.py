"""``python -m core``: the slotscope command line."""

import sys

from core.cli import main

sys.exit(main())
