"""``python -m context_budget``: the ``context-budget`` command (see ``context_budget.cli``)."""

from __future__ import annotations

from context_budget.cli import entry

if __name__ == "__main__":
    entry()
