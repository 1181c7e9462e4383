"""Unit B's cases: three breaks of a context, each repair graded by the number that showed it.

A learner writes three functions, one repair per break:

- `estimate(text)`: a counter within `TOLERANCE` of the real tokenizer on
  every shipped sample (graded against `SAMPLE_TOKENS`, the Qwen2.5 counts of
  the package's four samples, so no tokenizer is needed to grade);
- `summarize(messages)`: a summarizer under which every one of Lucy's facts
  survives `ROUNDS` successive compactions (`survival_rounds`);
- `build_request(conversation, turn)`: the request for one turn of Lucy's day,
  laid out so the cache serves at least `MIN_HIT_SHARE` of the run
  (`cache_report`).

`grade_unit` grades the three; `run_transfer` (Unit A's, reused) grades the
changed-constraint task on `TRANSFER_CASES`. The notebook helpers save the
evidence under each edition's own file names, and `starting_evidence` reads
Unit A's handoff when there is one.

Examples:
    >>> from context_budget.calibration import calibrated_estimate
    >>> from context_budget.erosion import keep_rules_and_decisions
    >>> rows = grade_unit(calibrated_estimate, keep_rules_and_decisions, reference_request)
    >>> contract_status(rows), len(rows)
    ('PASSED', 8)
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping, Sequence
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from context_budget.cache_report import cache_report
from context_budget.calibration import SAMPLES_FOLDER
from context_budget.erosion import Strategy, survival_rounds
from context_budget.grading import (
    EDITIONS,
    Row,
    Rows,
    attempt,
    check_edition,
    check_rows,
    contract_status,
    evidence_name,
    format_grade,
    save_evidence,
)
from context_budget.grading.unit_a import run_transfer, transfer_status
from context_budget.messages import Message
from context_budget.scenarios.layouts import MODEL, TOOLS
from context_budget.scenarios.lucy import LUCY, PINNED, QUESTIONS, SYSTEM, lucy_day

__all__ = [
    "EDITIONS",
    "MIN_HIT_SHARE",
    "ROUNDS",
    "SAMPLES",
    "SAMPLE_TOKENS",
    "TOLERANCE",
    "TRANSFER_CASES",
    "UNIT",
    "WORK_FOLDER",
    "check_rows",
    "contract_status",
    "format_grade",
    "grade_unit",
    "lucy_requests",
    "reference_request",
    "run_transfer",
    "sample_texts",
    "save_work",
    "starting_evidence",
    "transfer_status",
]

#: The unit's name, as its reports and file names spell it.
UNIT = "unit-b"
#: Where the notebooks save, relative to the notebook's working folder.
WORK_FOLDER = Path("practical-work") / UNIT
#: Where Unit A's notebooks saved.
UNIT_A_FOLDER = Path("practical-work") / "unit-a"
#: The largest error a counter may make on a sample, as a share (0.10 is 10%).
TOLERANCE = 0.10
#: Successive compactions a summarizer must survive.
ROUNDS = 4
#: The cache-read share a layout must reach over Lucy's day, from 0 to 1.
MIN_HIT_SHARE = 0.6

#: Kind -> the shipped sample's file in `SAMPLES_FOLDER` (package data).
SAMPLES = {
    "prose": "prose.txt",
    "code": "code.py.txt",
    "json": "tool-result.json",
    "numbers": "numbers.txt",
}
#: Kind -> the sample's tokens by the Qwen2.5 tokenizer (checked against it in
#: `tests/test_unit_b.py`).
SAMPLE_TOKENS = {"prose": 455, "code": 649, "json": 1164, "numbers": 1578}


def sample_texts(folder: Path | str | None = None) -> dict[str, str]:
    """Kind -> the text of its shipped sample.

    Args:
        folder: a folder of your own holding the four files; the package's
            `SAMPLES_FOLDER` (shipped with it) when None.

    Raises:
        FileNotFoundError: `folder` lacks one of the files.
    """
    where: Traversable = Path(folder) if folder is not None else SAMPLES_FOLDER
    return {
        kind: where.joinpath(name).read_text(encoding="utf-8") for kind, name in SAMPLES.items()
    }


def _user_turns() -> list[int]:
    day = lucy_day()
    return [i + 1 for i, message in enumerate(day) if message["role"] == "user"]


def reference_request(conversation: Sequence[Message], turn: int) -> dict[str, Any]:
    """The repaired layout for one turn: stable first, append only.

    Tools, then the system prompt, then the records as the first message, then
    the conversation as it stands; automatic caching on.

    Args:
        conversation: the day so far, ending with the turn's user message.
        turn: the turn's number, from 0 (unused: nothing per turn goes first).
    """
    records: Message = {"role": "user", "content": "Standing records:\n" + "\n".join(PINNED)}
    return {
        "tools": [dict(tool) for tool in TOOLS],
        "system": SYSTEM,
        "messages": [records, *(dict(message) for message in conversation)],
        "cache_control": {"type": "ephemeral"},
    }


def lucy_requests(build: Callable[[list[Message], int], Any]) -> list[Any]:
    """`build(conversation, turn)` for every user turn of Lucy's day, in order."""
    day = lucy_day()
    return [build(copy.deepcopy(day[:end]), turn) for turn, end in enumerate(_user_turns())]


