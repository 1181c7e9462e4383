"""Time zones for the bill's days: names, the machine's own zone, and the calendar's edges."""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import context_budget.zones as zones
from context_budget.zones import (
    UTC_ZONE,
    Zone,
    as_zone,
    civil,
    day_number,
    day_text,
    find_zone,
    has_zone_database,
    instant_text,
    local_zone,
    month_text,
    week_text,
)

FIRST = datetime(1, 1, 1, tzinfo=UTC).timestamp()
LAST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()


@given(st.dates())
def test_the_calendar_is_python_s_wherever_python_has_one(day: date) -> None:
    days = day_number(day)
    assert civil(days) == (day.year, day.month, day.day)
    assert day_text(days) == day.isoformat()
    assert month_text(days) == day.isoformat()[:7]
    monday = day - timedelta(days=day.weekday())
    if monday.year >= 1:
        assert week_text(days) == monday.isoformat()


@given(st.floats(min_value=FIRST, max_value=LAST), st.sampled_from(["UTC", "Europe/Paris"]))
def test_any_instant_of_the_years_1_to_9999_has_a_day_in_any_zone(
    seconds: float, name: str
) -> None:
    zone = find_zone(name)
    text = day_text(zone.day(seconds))
    year = int(text.split("-")[0])
    assert 0 <= year <= 10_000 and len(text.split("-")) == 3
    assert instant_text(seconds).endswith("Z")


def test_the_edges_of_the_calendar() -> None:
    assert instant_text(FIRST) == "0001-01-01T00:00:00Z"
    assert instant_text(LAST) == "9999-12-31T23:59:59Z"
    assert day_text(find_zone("Asia/Tokyo").day(LAST)) == "10000-01-01"
    assert day_text(find_zone("America/Los_Angeles").day(FIRST)) == "0000-12-31"
    assert week_text(find_zone("America/Los_Angeles").day(FIRST)) == "0000-12-25"


