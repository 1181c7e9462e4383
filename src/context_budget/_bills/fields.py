"""Small, strict getters shared by the readers: whole numbers and times."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

__all__ = ["count", "epoch", "short"]


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