def _error_text(outcome_error: str | None) -> object:
    return {"raises": outcome_error}


def grade_unit(
    estimate: Callable[[str], Any],
    summarize: Callable[[list[Message]], Any],
    build_request: Callable[[list[Message], int], Any],
    samples: Mapping[str, str] | None = None,
) -> list[Row]:
    """Run Unit B's eight visible cases against a learner's three repairs.

    Args:
        estimate: the candidate counter, text -> tokens.
        summarize: the candidate summarizer, messages -> summary text.
        build_request: the candidate layout, (conversation, turn) -> request.
        samples: kind -> sample text; `sample_texts()` when None.

    Returns:
        Eight rows, in order: one per sample kind (prose, code, json, numbers),
            the estimate within `TOLERANCE` of `SAMPLE_TOKENS`; every fact
            survives `ROUNDS` compactions; the rules survive the first one; the
            cache-read share over Lucy's day reaches `MIN_HIT_SHARE`; no request
            diverges from the one before. A starter that raises
            `NotImplementedError` fails every row.

    Examples:
        >>> def unfinished(*arguments):
        ...     raise NotImplementedError
        >>> rows = grade_unit(unfinished, unfinished, unfinished)
        >>> contract_status(rows), rows[0]["observed"]
        ('NEEDS_WORK', {'raises': 'NotImplementedError'})
    """
    texts = dict(samples) if samples is not None else sample_texts()
    grade = Rows()
    _estimate_cases(grade, estimate, texts)
    _summary_cases(grade, summarize)
    _layout_cases(grade, build_request)
    return grade.rows


def _estimate_cases(grade: Rows, estimate: Callable[[str], Any], texts: Mapping[str, str]) -> None:
    """Cases 1-4: the estimate of each sample kind within `TOLERANCE` of the tokenizer."""
    for kind, real in SAMPLE_TOKENS.items():

        def within(kind: str = kind, real: int = real) -> tuple[bool, object]:
            outcome = attempt(estimate, texts[kind])
            if outcome.error is not None:
                return False, _error_text(outcome.error_name)
            value = outcome.value
            if isinstance(value, bool) or not isinstance(value, int):
                return False, f"not an int: {value!r}"
            error = value / real - 1
            return abs(error) <= TOLERANCE, f"{value} vs {real} ({error:+.1%})"

        grade.add(f"{kind} sample within 10% of the tokenizer", within)


def _summary_cases(grade: Rows, summarize: Callable[[list[Message]], Any]) -> None:
    """Cases 5-6: every fact survives `ROUNDS` compactions; the rules survive the first."""

    def summarizer_rounds() -> list[list[str]]:
        strategy = Strategy("candidate", summarize)
        return survival_rounds(LUCY, [strategy], ROUNDS)["candidate"]

    rounds = attempt(summarizer_rounds)

    def every_fact_survives() -> tuple[bool, object]:
        if rounds.error is not None:
            return False, _error_text(rounds.error_name)
        counts = [len(kept) for kept in rounds.value]
        return counts == [len(QUESTIONS)] * ROUNDS, f"facts kept by round: {counts}"

    def rules_survive_once() -> tuple[bool, object]:
        if rounds.error is not None:
            return False, _error_text(rounds.error_name)
        rules = [fact for fact, _, where in QUESTIONS if where == "a rule Lucy stated"]
        kept = [fact for fact in rules if fact in rounds.value[0]]
        return kept == rules, f"{len(kept)} of {len(rules)} rules"

    grade.add(f"every fact survives {ROUNDS} compactions", every_fact_survives)
    grade.add("the rules survive the first compaction", rules_survive_once)


