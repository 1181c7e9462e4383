"""Days, weeks and months of a time zone, for any instant a session can record.

A bill counts its days in one time zone: the call at 16:30 on a winter
afternoon in Los Angeles is on that day there, on the next in UTC. `Zone`
is that zone: an IANA name (`find_zone("America/Los_Angeles")`), UTC, or the
machine's own (`local_zone`, the zone the operating system is set to, as
other cost tools take it).

A saved time may lie anywhere in the years 1 to 9999 (UTC), and a zone's
wall clock may carry it one day further: 9999-12-31T23:00Z is the first
hour of the year 10000 at +01:00. Python's dates stop at 9999, so the
calendar here is computed from the day number (`civil`), which has no end:
a day is `days` since 1970-01-01 in the zone, written `YYYY-MM-DD` (the year
`0000` or `10000` at the two edges).

Where Python has no time zone database (the browser's Python, Pyodide), only
UTC exists: `has_zone_database` says so, and `find_zone` refuses any other
name.

Examples:
    >>> paris = find_zone("Europe/Paris")
    >>> last = 253402297200.0  # 9999-12-31T23:00:00Z
    >>> day_text(UTC_ZONE.day(last)), day_text(paris.day(last))
    ('9999-12-31', '10000-01-01')
    >>> instant_text(last)
    '9999-12-31T23:00:00Z'
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path

__all__ = [
    "UTC_ZONE",
    "Zone",
    "ZoneLike",
    "as_zone",
    "civil",
    "day_number",
    "day_text",
    "find_zone",
    "has_zone_database",
    "instant_text",
    "local_zone",
    "month_text",
    "week_text",
]

_DAY = 86_400
#: The day number of 1970-01-01 in `date.toordinal`'s count (0001-01-01 is 1).
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
#: Instants whose offset is asked of the zone database: within these, a date
#: one day either side is still one Python can hold (seconds since the epoch).
_SAFE_LOW = datetime(1, 1, 3, tzinfo=UTC).timestamp()
_SAFE_HIGH = datetime(9999, 12, 29, tzinfo=UTC).timestamp()
_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT"})
#: A POSIX `TZ` rule (`EST5EDT,M3.2.0,M11.1.0`, `JST-9`, `<+03>-3`): a name of three
#: letters or more (or `<...>`), then the offset the rule needs, then an optional summer part.
_NAME = r"(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)"
_OFFSET = r"[+-]?\d{1,3}(?::\d{1,2}){0,2}"
_POSIX_RULE = re.compile(rf"{_NAME}{_OFFSET}(?:{_NAME}(?:{_OFFSET})?(?:,[^,]+,[^,]+)?)?")


@dataclass(frozen=True)
class Zone:
    """A time zone the bill's days are counted in.

    Attributes:
        name: its name as shown beside the day column: an IANA name such as
            `Europe/Paris`, `UTC`, a POSIX rule `TZ` gives (`EST5EDT`), or UTC
            with why where `TZ` names no zone (`local_zone`).
        tzinfo: the zone's rules; None for the C library's local time (a `TZ`
            the database does not hold, such as a POSIX rule string).
    """

    name: str
    tzinfo: tzinfo | None = field(default=UTC, repr=False, compare=False)

    def offset(self, seconds: float) -> float:
        """The zone's offset from UTC at an instant, in seconds (east positive).

        An instant at the edge of Python's calendar takes the offset of a day
        inside it, so the years 1 and 9999 never overflow.
        """
        if self.tzinfo is UTC:
            return 0.0
        inside = min(max(seconds, _SAFE_LOW), _SAFE_HIGH)
        if self.tzinfo is None:
            return float(time.localtime(inside).tm_gmtoff)
        moment = datetime.fromtimestamp(inside, tz=self.tzinfo).utcoffset()
        return 0.0 if moment is None else moment.total_seconds()

    def day(self, seconds: float) -> int:
        """The instant's day in this zone, as days since 1970-01-01 (`day_text` writes it)."""
        return math.floor((seconds + self.offset(seconds)) / _DAY)


#: UTC, which every Python has, database or not.
UTC_ZONE = Zone("UTC", UTC)

#: What names a zone: an IANA name, a `tzinfo`, or a `Zone`.
ZoneLike = str | tzinfo | Zone


def civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of the day `days` after 1970-01-01, proleptic Gregorian, unbounded.

    Howard Hinnant's `civil_from_days`
    (https://howardhinnant.github.io/date_algorithms.html#civil_from_days).

    Example:
        >>> civil(0), civil(-719_163), civil(2_932_897)
        ((1970, 1, 1), (0, 12, 31), (10000, 1, 1))
    """
    shifted = days + 719_468
    era = shifted // 146_097
    of_era = shifted - era * 146_097
    year_of_era = (of_era - of_era // 1_460 + of_era // 36_524 - of_era // 146_096) // 365
    of_year = of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * of_year + 2) // 153
    day = of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    year = year_of_era + era * 400 + (month <= 2)
    return year, month, day


def day_number(day: date) -> int:
    """A date as days since 1970-01-01 (the count `Zone.day` gives)."""
    return day.toordinal() - _EPOCH_ORDINAL


def day_text(days: int) -> str:
    """`YYYY-MM-DD` of a day number (`Zone.day`); the year may be `0000` or `10000`."""
    year, month, day = civil(days)
    return f"{year:04d}-{month:02d}-{day:02d}"


def week_text(days: int) -> str:
    """The Monday that starts the day's week (ISO weeks start on Monday), as `YYYY-MM-DD`."""
    return day_text(days - (days + 3) % 7)  # 1970-01-01 was a Thursday: (0 + 3) % 7 == 3


def month_text(days: int) -> str:
    """The day's month, as `YYYY-MM`."""
    year, month, _ = civil(days)
    return f"{year:04d}-{month:02d}"


def instant_text(seconds: float) -> str:
    """An instant as ISO 8601 in UTC, `YYYY-MM-DDTHH:MM:SSZ` (the fraction cut, not rounded).

    Written from the day number, so the last second of 9999 stays in 9999.
    """
    whole = math.floor(seconds)
    days, rest = divmod(whole, _DAY)
    hours, rest = divmod(rest, 3_600)
    return f"{day_text(days)}T{hours:02d}:{rest // 60:02d}:{rest % 60:02d}Z"


def has_zone_database() -> bool:
    """True where Python can read IANA time zones (`zoneinfo`), False in a Python without them."""
    try:
        from zoneinfo import ZoneInfo

        ZoneInfo("Europe/Paris")
    except Exception:  # no module, no files, no tzdata package: no database
        return False
    return True


def find_zone(name: str) -> Zone:
    """The zone of an IANA name (`Europe/Paris`, `America/Los_Angeles`, `UTC`).

    Raises:
        TypeError: `name` is not a string.
        ValueError: a name the database does not hold, or, where there is no
            database, any name but UTC (the message says which).
    """
    if not isinstance(name, str):
        raise TypeError(f"a time zone is an IANA name such as 'Europe/Paris', got {name!r:.60}")
    if name in _UTC_NAMES:
        return UTC_ZONE
    try:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        return Zone(name, ZoneInfo(name))
    except ImportError:
        pass
    except (ZoneInfoNotFoundError, ValueError, OSError):
        if has_zone_database():
            raise ValueError(
                f"unknown time zone {name!r:.60}: give an IANA name such as 'Europe/Paris' "
                "or 'America/Los_Angeles', or UTC"
            ) from None
    raise ValueError(
        f"no time zone database in this Python: time zone {name!r:.60} cannot be read "
        "(only UTC can)"
    )


def as_zone(zone: ZoneLike) -> Zone:
    """A `Zone` from an IANA name (`find_zone`), a `tzinfo` or a `Zone`.

    Raises:
        TypeError: anything else.
        ValueError: a name `find_zone` refuses.
    """
    if isinstance(zone, Zone):
        return zone
    if isinstance(zone, tzinfo):
        return UTC_ZONE if zone is UTC else Zone(str(zone), zone)
    return find_zone(zone)


def _zone_file(path: Path, name: str) -> Zone | None:
    """The zone a TZif file holds, named `name`; None if it cannot be read."""
    try:
        from zoneinfo import ZoneInfo

        with path.open("rb") as file:
            return Zone(name, ZoneInfo.from_file(file, key=name))
    except Exception:  # no module, or not a zone file: the caller goes on
        return None


def _key_of(path: Path) -> str | None:
    """The IANA name a path into a zone folder ends in (`…/zoneinfo/Europe/Paris`), or None."""
    parts = path.parts
    for marker in ("zoneinfo", "zoneinfo-leaps", "posix"):
        if marker in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(marker) :]) or None
    return None


def _from_tz(value: str) -> Zone:
    """The zone `TZ` names: an IANA name, a file (`:/path`), or a rule the C library reads.

    A value that is none of these (`TZ=garbage`, a file that is no zone) leaves the C
    library counting in UTC: so do the days, and the name says so and why, e.g.
    `UTC: TZ='garbage' names no zone`.
    """
    key = value.removeprefix(":")
    if not key or key in _UTC_NAMES:
        return UTC_ZONE
    if key.startswith("/"):  # a link (`:/etc/localtime`) is named for the zone it points to
        named = _key_of(Path(key)) or _key_of(Path(os.path.realpath(key))) or key
        found = UTC_ZONE if named in _UTC_NAMES else _zone_file(Path(key), named)
        if found is not None:
            return found
    try:
        return find_zone(key)
    except ValueError:
        pass
    if _POSIX_RULE.fullmatch(key):
        return Zone(key, None)  # a POSIX rule such as EST5EDT,M3.2.0,M11.1.0: the C library's
    return Zone(f"UTC: TZ={value[:60]!r} names no zone", UTC)


def local_zone() -> Zone:
    """The machine's time zone: `TZ` where it is set, else `/etc/localtime`, else UTC.

    The name is the IANA name the setting points to (`/etc/localtime` is
    usually a link into the zone folder), else `/etc/timezone`'s, else
    `localtime`. Without either setting the C library counts in UTC, and so
    does this. A Python in the browser (Pyodide) knows no zone of its own: UTC.
    """
    if "TZ" in os.environ:
        return _from_tz(os.environ["TZ"])
    if sys.platform == "emscripten":
        return UTC_ZONE
    link = Path("/etc/localtime")
    if not link.exists():
        return UTC_ZONE
    key = _key_of(link.resolve())
    if key is None:
        try:
            key = Path("/etc/timezone").read_text(encoding="utf-8").strip() or None
        except OSError:
            key = None
    if key is not None and key in _UTC_NAMES:
        return UTC_ZONE
    if key is not None:
        try:
            return find_zone(key)
        except ValueError:
            pass
    return _zone_file(link, key or "localtime") or Zone(key or "localtime", None)
