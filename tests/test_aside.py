"""Work done aside (`_aside`): a forked child's answer, or the same work done here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from forking import LINUX, children_allowed

import context_budget._aside as _aside
import context_budget.bills as bills
from context_budget import read_bill
from context_budget._aside import Aside, Frames, aside, aside_frames, can_fork
from context_budget.cli._bill import report

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / "docs" / "measured" / "sessions"
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"

forks = pytest.mark.skipif(not LINUX, reason="children are made on Linux alone")


@pytest.fixture(autouse=True)
def _threads_allowed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test runner's worker runs threads of its own, idle while a test runs: the checks
    here fork all the same (`test_one_thread_is_counted_as_the_system_counts_them` checks
    the rule)."""
    with children_allowed(monkeypatch):
        yield


@forks
def test_the_answer_comes_from_a_child_when_one_can_be_made() -> None:
    with aside(os.getpid) as pending:
        assert pending.pid > 0
        there = pending.result()
    assert isinstance(there, int) and there != os.getpid()  # another process answered


def test_without_a_child_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    with aside(os.getpid, worth=False) as pending:
        assert pending.pid == 0 and pending.result() == os.getpid()
    monkeypatch.setenv("CONTEXT_BUDGET_NO_FORK", "1")
    assert not can_fork()
    with aside(os.getpid) as pending:
        assert pending.pid == 0 and pending.result() == os.getpid()


