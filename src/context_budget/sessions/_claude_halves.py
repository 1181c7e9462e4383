"""A bill's read of Claude Code files on two cores: the child's part, and how it joins.

The reader itself (`claude_code`) reads files in one pass. Here a large read
(`SPLIT_BYTES`, 32 MiB or more, all told) is cut in two between whole sessions, where
a child process can be forked (`_aside.can_fork`): the files, in the order one
pass reads them, are cut between two sessions, between two project folders
where that is near the share aimed at (`_CHILD_SHARE`, `_FOLDER_SLACK`). A
child reads the later part (`_child`) while this process reads the earlier
one, and sends what its reader found, its calls (`_packed`) only when asked
for. Joined (`_joined`), the child's calls are folded in the order read, as
one pass would fold them; where the parts touch so that no join is exact (a
thread in both, a sidechain whose parent only the earlier part holds, a
malformed figure, a line that is no record), this process reads the child's
files again after its own.

Given work (`claude_code.Work`), each process also does it on its own part's
sessions read alone, as soon as its read ends (`_worked`); where the parts
share nothing one pass would join (`_untouched`), both answers are kept and the
child's calls are joined only when the whole read is asked for
(`claude_code.Parts`).
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from copy import copy
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Generic, TypeVar
from weakref import finalize

from context_budget._aside import SPLIT_BYTES, Frames, aside_frames, can_fork
from context_budget.sessions._packed import packed, unpacked
from context_budget.sessions.claude_code import (
    RECORD,
    Work,
    _Begun,
    _Building,
    _File,
    _Names,
    _owners,
    _read_order,
    _Reader,
    _session,
    _session_start,
    _Tasks,
    _walk,
    is_agent_file,
)
from context_budget.sessions.records import records
from context_budget.sessions.session import Call, ThreadId
from context_budget.sessions.text import FileSource, Source

__all__ = ["Answer", "read_halves"]

T = TypeVar("T")

#: How far from the share of bytes it aims at (`_CHILD_SHARE`, as a share of all the
#: bytes) a cut between two folders is taken over a cut inside one: files that share
#: calls (copies of one session's lines in another's file) are most likely in one
#: project's folder, and parts that share calls are joined before their figures are
#: worked out (`_untouched`).
_FOLDER_SLACK = 0.1

#: The share of the bytes the child reads: less than half, as it also packs its calls
#: and this process then unpacks and folds them.
_CHILD_SHARE = 0.45


class _Logged(_Reader):
    """The child's reader: each call kept as read, with the (message id, request id) that
    `_keep` folds it by (None where not a string), and folded too where its part's own
    session is asked for (`folds`); and each sidechain record's parent that no record
    read before named, which the first part may hold."""

    def __init__(self, many: bool, folds: bool) -> None:
        super().__init__(many, False)
        self.folds = folds
        self.asked: list[tuple[str | None, str | None]] = []
        self.unfound: list[str] = []

    def _keep(self, call: Call, ident: object, request: object) -> None:
        if self.folds:
            super()._keep(call, ident, request)
        else:
            self.records.append(call)
        self.asked.append(
            (
                ident if isinstance(ident, str) else None,
                request if isinstance(request, str) else None,
            )
        )

    def _key(self, file: _File, record: Any, number: int) -> str:
        roots = file.roots
        key = super()._key(file, record, number)
        if file.roots != roots and isinstance(record.parentUuid, str):
            self.unfound.append(record.parentUuid)  # a new sidechain: its parent not found
        return key


def _size(given: Source | FileSource) -> int | None:
    """A source's bytes; None when its file cannot be looked at (one pass then names it)."""
    if isinstance(given, FileSource):
        try:
            return os.stat(given.name).st_size
        except OSError:
            return None
    return len(given.data) if given.data else len(given.text)