def _layout_cases(grade: Rows, build_request: Callable[[list[Message], int], Any]) -> None:
    """Cases 7-8: the cache-read share over Lucy's day; no request diverges from the one
    before."""
    report = attempt(lambda: cache_report(lucy_requests(build_request), MODEL))

    def hit_share() -> tuple[bool, object]:
        if report.error is not None:
            return False, _error_text(report.error_name)
        return report.value.hit_share >= MIN_HIT_SHARE, f"{report.value.hit_share:.0%}"

    def append_only() -> tuple[bool, object]:
        if report.error is not None:
            return False, _error_text(report.error_name)
        diverging = [row.number for row in report.value.rows if row.first_divergence is not None]
        return not diverging, f"requests that diverge: {diverging}"

    grade.add("cache-read share of the day reaches 60%", hit_share)
    grade.add("every request only appends to the one before", append_only)


# The changed-constraint task: `needs_compaction(text, window)` must say True
# when the text's real tokens, plus a 15% margin, exceed the window. The cases
# are chosen so that the real count and the real count plus 15% agree.
def _transfer_cases() -> list[tuple[str, list[Any], object]]:
    cases: list[tuple[str, list[Any], object]] = []
    for label, kind, window in (
        ("a till export in a 1,000-token window", "numbers", 1_000),
        ("a JSON tool result in a 1,000-token window", "json", 1_000),
        ("prose in a 1,000-token window", "prose", 1_000),
        ("code in a 600-token window", "code", 600),
        ("code in an 800-token window", "code", 800),
    ):
        real = SAMPLE_TOKENS[kind]
        expected = math.ceil(real * 1.15) > window
        assert (real > window) == expected, label  # the cases avoid the margin's edge
        cases.append((label, [kind, window], expected))
    return cases


#: `(label, [sample kind, window in tokens], expected decision)`: the candidate
#: is called as `needs_compaction(sample text, window)`; see `run_transfer_b`.
TRANSFER_CASES = _transfer_cases()


def run_transfer_b(
    candidate: Callable[[str, int], Any], samples: Mapping[str, str] | None = None
) -> list[Row]:
    """Grade `needs_compaction(text, window)` on `TRANSFER_CASES`, with Unit A's `run_transfer`.

    Returns:
        `run_transfer`'s rows; the label, the expected decision and the observed one.
    """
    texts = dict(samples) if samples is not None else sample_texts()
    cases = [(label, [texts[kind], window], want) for label, (kind, window), want in TRANSFER_CASES]
    return run_transfer(candidate, cases)


def starting_evidence(folder: Path | str = UNIT_A_FOLDER) -> tuple[str, dict[str, Any] | None]:
    """Unit A's handoff, if a notebook of Unit A saved one here.

    Looks for `unit-a-worked-handoff-v1.json`, then `unit-a-student-handoff-v1.json`.

    Returns:
        `(file path, its data)`, or `("none", None)` when there is no readable one.
    """
    for edition in ("worked", "student"):
        path = Path(folder) / evidence_name("unit-a", edition, "handoff")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            return path.as_posix(), data
    return "none", None


def save_work(
    edition: str, kind: str, data: Mapping[str, Any], folder: Path | str = WORK_FOLDER
) -> str:
    """Save one piece of the unit's evidence under the edition's own name, atomically.

    Returns:
        The path written, e.g. `practical-work/unit-b/unit-b-student-handoff-v1.json`.

    Raises:
        ValueError: an unknown edition, or a kind that is not a plain name.
    """
    check_edition(edition)
    return save_evidence(folder, evidence_name(UNIT, edition, kind), dict(data)).as_posix()
