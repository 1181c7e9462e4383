"""Small, strict getters shared by the readers: JSON text, whole numbers and times."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["count", "epoch", "json_lines", "json_text", "short"]


def json_text(text: str, where: str) -> Any:
    """One JSON document parsed, or a ValueError naming `where` and what is wrong.

    Besides text that is not JSON, refused: nesting too deep for the parser
    (a RecursionError) and a number with more digits than Python converts.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{where}: the JSON is nested too deeply to read") from None
    except ValueError:  # subtle: int("9" * 5000) is refused by Python, not by the parser
        limit = sys.get_int_max_str_digits()
        raise ValueError(f"{where}: a number has more than {limit:,} digits") from None


def json_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """`(where, value)` for each non-blank line of a JSON Lines file, read as it streams.

    `where` is `"<file name>:<line number>"`, for the readers' error messages.

    Raises:
        ValueError: a line that `json_text` refuses, or bytes that are not UTF-8.
    """
    with path.open(encoding="utf-8") as handle:
        try:
            for number, text in enumerate(handle, 1):
                if text.strip():
                    where = f"{path.name}:{number}"
                    yield where, json_text(text, where)
        except UnicodeDecodeError as error:
            raise ValueError(f"{path}: not UTF-8 text ({error.reason})") from None


def count(value: Any, where: str) -> int:
    """A token count: a whole number >= 0 (None and a missing field are 0).

    Raises:
        ValueError: a negative, fractional, boolean or non-numeric count,
            naming `where`.
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: a token count must be a whole number >= 0, got {value!r:.60}")
    return value


def epoch(value: Any, where: str) -> float | None:
    """Seconds since the Unix epoch from an ISO time or a number; None if absent.

    A time without a zone is taken as UTC.

    Raises:
        ValueError: a time that is neither, naming `where`.
    """
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{where}: a time must be finite, got {value!r}")
        return float(value)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{where}: not an ISO time: {value!r:.60}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    raise ValueError(f"{where}: a time must be an ISO string or a number, got {value!r:.60}")


def short(session: str) -> str:
    """A session id's first dash-separated part (a UUID's first 8 hex digits)."""
    return session.split("-", 1)[0] or session