def _cut(sources: Sequence[Source | FileSource], order: Sequence[int]) -> int | None:
    """How many files of `order`, from its start, this process reads: whole groups of a
    session file and its sub-agents' files (`_read_order`), about (1 - `_CHILD_SHARE`)
    of the bytes, cut between two folders where one is near enough (`_FOLDER_SLACK`);
    None when the read is not split."""
    sizes = [_size(sources[index]) for index in order]
    total = sum(size or 0 for size in sizes)
    if None in sizes or total < SPLIT_BYTES:
        return None
    target = total * (1 - _CHILD_SHARE)
    cuts = [at for at, index in enumerate(order) if at and not is_agent_file(sources[index].name)]
    if not cuts:
        return None
    before = list(accumulate(size or 0 for size in sizes))  # bytes up to and with each file
    off = {at: abs(before[at - 1] - target) for at in cuts}
    folder = [os.path.dirname(os.path.normpath(sources[index].name)) for index in order]
    apart = [at for at in cuts if folder[at] != folder[at - 1] and off[at] <= total * _FOLDER_SLACK]
    return min(apart or cuts, key=off.__getitem__)


def _ids_before(sources: Sequence[Source | FileSource], first: Sequence[int]) -> set[str]:
    """The session ids the files of `first` record, as far as a sub-agent's file read
    after them needs them: all of them, or two once two are found."""
    ids: set[str] = set()
    for index in first:
        own, _ = _session_start(records(sources[index].loaded(), RECORD))
        if own is not None:
            ids.add(own)
        if len(ids) > 1:
            break
    return ids


def _file_row(file: _File) -> tuple[Any, ...]:
    source, starts = file.source, file.starts
    return (
        (source.name, source.description, source.agent_type),
        (file.index, file.prefix, file.roots, file.session, file.key),
        None if starts is None else starts.tobytes(),
    )


def _file(row: tuple[Any, ...]) -> _File:
    (name, description, agent_type), (index, prefix, roots, session, key), starts = row
    file = _File(Source(name, "", description, agent_type), index, prefix, roots)
    file.session, file.key = session, key
    if starts is not None:
        file.starts = array("q")
        file.starts.frombytes(starts)
    return file


def _child(
    sources: Sequence[Source | FileSource],
    first: Sequence[int],
    rest: Sequence[int],
    work: Work[T] | None = None,
) -> Iterator[_Sent[T] | bytes | None]:
    """The steps the child sends (`aside_frames`) on the files of `rest`, read after those
    of `first`: what its reader found besides its calls (`_Sent`), with, given `work`,
    what it gives on their sessions read alone and what tells whether they touch the
    first part's; then, once asked for, its calls, records and places as plain values
    (marshalled). None (the one step) when a file or line stops the read or a usage
    figure is malformed (one pass then names it)."""
    found = _child_read(sources, first, rest, work is not None)
    if found is None:
        yield None
        return
    reader, files = found
    worked = None if work is None else _worked(work, reader, sources, files)
    objects = (reader.threads, reader.progress, reader.started_by, reader.tasks, reader.names)
    yield _Sent(objects, None if worked is None else _touch(reader), worked)
    threads, usages, rows = packed(reader.records)
    plain = (
        threads,
        usages,
        rows,
        reader.asked,
        reader.places,
        reader.unfound,
        reader.skipped,
        [_file_row(file) for file in files],
    )
    yield marshal.dumps(plain)


def _child_read(
    sources: Sequence[Source | FileSource], first: Sequence[int], rest: Sequence[int], folds: bool
) -> tuple[_Logged, list[_File]] | None:
    """The child's reader (`_Logged`) once it has read the files of `rest`, and those
    files; None when a file or line stops the read or a usage figure is malformed."""
    try:
        agents = any(is_agent_file(sources[index].name) for index in rest)
        ids = _ids_before(sources, first) if agents else set()
        reader = _Logged(len(sources) > 1, folds)
        files = _walk(reader, sources, rest, ids)
    except Exception:  # whatever stopped the read, one pass meets it again and names it
        return None
    if reader.bad_lines or reader.problem is not None:
        return None
    return reader, files


def _apart(
    reader: _Reader, threads: dict[str, _Building], unfound: list[str], names: _Names
) -> bool:
    """True when the child's part can be added to `reader` as one pass would read it."""
    if reader.bad_lines or reader.problem is not None or reader.names.clash(names):
        return False
    if not reader.threads.keys().isdisjoint(threads):
        return False
    return not any(parent in reader.thread_of for parent in unfound)


