"""Reading session files holds the cyclic garbage collector off, and gives it back as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.bill import generate_project
from context_budget import read_bill
from context_budget.sessions.text import gc_paused


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection the collector starts while the test runs."""
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


def test_reading_a_project_folder_starts_no_collection_until_it_is_read(
    tmp_path: Path, collections: list[int]
) -> None:
    generate_project(tmp_path, 400_000)  # collected dozens of times while read, before
    assert gc.isenabled()
    gc.collect()  # every generation's count from zero, whatever ran before in this process
    collections.clear()
    bill = read_bill(tmp_path)
    assert bill.calls
    assert len(collections) <= 2  # the first young-generation passes once it is back on
    assert gc.isenabled()


@pytest.mark.parametrize("on", [True, False])
def test_the_collector_is_left_as_it_was_even_after_an_error(on: bool) -> None:
    was = gc.isenabled()
    (gc.enable if on else gc.disable)()
    try:
        with pytest.raises(ValueError, match="bad line"), gc_paused():
            assert not gc.isenabled()
            raise ValueError("bad line")
        assert gc.isenabled() is on
    finally:
        (gc.enable if was else gc.disable)()
