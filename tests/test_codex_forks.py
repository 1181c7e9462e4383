"""Codex rollouts as real folders hold them: forks that replay their parent, ids that are clocks.

The rollout fields are those of the Codex CLI (`session_meta`, `turn_context`,
`response_item`, `event_msg` `token_count` with a cumulative
`total_token_usage`). A fork starts with its own `session_meta` carrying
`forked_from_id`, then copies the parent's `session_meta` and its history,
`token_count` events included, stamped no later than the fork's creation.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from context_budget import read_bill

PARENT = "019a7c2e-8f10-7d3a-9a51-2b7c0e4d1a01"
FORK = "019a7c2f-0b44-7e21-8c3d-5f1a9e7b2c02"


def _line(when: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps(
        {"timestamp": f"2026-11-20T10:{when}Z", "type": kind, "payload": payload},
        separators=(",", ":"),
    )


def _total(sent: int, cached: int, output: int) -> dict[str, Any]:
    usage = {"input_tokens": sent, "cached_input_tokens": cached, "output_tokens": output}
    return {"type": "token_count", "info": {"total_token_usage": usage}}


def _turn(when: str, text: str) -> list[str]:
    return [
        _line(when, "turn_context", {"model": "gpt-5-codex"}),
        _line(
            when,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        ),
    ]


def _parent_history(when: str) -> list[str]:
    """The parent's two calls: 9,000 sent (none cached) then 11,000 more (9,000 cached)."""
    meta = {"id": PARENT, "timestamp": "2026-11-20T10:00:00.000Z"}
    return [
        _line(when, "session_meta", meta),
        *_turn(when, "Fix the parser."),
        _line(when, "event_msg", _total(9_000, 0, 400)),
        _line(when, "event_msg", _total(20_000, 9_000, 700)),
    ]


def _fork(tmp_path: Path) -> Path:
    created = "05:00.000"
    meta = {"id": FORK, "forked_from_id": PARENT, "timestamp": f"2026-11-20T10:{created}Z"}
    lines = [
        _line(created, "session_meta", meta),
        *_parent_history(created),
        *_turn("05:30.000", "Now try another approach."),
        _line("05:40.000", "event_msg", _total(42_040, 29_000, 1_000)),
    ]
    path = tmp_path / f"rollout-2026-11-20T10-05-00-{FORK}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_fork_bills_only_its_own_calls(tmp_path: Path) -> None:
    bill = read_bill(_fork(tmp_path))
    assert len(bill.calls) == 1
    (call,) = bill.calls
    assert (call.input_tokens, call.cache_read_input_tokens, call.output_tokens) == (
        2_040,
        20_000,
        300,
    )


def test_a_fork_is_its_own_thread_not_its_parents(tmp_path: Path) -> None:
    bill = read_bill(_fork(tmp_path))
    assert set(bill.threads) == {f"{FORK}/main"}


def test_two_rollouts_started_the_same_minute_are_two_threads(tmp_path: Path) -> None:
    paths = []
    for number, ident in enumerate((PARENT, PARENT[:-1] + "9"), 1):
        lines = [
            _line(f"0{number}:00.000", "session_meta", {"id": ident}),
            *_turn(f"0{number}:01.000", "Hello."),
            _line(f"0{number}:02.000", "event_msg", _total(9_000, 0, 400)),
            _line(f"0{number}:03.000", "event_msg", _total(12_000, 0, 500)),
        ]
        path = tmp_path / f"rollout-{number}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    bill = read_bill(paths)
    assert len(bill.threads) == 2
    assert bill.rebuilds() == []


def test_a_fork_whose_creation_is_not_a_time_stops_the_bill_naming_the_line(
    tmp_path: Path,
) -> None:
    path = _fork(tmp_path)
    text = path.read_text(encoding="utf-8").replace("2026-11-20T10:05:00.000Z", "soon", 2)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 session_meta timestamp"):
        read_bill(path)


# ---------------------------------------------------------------- the four shapes of a fork
#
# A parent rollout of two calls (9,000 sent, then 11,000 more of which 9,000 cached),
# and forks of it that copy that history before their own turns, in the four shapes
# real rollouts show: (1) the copies keep the parent's times; (2) they are stamped anew
# from the fork's creation on, spread over a second and more as they are written;
# (3) the fork does not repeat the parent's session_meta before them; (4) several
# forks of one parent each copy the same history. Each turn's `turn_context` names its
# turn with a UUIDv7, whose first 48 bits are the millisecond it was started.