def _joined(reader: _Reader, files: list[_File], answer: Answer[Any]) -> bool:
    """Add the child's part to `reader` and `files` as one pass reads it; False (nothing
    added) where the parts touch (`_apart`)."""
    threads, _, _, _, names = answer.objects
    plain = marshal.loads(answer.plain)
    unfound = plain[5]  # its sidechains' parents it did not find (`_Logged.unfound`)
    if not _apart(reader, threads, unfound, names):
        return False
    _added(reader, files, answer, plain)
    return True


def _added(reader: _Reader, files: list[_File], answer: Answer[Any], plain: Any) -> None:
    """Add the child's part (its `plain` values unmarshalled) to `reader` and `files`."""
    threads, progress, started_by, tasks, names = answer.objects
    thread_rows, usages, rows, asked, places, _, skipped, file_rows = plain
    reader.names.of.update(names.of)
    reader.names.taken.update(names.taken)
    reader.threads.update(threads)
    for (ident, request), call in zip(asked, unpacked(thread_rows, usages, rows), strict=True):
        reader._keep(call, ident, request)
    reader.places.update(places)
    for label, count in skipped.items():
        reader.skipped[label] = reader.skipped.get(label, 0) + count
    for ident, call in progress.items():
        reader.hold(ident, call)
    for thread, task in started_by.items():
        reader.started_by.setdefault(thread, task)
    reader.tasks.update(tasks)  # apart: a session's `Task` calls are its main thread's
    files.extend(_file(row) for row in file_rows)


# ------------------------------------------------------------ parts read alone


def _finished(reader: _Reader) -> tuple[_Reader, int]:
    """A copy of `reader` finished (`_Reader.finish`), `reader` left as it is to be joined
    to another part later; and how many calls it held before finishing."""
    done = copy(reader)
    done.records, done.calls, done.threads = (
        list(reader.records),
        list(reader.calls),
        dict(reader.threads),
    )
    held = len(done.calls)
    done.finish()
    return done, held


def _worked(
    work: Work[T], reader: _Reader, sources: Sequence[Source | FileSource], files: list[_File]
) -> tuple[T] | None:
    """(what `work` gives on the part `reader` read, its sessions alone,); None when it
    raised (the whole read then meets what it met)."""
    try:
        done, held = _finished(reader)
        return (work(_session(done, files, sources), held),)
    except Exception:  # the parts are joined and read as one pass reads them
        return None


@dataclass(frozen=True)
class _Touch:
    """What tells whether a part's sessions touch another part's, so that one pass would
    read either otherwise: the hashes of its response ids (`_Reader.keyed`), of its
    record ids (`_Reader.places`), the parents its records name that none of its own
    is, and its sidechains' parents not found in it (`_Logged.unfound`)."""

    keyed: bytes
    places: bytes
    dangling: list[str]
    unfound: list[str]


def _hashes(keys: Iterable[str]) -> bytes:
    return array("q", map(hash, keys)).tobytes()


def _dangling(places: dict[str, tuple[str | None, str, int, int]]) -> list[str]:
    """The parents the records name that are no record of `places`."""
    return [
        place[0] for place in places.values() if place[0] is not None and place[0] not in places
    ]


def _touch(reader: _Logged) -> _Touch:
    return _Touch(
        _hashes(reader.keyed),
        _hashes(reader.places),
        _dangling(reader.places),
        reader.unfound,
    )


def _file_threads(threads: dict[str, _Building], kind: str) -> set[ThreadId]:
    return {held.id for key, held in threads.items() if key.startswith(kind)}


def _untouched(reader: _Reader, answer: Answer[Any]) -> bool:
    """True when the child's sessions and this process's do not touch: one pass reads
    each part as it was read alone (the child's is a hash apart at worst: then False).

    Besides what `_apart` asks, no response, `progress` copy or record is in both,
    no record names a parent only the other holds, and no sub-agent known from the
    `progress` lines of one has its own file in the other."""
    threads, progress, _, _, names = answer.objects
    touch = answer.touch
    if touch is None or not _apart(reader, threads, touch.unfound, names):
        return False
    ids = set(array("q", touch.keyed)).union(map(hash, progress))  # its responses, copies
    if not ids.isdisjoint(map(hash, reader.keyed)):
        return False
    if not ids.isdisjoint(map(hash, reader.progress)):
        return False
    places = set(array("q", touch.places))
    if not places.isdisjoint(map(hash, reader.places)):
        return False
    if any(parent in reader.places for parent in touch.dangling):
        return False
    if not places.isdisjoint(map(hash, _dangling(reader.places))):
        return False
    own, copied = _file_threads(reader.threads, "file:"), _file_threads(reader.threads, "progress:")
    return own.isdisjoint(_file_threads(threads, "progress:")) and copied.isdisjoint(
        _file_threads(threads, "file:")
    )


