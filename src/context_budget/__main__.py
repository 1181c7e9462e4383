"""``python -m context_budget``: the ``context-budget`` command (see ``context_budget.cli``)."""

from __future__ import annotations

import sys

from context_budget.cli import main

if __name__ == "__main__":
    sys.exit(main())