CREATED = "2026-11-20T10:05:00.000Z"


def _v7(stamp: str, tail: int) -> str:
    """A UUIDv7 minted at `stamp` (ISO, UTC)."""
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    ms = f"{round(moment.timestamp() * 1000):012x}"
    return f"{ms[:8]}-{ms[8:]}-7000-8000-{tail:012x}"


def _at(stamp: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}, separators=(",", ":"))


def _turn_at(stamp: str, text: str, turn: str | None) -> list[str]:
    context: dict[str, Any] = {"model": "gpt-5-codex"}
    if turn is not None:
        context["turn_id"] = turn
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return [_at(stamp, "turn_context", context), _at(stamp, "response_item", item)]


#: The parent's history: (when, the cumulative total after it) per call, after one turn.
PARENT_CALLS = [
    ("2026-11-20T10:00:10.000Z", (9_000, 0, 400)),
    ("2026-11-20T10:00:20.000Z", (20_000, 9_000, 700)),
]
PARENT_TURN = ("2026-11-20T10:00:01.000Z", _v7("2026-11-20T10:00:01.000Z", 1))


def _history(stamps: list[str] | None, meta: bool, turns: bool) -> list[str]:
    """The parent's lines: as the parent wrote them (`stamps` None), or copied at `stamps`
    (one for the meta, one for the turn, one per call)."""
    when = stamps or [PARENT_TURN[0], PARENT_TURN[0]] + [stamp for stamp, _ in PARENT_CALLS]
    lines = []
    if meta:
        lines.append(
            _at(when[0], "session_meta", {"id": PARENT, "timestamp": "2026-11-20T10:00:00.000Z"})
        )
    lines += _turn_at(when[1], "Fix the parser.", PARENT_TURN[1] if turns else None)
    for stamp, total in zip(when[2:], (total for _, total in PARENT_CALLS), strict=True):
        lines.append(_at(stamp, "event_msg", _total(*total)))
    return lines


def _rollout(folder: Path, ident: str, lines: list[str]) -> Path:
    path = folder / f"rollout-{ident}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _parent(folder: Path, turns: bool = True) -> Path:
    return _rollout(folder, PARENT, _history(None, meta=True, turns=turns))


def _forked(
    folder: Path, ident: str, shape: int, own: list[tuple[str, tuple[int, int, int]]], turns: bool
) -> Path:
    """A fork of the parent in `shape` (1 to 3), then its own calls (when, cumulative total)."""
    meta = {"id": ident, "forked_from_id": PARENT, "timestamp": CREATED}
    if shape == 1:
        copied = _history(None, meta=True, turns=turns)
    else:
        spread = [
            CREATED,
            "2026-11-20T10:05:00.004Z",
            "2026-11-20T10:05:00.900Z",
            "2026-11-20T10:05:01.700Z",
        ]
        copied = _history(spread, meta=shape == 2, turns=turns)
    start = own[0][0].replace(".500Z", ".000Z")
    lines = [_at(CREATED, "session_meta", meta), *copied]
    lines += _turn_at(start, "Now try another approach.", _v7(start, 9) if turns else None)
    lines += [_at(stamp, "event_msg", _total(*total)) for stamp, total in own]
    return _rollout(folder, ident, lines)


OWN = [("2026-11-20T10:05:40.500Z", (42_040, 29_000, 1_000))]
SIBLING = "019a7c2f-9d01-7c55-9e12-6a2b8c9d3e03"


@pytest.mark.parametrize("shape", [1, 2, 3])
@pytest.mark.parametrize("turns", [True, False], ids=["turn ids", "no turn ids"])
def test_with_its_parent_a_fork_of_each_shape_bills_each_call_once(
    tmp_path: Path, shape: int, turns: bool
) -> None:
    _parent(tmp_path, turns)
    _forked(tmp_path, FORK, shape, OWN, turns)
    bill = read_bill(tmp_path)
    assert len(bill.calls) == 3  # the parent's two and the fork's one
    assert bill.threads == {f"{PARENT}/main": 2, f"{FORK}/main": 1}
    (own,) = [call for call in bill.calls if call.thread.session == FORK]
    assert (own.input_tokens, own.cache_read_input_tokens, own.output_tokens) == (
        2_040,
        20_000,
        300,
    )


