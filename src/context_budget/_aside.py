"""Work done aside: a function run on another core while this process goes on.

`aside(work)` forks a child that runs `work()` and sends its answer back
pickled through a pipe; `Aside.result()` waits for it. The child is a copy
of this process made at the fork, so it reads what was worked out before
(a bill's prices, its rebuilds) without sending it anywhere, and the answer
is the one `work()` gives here: the same functions on the same values.

Where no child can be made, or it is not worth one (`worth` False), or the
child fails in any way (an exception, a signal, an answer that cannot be
pickled), `result()` runs `work()` in this process instead, so an error is
raised here as it would be without the child. Children are made only where
`os.fork` is safe to call in a process like this one (`can_fork`): on Linux,
in a process of one thread, and never in the browser's Python (which has no
`fork`). `CONTEXT_BUDGET_NO_FORK=1` in the environment turns them off.

`aside_frames(work)` does the same for work that gives its answer in steps
(`work()` is an iterable): the child makes and sends its first step at once,
and each later one when `Frames.next()` asks for it, so this process goes on
with the first while the child waits, and a step never asked for is never
made; one that cannot be had from the child is made here, the steps before it
made again and passed over.

Example:
    >>> with aside(lambda: sum(range(10))) as pending:
    ...     here = sum(range(5))
    ...     there = pending.result()
    >>> here, there
    (10, 45)
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import IO, Generic, Self, TypeVar

__all__ = ["SPLIT_BYTES", "Aside", "Frames", "aside", "aside_frames", "can_fork"]

T = TypeVar("T")

#: The bytes of files, all told, from which a read is split between this process and a
#: child: under it, the child would cost about what it saves.
SPLIT_BYTES = 32 * 2**20


def can_fork() -> bool:
    """True where a child is made: Linux with `os.fork`, `CONTEXT_BUDGET_NO_FORK` unset, and
    this process running one thread (a fork copies only the thread that calls it, so a
    lock another thread held would stay held in the child: a notebook's kernel runs
    several)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    return not os.environ.get("CONTEXT_BUDGET_NO_FORK") and _one_thread()


