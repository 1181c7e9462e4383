"""What a folder holds twice: a file copied elsewhere, and a run made again under one name.

A user's folders hold the same session more than once: a trajectory copied
into a backup folder, a rollout copied while it was still being written and
the whole file later, the same instance run twice by an agent. The readers
read one file at a time; `without_copies` takes what they read and keeps each
call once, and each run a thread of its own.

- A copy: a call another file read before recorded too (the same thread,
  time, model and usage) is left out; a file whose every call was is left
  out whole. Claude Code files are read together and fold their copies
  themselves (by response), so they are passed through as they are.
- A run made again: a file that shares no call with an earlier one, whose
  threads are named as that one's (two runs of one mini-swe-agent instance,
  two OpenHands files of one name), has its threads named anew with the
  number of the run: `astropy__astropy-12907#2/main`. A file that shares calls
  with an earlier one is the same run and keeps its names.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace

from context_budget.sessions.session import Call, Session, ThreadId

__all__ = ["without_copies"]


def _key(call: Call) -> Hashable:
    """What a copy of a call shares with it: its thread, time, model and usage."""
    return (call.thread, call.timestamp, call.model, call.usage)


def _renamed(session: Session, names: dict[ThreadId, ThreadId]) -> Session:
    """The session with its threads named by `names` (those it lacks as they are)."""
    if not names:
        return session

    def named(calls: tuple[Call, ...]) -> tuple[Call, ...]:
        return tuple(
            call.on_thread(names[call.thread]) if call.thread in names else call for call in calls
        )

    return replace(
        session,
        main=names.get(session.main, session.main),
        threads=tuple(replace(t, id=names.get(t.id, t.id)) for t in session.threads),
        calls=named(session.calls),
        usage_records=named(session.usage_records),
    )


def _numbered(thread: ThreadId, taken: set[ThreadId]) -> ThreadId:
    """`thread` with its session numbered as the next run not yet taken (`#2`, `#3`, ...)."""
    number = 2
    while (found := replace(thread, session=f"{thread.session}#{number}")) in taken:
        number += 1
    return found


def without_copies(sessions: Sequence[Session]) -> list[Session]:
    """The sessions with each call kept once and each run a thread of its own.

    Sessions are taken in the order given: of a call recorded by several
    files, the first file's is kept. A session left with no call is left out.
    A later file that shares calls with an earlier one adds only its new calls;
    the run's recorded cost is the largest either file recorded (the file
    written last recorded the most).
    """
    kept: list[Session] = []
    owner: dict[Hashable, int] = {}  # call key -> the kept session that holds the call
    names: list[dict[ThreadId, ThreadId]] = []  # per kept session: its threads' new names
    taken: set[ThreadId] = set()  # the threads of the sessions kept, as named
    for session in sessions:
        if session.format == "claude-code":
            taken |= {call.thread for call in session.calls}
            kept.append(session)
            names.append({})
            continue
        keys = [_key(call) for call in session.calls]
        held = [owner.get(key) for key in keys]  # the kept session holding each call, if any
        fresh = [call for call, found in zip(session.calls, held, strict=True) if found is None]
        shared = sorted({found for found in held if found is not None})
        if shared:
            first = shared[0]
            recorded = [
                s.recorded_cost for s in (kept[first], session) if s.recorded_cost is not None
            ]
            if recorded:
                kept[first] = replace(kept[first], recorded_cost=max(recorded))
            session = replace(session, recorded_cost=None)
        if not fresh and session.calls:  # every call a copy (one with none is the caller's)
            continue
        for key, found in zip(keys, held, strict=True):
            if found is None:
                owner[key] = len(kept)
        threads = {session.main, *(call.thread for call in session.calls)}
        if shared:
            renames = names[shared[0]]
        else:
            renames = {}
            for thread in sorted(threads & taken, key=lambda t: t.name):
                renames[thread] = _numbered(thread, taken | set(renames.values()))
        if len(fresh) < len(session.calls):
            session = replace(session, calls=tuple(fresh))
        session = _renamed(session, renames)
        taken |= {renames.get(thread, thread) for thread in threads}
        kept.append(session)
        names.append(renames)
    return kept