@pytest.mark.parametrize("shape", [1, 2, 3])
def test_alone_a_fork_that_names_its_turns_bills_only_its_own_calls(
    tmp_path: Path, shape: int
) -> None:
    bill = read_bill(_forked(tmp_path, FORK, shape, OWN, turns=True))
    assert [(c.input_tokens, c.cache_read_input_tokens) for c in bill.calls] == [(2_040, 20_000)]


def test_alone_a_fork_whose_copies_keep_their_times_needs_no_turn_ids(tmp_path: Path) -> None:
    bill = read_bill(_forked(tmp_path, FORK, 1, OWN, turns=False))
    assert len(bill.calls) == 1


SIBLING_OWN = [
    ("2026-11-20T10:06:10.500Z", (41_000, 29_000, 900)),
    ("2026-11-20T10:06:20.500Z", (63_000, 50_000, 1_300)),
]


@pytest.mark.parametrize("with_parent", [True, False], ids=["with the parent", "without it"])
@pytest.mark.parametrize("turns", [True, False], ids=["turn ids", "no turn ids"])
def test_sibling_forks_never_count_their_shared_history_twice(
    tmp_path: Path, with_parent: bool, turns: bool
) -> None:
    if with_parent:
        _parent(tmp_path, turns)
    _forked(tmp_path, FORK, 2, OWN, turns)
    _forked(tmp_path, SIBLING, 3, SIBLING_OWN, turns)
    bill = read_bill(tmp_path)
    own = {FORK: 1, SIBLING: 2}
    assert {name: count for name, count in bill.threads.items()} == {
        **({f"{PARENT}/main": 2} if with_parent else {}),
        **{f"{ident}/main": count for ident, count in own.items()},
    }
    sibling = [c for c in bill.calls if c.thread.session == SIBLING]
    assert [(c.input_tokens, c.cache_read_input_tokens) for c in sibling] == [
        (1_000, 20_000),
        (1_000, 21_000),
    ]


def test_a_fork_of_a_parent_in_another_folder_is_found_across_files(tmp_path: Path) -> None:
    (tmp_path / "2026" / "11" / "19").mkdir(parents=True)
    (tmp_path / "2026" / "11" / "20").mkdir(parents=True)
    _parent(tmp_path / "2026" / "11" / "19", turns=False)
    _forked(tmp_path / "2026" / "11" / "20", FORK, 2, OWN, turns=False)
    assert len(read_bill(tmp_path).calls) == 3


def test_a_fork_of_a_fork_bills_only_its_own_calls(tmp_path: Path) -> None:
    _parent(tmp_path, turns=False)
    _forked(tmp_path, FORK, 2, OWN, turns=False)
    grandchild = "019a7c30-1111-7222-8333-444455556666"
    fork_lines = (tmp_path / f"rollout-{FORK}.jsonl").read_text(encoding="utf-8").splitlines()
    created = "2026-11-20T10:07:00.000Z"
    meta = {"id": grandchild, "forked_from_id": FORK, "timestamp": created}
    copied = [
        json.dumps({**json.loads(line), "timestamp": created}, separators=(",", ":"))
        for line in fork_lines[1:]
    ]
    own = [_at("2026-11-20T10:07:30.000Z", "event_msg", _total(55_040, 40_000, 1_100))]
    lines = [_at(created, "session_meta", meta), *copied, *_turn_at(created, "More.", None), *own]
    _rollout(tmp_path, grandchild, lines)
    bill = read_bill(tmp_path)
    assert len(bill.calls) == 4
    assert bill.threads[f"{grandchild}/main"] == 1


def test_a_fork_with_no_turn_of_its_own_is_an_empty_rollout(tmp_path: Path) -> None:
    _parent(tmp_path, turns=False)
    meta = {"id": FORK, "forked_from_id": PARENT, "timestamp": CREATED}
    spread = [CREATED, CREATED, "2026-11-20T10:05:00.300Z", "2026-11-20T10:05:01.200Z"]
    lines = [_at(CREATED, "session_meta", meta), *_history(spread, meta=True, turns=False)]
    _rollout(tmp_path, FORK, lines)
    bill = read_bill(tmp_path)
    assert bill.threads == {f"{PARENT}/main": 2}
    assert [(s.kind, s.place) for s in bill.skipped] == [("empty rollout", f"rollout-{FORK}.jsonl")]
    with pytest.raises(ValueError, match="no call of its own"):
        read_bill(tmp_path, strict=True)