def test_names_tzinfos_and_zones_are_all_zones() -> None:
    assert as_zone("UTC") is UTC_ZONE and as_zone("Etc/UTC") is UTC_ZONE
    assert as_zone(UTC) is UTC_ZONE
    fixed = as_zone(timezone(timedelta(hours=5, minutes=30)))
    assert fixed.offset(0.0) == 5.5 * 3600 and fixed.name == "UTC+05:30"
    paris = find_zone("Europe/Paris")
    assert as_zone(paris) is paris
    with pytest.raises(TypeError, match="IANA name"):
        find_zone(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        as_zone("Mars/Olympus")


def test_without_a_database_only_utc_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the browser's Python: zoneinfo finds no files and no tzdata package."""
    import zoneinfo

    def nothing(key: str) -> zoneinfo.ZoneInfo:
        raise zoneinfo.ZoneInfoNotFoundError(key)

    monkeypatch.setattr(zoneinfo, "ZoneInfo", nothing)
    assert has_zone_database() is False
    assert find_zone("UTC") is UTC_ZONE
    with pytest.raises(ValueError, match="no time zone database in this Python"):
        find_zone("Europe/Paris")


@pytest.mark.parametrize(
    ("tz", "name", "offset"),
    [
        ("", "UTC", 0),
        (":UTC", "UTC", 0),
        ("America/Los_Angeles", "America/Los_Angeles", -8 * 3600),
        (":Asia/Tokyo", "Asia/Tokyo", 9 * 3600),
        (":/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo", 9 * 3600),
        ("/usr/share/zoneinfo/Etc/UTC", "UTC", 0),
        ("EST5EDT,M3.2.0,M11.1.0", "EST5EDT,M3.2.0,M11.1.0", -5 * 3600),
        ("<+03>-3", "<+03>-3", 3 * 3600),
        # a TZ that names no zone leaves the C library in UTC: the days were UTC's, and
        # the column said "day (garbage)"
        ("garbage", "UTC: TZ='garbage' names no zone", 0),
        ("Nowhere/Special", "UTC: TZ='Nowhere/Special' names no zone", 0),
    ],
)
def test_the_machine_s_zone_follows_tz(
    tz: str, name: str, offset: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    if tz.lstrip(":").startswith("/") and not Path(tz.lstrip(":")).is_file():
        pytest.skip(f"no {tz} on this machine")
    monkeypatch.setenv("TZ", tz)
    import time

    time.tzset()
    try:
        zone = local_zone()
        january = datetime(2026, 1, 15, tzinfo=UTC).timestamp()
        assert (zone.name, zone.offset(january)) == (name, offset)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_tz_naming_a_link_into_the_zone_folder_is_named_for_its_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # TZ=:/etc/localtime (set to spare the C library a look at the file on each call) named
    # the bill's days "(/etc/localtime)": the link was named, not the zone it points to
    tokyo = Path("/usr/share/zoneinfo/Asia/Tokyo")
    if not tokyo.is_file():
        pytest.skip(f"no {tokyo} on this machine")
    link = tmp_path / "localtime"
    link.symlink_to(tokyo)
    monkeypatch.setenv("TZ", f":{link}")
    zone = local_zone()
    january = datetime(2026, 1, 15, tzinfo=UTC).timestamp()
    assert (zone.name, zone.offset(january)) == ("Asia/Tokyo", 9 * 3600)
    (tmp_path / "utc").symlink_to(tokyo.parent.parent / "Etc" / "UTC")
    monkeypatch.setenv("TZ", f":{tmp_path / 'utc'}")
    assert local_zone() is UTC_ZONE
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # a loop of links names no zone,
    loop = f":{tmp_path / 'loop'}"  # nor does a path to nothing:
    monkeypatch.setenv("TZ", loop)
    assert local_zone() == Zone(f"UTC: TZ={loop[:60]!r} names no zone")
    monkeypatch.setenv("TZ", ":/no/such/zone")  # the C library counts in UTC then
    assert local_zone() == Zone("UTC: TZ=':/no/such/zone' names no zone")
    assert local_zone().offset(0.0) == 0.0


def test_without_tz_the_machine_s_zone_is_etc_localtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/etc/localtime a link into a zone folder, a copied file named by /etc/timezone, or
    missing (UTC, as the C library counts then)."""
    monkeypatch.delenv("TZ", raising=False)
    folder = tmp_path / "usr" / "share" / "zoneinfo" / "Europe"
    folder.mkdir(parents=True)
    source = next(
        (Path(p) / "Europe" / "Paris" for p in ("/usr/share/zoneinfo",) if Path(p).is_dir()),
        None,
    )
    if source is None or not source.is_file():
        pytest.skip("no zone files on this machine")
    (folder / "Paris").write_bytes(source.read_bytes())
    etc = tmp_path / "etc"
    etc.mkdir()
    paths = {"/etc/localtime": etc / "localtime", "/etc/timezone": etc / "timezone"}
    real = Path

    class Redirected(type(Path())):  # type: ignore[misc]
        def __new__(cls, *parts: str) -> Path:
            text = str(real(*parts))
            return real(paths.get(text, text))

    monkeypatch.setattr(zones, "Path", Redirected)
    assert local_zone() is UTC_ZONE  # no /etc/localtime
    (etc / "localtime").symlink_to(folder / "Paris")
    assert local_zone().name == "Europe/Paris"
    (etc / "localtime").unlink()
    (etc / "localtime").write_bytes(source.read_bytes())
    assert local_zone().name == "localtime"
    (etc / "timezone").write_text("Europe/Paris\n", encoding="utf-8")
    paris = local_zone()
    assert paris.name == "Europe/Paris" and paris.offset(0.0) == 3600
    (etc / "timezone").write_text("Nowhere/Special\n", encoding="utf-8")
    assert local_zone().name == "Nowhere/Special"  # read from the file, named as told
    (etc / "localtime").write_bytes(b"not a zone file")
    unread = local_zone()  # the C library's own reading of it, then
    assert (unread.name, unread.tzinfo) == ("Nowhere/Special", None)


def test_the_browser_s_python_counts_in_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TZ", raising=False)
    monkeypatch.setattr(sys, "platform", "emscripten")
    assert local_zone() is UTC_ZONE


def test_a_zone_of_the_c_library_reads_its_offset_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    try:
        zone = Zone("JST-9", None)
        assert zone.offset(LAST + 3600) == 9 * 3600  # kept inside the calendar
        assert day_text(zone.day(LAST)) == "10000-01-01"
    finally:
        monkeypatch.undo()
        time.tzset()