@dataclass(frozen=True)
class _Sent(Generic[T]):
    """What the child sends first (`_child`): the objects `_joined` adds as they are, and
    with work asked for, what tells whether its part touches this process's and what
    the work gave (`_worked`)."""

    objects: tuple[
        dict[str, _Building], dict[str, Call], dict[ThreadId, str], dict[str, _Tasks], _Names
    ]
    touch: _Touch | None = None
    worked: tuple[T] | None = None


@dataclass
class Answer(Generic[T]):
    """The child's part: what it sent first (`_Sent`), and the steps still to take from it
    (`frames`), its calls and records as plain values (`plain`), taken when first asked
    for."""

    sent: _Sent[T]
    frames: Frames[Any]
    _plain: bytes | None = None

    @property
    def objects(self) -> tuple[Any, ...]:
        return self.sent.objects

    @property
    def touch(self) -> _Touch | None:
        return self.sent.touch

    def add_to(self, reader: _Reader, files: list[_File]) -> None:
        """Add the child's part to `reader` and `files`, as one pass reads it."""
        _added(reader, files, self, marshal.loads(self.plain))

    @property
    def plain(self) -> bytes:
        """The child's calls, records and places, marshalled: taken from it now if not yet."""
        if self._plain is None:
            with self.frames:
                self._plain = self.frames.next()
        return self._plain


def _whole_sessions(sources: Sequence[Source | FileSource]) -> bool:
    """True when every sub-agent's file is under its session's folder (`_owners`): each
    part of the read then holds whole sessions."""
    owners = _owners(sources)
    return all(k in owners for k, given in enumerate(sources) if is_agent_file(given.name))


def read_halves(
    sources: Sequence[Source | FileSource], work: Work[T] | None = None
) -> _Begun | None:
    """The read of a bill's files (`messages=False`) on two cores: this process reads the
    first part while a child reads the rest, whose calls are then joined to this reader,
    as the one-pass read leaves them. Where the parts touch (a file copied into two
    folders, two files of one session cut apart), the child's part is dropped and the
    rest is left for this process to read after its own (`_Begun.rest`): the one pass,
    its first part not read again. None where the read is not split, or this process's
    part stopped on a bad file or line: the caller then reads in one pass, which names it.

    Given `work`, where each part holds whole sessions, each process also does it on its
    own part's sessions read alone; where the parts do not touch (`_untouched`), both
    answers are kept (`_Begun.parts`) and the child's part is joined only when the whole
    read is asked for."""
    if len(sources) < 2 or not can_fork():
        return None
    order = _read_order(sources)
    cut = _cut(sources, order)
    if cut is None:
        return None
    first, rest = order[:cut], order[cut:]
    alone = work if work is not None and _whole_sessions(sources) else None
    frames = aside_frames(lambda: _child(sources, first, rest, alone))
    try:
        begun = _Begun(_Reader(len(sources) > 1, False), [], set(), rest)
        try:
            begun.files = _walk(begun.reader, sources, first, begun.ids)
        except Exception:  # one pass meets it again and names it
            frames.close()
            return None
        mine = None if alone is None else _worked(alone, begun.reader, sources, begun.files)
        sent = frames.next()
    except BaseException:  # an interrupt: the child stopped with this process
        frames.close()
        raise
    if not isinstance(sent, _Sent):  # the child's read stopped: read here after this part's
        frames.close()
        return begun
    answer = Answer(sent, frames)
    worked = sent.worked
    if mine is not None and worked is not None and _untouched(begun.reader, answer):
        begun.answer, begun.parts, begun.rest = answer, (mine[0], worked[0]), ()
        finalize(answer, frames.close)  # the child, its calls not taken, stopped with it
    elif _joined(begun.reader, begun.files, answer):
        begun.rest = ()
    return begun