def _one_thread() -> bool:
    """True when this process runs one thread, as the system counts them (the threads of
    C libraries too); False where they cannot be counted (no `/proc`)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class _Child:
    """A child process stopped when a `with` block ends (`close`), whatever ended it."""

    close: Callable[[], None]  # how each kind of child is stopped

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class Aside(_Child, Generic[T]):
    """`work()` under way in a child (`pid` > 0), or to be run here (`pid` 0)."""

    def __init__(self, work: Callable[[], T], pid: int = 0, pipe: int = -1) -> None:
        self._work = work
        self.pid = pid
        self._pipe = pipe

    def result(self) -> T:
        """The child's answer, once it has sent it; `work()` run here when there is no
        child or it failed."""
        if self.pid:
            answer = self._collect()
            if answer is not None:
                return answer[0]
        return self._work()

    def _collect(self) -> tuple[T] | None:
        """(the child's answer,), or None when it sent none; the child waited for (or, if
        this process is interrupted while it waits, stopped)."""
        pid, self.pid = self.pid, 0
        try:
            with os.fdopen(self._pipe, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            pid = 0
            if status == 0 and data:
                answer: T = pickle.loads(data)
                return (answer,)
        except Exception:  # no answer: `result` works it out here
            pass
        finally:
            _stop(pid)  # a child not waited for above (an error, Ctrl-C)
        return None

    def close(self) -> None:
        """Stop a child whose answer was not asked for, and wait for it."""
        if self.pid:
            pid, self.pid = self.pid, 0
            os.close(self._pipe)
            _stop(pid)


def _stop(pid: int) -> None:
    """Kill child `pid` and wait for it; nothing for 0 or a child gone already."""
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass


def aside(work: Callable[[], T], *, worth: bool = True) -> Aside[T]:
    """`work()` started in a forked child where one can be made and it is `worth` one;
    else kept to be run here when its result is asked for.

    Use it as a context manager, so that a child whose answer is never asked
    for (this process raised first) is stopped.
    """
    if not worth or not can_fork():
        return Aside(work)
    sys.stdout.flush()  # nothing written before the fork is written twice
    sys.stderr.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends by os._exit, before coverage saves
        # the child: answer, and end without running this process's exit steps
        os.close(read)
        status = 1
        try:
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    return Aside(work, pid, read)


#: The bytes that give the length of each step a child sends (`aside_frames`).
_HEAD = 8


class Frames(_Child, Generic[T]):
    """The steps of `work()` under way in a child (`pid` > 0), or to be made here."""

    def __init__(
        self,
        work: Callable[[], Iterable[T]],
        pid: int = 0,
        pipe: IO[bytes] | None = None,
        ask: int = -1,
    ) -> None:
        self._work = work
        self.pid = pid
        self._pipe = pipe
        self._ask = ask  # where this process asks the child for a step after its first
        self._taken = 0
        self._here: Iterator[T] | None = None

    def next(self) -> T:
        """The next step: the child's once it has sent it; made here where there is no
        child or it failed.

        Raises:
            StopIteration: `work()` has no step left.
        """
        if self.pid:
            step = self._received()
            if step is not None:
                self._taken += 1
                return step[0]
            self.close()
        if self._here is None:
            self._here = iter(self._work())
            for _ in range(self._taken):  # those the child sent: made again, passed over
                next(self._here)
        step_here = next(self._here)
        self._taken += 1
        return step_here

    def _received(self) -> tuple[T] | None:
        """(the child's next step, asked for where it is not the first), or None when it
        sent none.

        Raises:
            StopIteration: the child said it has no step left.
        """
        try:
            assert self._pipe is not None  # a child has a pipe
            if self._taken:
                os.write(self._ask, b"+")
            head = self._pipe.read(_HEAD)
            size = int.from_bytes(head, "little")
            data = self._pipe.read(size) if len(head) == _HEAD else b""
            if size and len(data) == size:
                step: T = pickle.loads(data)
                return (step,)
        except Exception:  # no step: `next` makes it here
            return None
        if len(head) == _HEAD and not size:  # the child's work has no step left
            self.close()
            raise StopIteration
        return None

    def close(self) -> None:
        """Stop the child, whether or not it has steps left, and wait for it."""
        if self.pid:
            pid, self.pid = self.pid, 0
            if self._pipe is not None:
                self._pipe.close()
            os.close(self._ask)
            _stop(pid)


def aside_frames(work: Callable[[], Iterable[T]], *, worth: bool = True) -> Frames[T]:
    """The steps of `work()` made by a forked child where one can be made and it is `worth`
    one, each sent as soon as it is made; else made here when each is asked for.

    The child makes its first step at once, and each later one only when this
    process asks for it (`Frames.next`): a step never asked for is never made. It
    ends once this process closes the `Frames` (or a `with` block ends) or itself
    ends, whichever comes first.
    """
    if not worth or not can_fork():
        return Frames(work)
    sys.stdout.flush()  # nothing written before the fork is written twice
    sys.stderr.flush()
    read, write = os.pipe()
    asked, ask = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends by os._exit, before coverage saves
        os.close(read)
        os.close(ask)
        status = 1
        try:
            with os.fdopen(write, "wb") as pipe:
                _send_steps(work(), pipe, asked)
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    os.close(asked)
    return Frames(work, pid, os.fdopen(read, "rb"), ask)


def _send_steps(steps: Iterable[T], pipe: IO[bytes], asked: int) -> None:  # pragma: no cover
    """The child's part of `aside_frames`: each step made and sent, those after the first
    once asked for (none once this process has closed its end: it wants no more); a step
    of no bytes says there is none left."""
    for step in steps:
        data = pickle.dumps(step, protocol=pickle.HIGHEST_PROTOCOL)
        pipe.write(len(data).to_bytes(_HEAD, "little"))
        pipe.write(data)
        pipe.flush()
        if not os.read(asked, 1):  # the next step is not wanted: made never
            return
    pipe.write(bytes(_HEAD))
