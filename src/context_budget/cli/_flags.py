"""A flag's whole number, read one way for every command.

`whole_number(unit, least)` is the argparse `type` of every flag that takes
a count (`inspect --budget` and `--max-bytes`, `whatif --clear-at`,
`--compact-at`, `--summary-tokens` and `--keep`): digits, with thousands
separators allowed as a user copies them from a report (`50,000`, `50_000`)
where they stand between groups of three digits (`50,00` or `1,5` is a typo or
a decimal comma, not 5,000 or 15), at least `least`; anything else is one line
naming the flag's unit and the value seen.

Example:
    >>> tokens = whole_number("token", least=1)
    >>> tokens("50,000")
    50000
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

__all__ = ["whole_number"]

#: Digits, in groups of three after the first where a separator (`,` or `_`) stands.
_GROUPED = re.compile(r"\s*[+-]?(\d+|\d{1,3}(,\d{3})+|\d{1,3}(_\d{3})+)\s*")


def whole_number(unit: str = "", least: int = 0) -> Callable[[str], int]:
    """An argparse `type`: a whole number of `unit` (`"token"`, `"byte"`; `""` for a
    plain count), `least` or more.

    The function it gives raises `argparse.ArgumentTypeError`, which argparse
    prints as one line after the flag's name: `not a whole number of tokens:
    '1e5'`, `must be >= 1 token, got 0`.
    """
    of = f" of {unit}s" if unit else ""
    least_text = f"{least} {unit}{'' if least == 1 else 's'}" if unit else str(least)

    def parse(text: str) -> int:
        try:
            if not _GROUPED.fullmatch(text):
                raise ValueError(text)
            value = int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number{of}: {text!r:.40}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be >= {least_text}, got {value}")
        return value

    return parse