@forks
def test_one_thread_is_counted_as_the_system_counts_them() -> None:
    """In a process of one thread a child is made; once a second runs, none is."""
    script = (
        "import threading\n"
        "from context_budget._aside import aside, can_fork\n"
        "print(can_fork(), aside(lambda: 1).pid > 0)\n"
        "stop = threading.Event()\n"
        "threading.Thread(target=stop.wait).start()\n"
        "print(can_fork(), aside(lambda: 1).pid > 0)\n"
        "stop.set()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CONTEXT_BUDGET_NO_FORK"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.split() == ["True", "True", "False", "False"]


def _raises() -> int:
    raise ValueError("bad figure: 7")


def _dies() -> int:
    if os.getpid() != PARENT:  # in the child: killed before it answers
        os.kill(os.getpid(), signal.SIGKILL)
    return 41


def _unpicklable() -> object:
    return (lambda: 1) if os.getpid() != PARENT else "here"


PARENT = os.getpid()


@forks
def test_a_child_that_fails_leaves_the_work_to_this_process() -> None:
    global PARENT
    PARENT = os.getpid()  # this test's process (a worker's, under xdist)
    with aside(_raises) as pending, pytest.raises(ValueError, match="bad figure: 7"):
        pending.result()  # raised here, by the work run again here
    with aside(_dies) as pending:
        assert pending.pid > 0 and pending.result() == 41
    with aside(_unpicklable) as pending:
        assert pending.pid > 0 and pending.result() == "here"


@forks
def test_a_child_whose_answer_is_not_asked_for_is_stopped_and_reaped() -> None:
    stop = threading.Event()  # never set: the child would wait for ever
    with aside(lambda: stop.wait(3600)) as pending:
        pid = pending.pid
        assert pid > 0
    assert pending.pid == 0
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no such child left
    assert isinstance(pending, Aside)


@forks
@pytest.mark.parametrize(
    "paths",
    [[SESSIONS], [FIXTURES / "synthetic"], [FIXTURES]],
    ids=["sessions", "synthetic", "fixtures"],
)
def test_a_report_worked_out_on_two_cores_is_the_report_worked_out_on_one(
    paths: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folders of several sessions, each part a whole session or more: the parts' figures
    added are the figures worked out on one core, to the last bit."""
    alone = report(read_bill(paths), calls=True, by="thread")
    monkeypatch.setattr(bills, "ASIDE_CALLS", 1)
    here: list[int] = []
    part = bills._part
    monkeypatch.setattr(bills, "_part", lambda b, p: here.append(os.getpid()) or part(b, p))
    worked = read_bill(paths)
    first, second = bills._cut(worked)
    both = report(worked, calls=True, by="thread")
    assert here == [os.getpid()]  # this process worked out one part; a child the other
    assert first and second
    assert both == alone
    asked = read_bill(paths)  # each figure asked for alone, with no work ahead
    assert worked.lifetimes() == asked.lifetimes() and worked.what_if() == asked.what_if()
    assert worked.rebuilds() == asked.rebuilds()
    assert worked.models == asked.models and worked.threads == asked.threads
    assert worked.tokens() == asked.tokens()
    assert worked.cache_read_share == asked.cache_read_share
    assert worked.figures().cost == asked.cost()


@forks
def test_a_child_that_fails_on_its_part_leaves_the_part_to_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alone = report(read_bill([SESSIONS]), calls=True)
    monkeypatch.setattr(bills, "ASIDE_CALLS", 1)
    parent = os.getpid()
    part = bills._part
    here: list[int] = []

    def fails_in_the_child(bill: bills.Bill, prices: object) -> object:
        if os.getpid() != parent:
            os._exit(3)
        here.append(parent)
        return part(bill, prices)  # type: ignore[arg-type]

    monkeypatch.setattr(bills, "_part", fails_in_the_child)
    assert report(read_bill([SESSIONS]), calls=True) == alone
    assert here == [parent, parent]  # both parts worked out here


def test_a_small_bill_is_worked_out_here(monkeypatch: pytest.MonkeyPatch) -> None:
    here: list[int] = []
    lifetimes = bills.Bill._lifetimes
    monkeypatch.setattr(
        bills.Bill, "_lifetimes", lambda s, p: here.append(os.getpid()) or lifetimes(s, p)
    )
    bill = read_bill([SESSIONS])
    assert len(bill.calls) < bills.ASIDE_CALLS
    bill.work_ahead()
    bill.work_ahead()  # worked out once
    assert here == [os.getpid()]


@forks
def test_an_interrupted_wait_stops_the_child_and_goes_on_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while this process waits for the answer: the child is stopped and reaped,
    and the interrupt is not swallowed."""
    stop = threading.Event()  # never set: the child would wait for ever

    class Interrupted:
        def __init__(self, fd: int, mode: str) -> None:
            os.close(fd)

        def __enter__(self) -> Interrupted:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self) -> bytes:
            raise KeyboardInterrupt

    with aside(lambda: stop.wait(3600)) as pending:
        pid = pending.pid
        monkeypatch.setattr(_aside.os, "fdopen", Interrupted)
        with pytest.raises(KeyboardInterrupt):
            pending.result()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_the_totals_kept_are_handed_out_as_copies() -> None:
    bill = read_bill([SESSIONS])
    bill.work_ahead()
    threads, tokens = bill.threads, bill.tokens()
    threads.clear()
    tokens["input"] = -1
    assert bill.threads == read_bill([SESSIONS]).threads
    assert bill.tokens() == read_bill([SESSIONS]).tokens()


def test_the_cli_reference_gives_the_size_at_which_a_bill_forks() -> None:
    page = " ".join((ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8").split())
    assert f"holds {bills.ASIDE_CALLS:,} calls or more (`bills.ASIDE_CALLS`)" in page


def _steps() -> Iterator[tuple[int, int]]:
    """Three steps, each its number and the pid of the process that made it; a child dies
    after its first."""
    yield 1, os.getpid()
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    yield 2, os.getpid()
    yield 3, os.getpid()


@forks
def test_steps_come_from_a_child_one_at_a_time_and_the_rest_are_made_here() -> None:
    global PARENT
    PARENT = os.getpid()
    with aside_frames(_steps) as frames:
        number, pid = frames.next()
        assert number == 1 and pid != PARENT and frames.pid > 0  # the child's
        assert frames.next() == (2, PARENT)  # it died: made here, the first passed over
        assert frames.next() == (3, PARENT) and frames.pid == 0
        with pytest.raises(StopIteration):
            frames.next()
    here = Frames(_steps)  # no child: each made here when asked for
    assert [here.next(), here.next()] == [(1, PARENT), (2, PARENT)]


@forks
def test_a_child_with_steps_not_asked_for_is_stopped_and_reaped() -> None:
    def endless() -> Iterator[bytes]:
        while True:
            yield b"x" * 100_000  # more than a pipe holds: the child waits to send it

    frames = aside_frames(endless)
    pid = frames.pid
    assert pid > 0 and frames.next() == b"x" * 100_000
    frames.close()
    assert frames.pid == 0
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no such child left


def test_steps_asked_of_no_child_are_made_here() -> None:
    frames = aside_frames(lambda: iter([1, 2]), worth=False)
    assert frames.pid == 0 and [frames.next(), frames.next()] == [1, 2]


@forks
def test_a_step_not_asked_for_is_never_made(tmp_path: Path) -> None:
    """The child makes its first step at once and the next only when asked: once this
    process wants no more, it ends without making it."""
    made = tmp_path / "second"

    def work() -> Iterator[int]:
        yield 1
        made.write_text("made")
        yield 2

    frames = aside_frames(work)
    assert frames.next() == 1
    pid, frames.pid = frames.pid, 0
    os.close(frames._ask)  # what `close` does before it stops the child, which ends alone
    assert os.waitpid(pid, 0)[1] == 0 and not made.exists()
    with aside_frames(work) as asked:
        assert [asked.next(), asked.next()] == [1, 2] and made.exists()
        with pytest.raises(StopIteration):
            asked.next()  # the child says there is no third; nothing is made here
        assert asked.pid == 0
