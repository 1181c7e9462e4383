"""Readers of recorded usage, one module per file format (private).

Each reader turns one saved file into a `Reading`: one `Call` per API call,
deduplicated the way its format needs, plus what the file itself recorded
(a total cost, a total of tokens). `context_budget.bills` adds them up.
"""
