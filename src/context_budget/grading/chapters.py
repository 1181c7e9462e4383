"""Checkers for the exercises at the end of each chapter.

Every checker takes the reader's answer (a number, a list) or the reader's
function, and returns a verdict string: `"PASS"`, or `"NEEDS_WORK: "` followed
by what is wrong, naming the case, what was expected and what came back. A
checker never raises because of the reader's code: an exception inside it is
reported as part of the verdict.

The checkers, by chapter:

- *Context is a budget*: `check_total_read`, `check_doubling_steps`,
  `check_read_so_far`;
- *Tokens and estimates*: `check_estimate`, `check_message_size`,
  `check_digit_aware`;
- *Layers*: `check_layer_order`, `check_rule_cost`, `check_budget_report`;
- *Cutting*: `check_head`, `check_tail`;
- *Clearing and compaction*: `check_clearing`, `check_visible_at_400`,
  `check_safe_trim`.

Examples:
    >>> check_layer_order(["system", "pinned", "conversation"])
    'PASS'
    >>> print(check_layer_order(["conversation", "pinned", "system"]))
    NEEDS_WORK: that is least stable first; a cache keeps the longest unchanged start
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from typing import Any

from context_budget.budget import loop_steps, tokens_read
from context_budget.compaction import compact
from context_budget.cuts import head
from context_budget.grading import attempt
from context_budget.grading.unit_a import grade_unit
from context_budget.history import validate_history
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message, tool_message
from context_budget.scenarios.lucy import LUCY, PLANS
from context_budget.survival import survival_table
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens, message_tokens

__all__ = [
    "PASS",
    "check_budget_report",
    "check_clearing",
    "check_digit_aware",
    "check_doubling_steps",
    "check_estimate",
    "check_first_kept_trim",
    "check_head",
    "check_layer_order",
    "check_message_size",
    "check_read_so_far",
    "check_rule_cost",
    "check_safe_trim",
    "check_tail",
    "check_total_read",
    "check_visible_at_400",
]

#: The verdict of a right answer.
PASS = "PASS"

#: One case for a function: (label, arguments, expected result).
Case = tuple[str, tuple[Any, ...], Any]


def _needs_work(why: str) -> str:
    return f"NEEDS_WORK: {why}"


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _not_a_number(answer: object) -> str:
    """The verdict on an answer that should have been an int."""
    return _needs_work(f"answer with a whole number (an int), got {_shown(answer)}")


def _difference(expected: object, observed: object) -> str:
    """What differs, in words; for two dicts, only the keys whose values differ."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        keys = [key for key in expected if observed.get(key, None) != expected[key]]
        keys += [key for key in observed if key not in expected]
        if keys:
            return "; ".join(
                f"{key} expected {_shown(expected.get(key))}, got {_shown(observed.get(key))}"
                for key in keys[:2]
            )
    if isinstance(expected, str) and isinstance(observed, str):
        want, got = expected.splitlines(), observed.splitlines()
        for number, (line, seen) in enumerate(zip(want, got, strict=False), 1):
            if line != seen:
                return f"line {number} should be {_shown(line)}, got {_shown(seen)}"
        if len(want) < len(got):
            return (
                f"{len(got)} lines where {len(want)} fit; the extra one is {_shown(got[len(want)])}"
            )
        if len(want) > len(got):
            return f"{len(got)} lines where {len(want)} fit; missing {_shown(want[len(got)])}"
    return f"expected {_shown(expected)}, got {_shown(observed)}"


def _run_cases(
    candidate: Callable[..., Any],
    cases: Sequence[Case],
    same: Callable[[Any, Any], bool] = lambda observed, expected: bool(observed == expected),
) -> str:
    """PASS when every case returns its expected value and leaves its arguments alone."""
    wrong: list[str] = []
    for label, arguments, expected in cases:
        given = copy.deepcopy(arguments)
        outcome = attempt(candidate, *given)
        if isinstance(outcome.error, NotImplementedError):
            return _needs_work("not written yet (it raises NotImplementedError)")
        if outcome.error is not None:
            wrong.append(f"{label}: raised {outcome.error_name}: {outcome.error}")
        elif given != arguments:
            wrong.append(f"{label}: changed its input")
        else:
            try:
                right = same(outcome.value, expected)
            except Exception:  # an output of the wrong shape
                right = False
            if not right:
                wrong.append(f"{label}: {_difference(expected, outcome.value)}")
    if not wrong:
        return PASS
    return _needs_work(f"{len(wrong)} of {len(cases)} cases wrong; first, {wrong[0]}")


# --- Context is a budget -----------------------------------------------------------

#: The chapter's loop: tokens before the first call, tokens added per call.
LOOP_START, LOOP_GROWTH = 2_000, 1_875


def check_total_read(answer: object) -> str:
    """Tokens read over the 24 calls of the chapter's loop (start 2,000, growth 1,875).

    Examples:
        >>> check_total_read(tokens_read(24, growth=1_875, start=2_000))
        'PASS'
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return _not_a_number(answer)
    steps = loop_steps(24, growth=LOOP_GROWTH, start=LOOP_START)
    total = tokens_read(24, growth=LOOP_GROWTH, start=LOOP_START)
    if answer == total:
        return PASS
    if answer == steps[-1].context:
        return _needs_work(
            f"{answer:,} is what the last call sends; the total adds up what all 24 calls read"
        )
    if answer == tokens_read(24, growth=LOOP_GROWTH) + LOOP_START:
        return _needs_work("the start is not read once: every call re-reads it")
    return _needs_work(f"not {answer:,}: add the context of every call, start + k * growth")


def check_doubling_steps(answer: object) -> str:
    """The fewest calls that read at least twice what the 24-call loop reads.

    Examples:
        >>> print(check_doubling_steps(48))
        NEEDS_WORK: 48 calls read 3.8 times as much, not twice: it grows with the square
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return _not_a_number(answer)
    target = 2 * tokens_read(24, growth=LOOP_GROWTH, start=LOOP_START)
    fewest = next(
        n for n in range(1, 1_000) if tokens_read(n, growth=LOOP_GROWTH, start=LOOP_START) >= target
    )
    if answer == fewest:
        return PASS
    if answer < 1:
        return _needs_work(f"a loop has at least one call, got {answer}")
    read = tokens_read(answer, growth=LOOP_GROWTH, start=LOOP_START)
    ratio = read / (target / 2)
    if answer > fewest:
        return _needs_work(
            f"{answer} calls read {ratio:.1f} times as much, not twice: it grows with the square"
        )
    return _needs_work(f"{answer} calls read only {ratio:.2f} times as much; a few more are needed")


def check_read_so_far(function: Callable[[int, int, int], int]) -> str:
    """The reader's `read_so_far(steps, growth, start)`, written as a loop, against the closed form.

    Examples:
        >>> check_read_so_far(lambda steps, growth, start: steps * (start + steps * growth))
        'NEEDS_WORK: 2 of 5 cases wrong; first, 3 calls of 100 from 0: expected 600, got 900'
    """
    cases: list[Case] = [
        (f"{n} calls of {g} from {s}", (n, g, s), tokens_read(n, growth=g, start=s))
        for n, g, s in [(0, 100, 50), (1, 100, 0), (3, 100, 0), (24, 1_875, 2_000), (5, 0, 7)]
    ]
    return _run_cases(function, cases)


# --- Tokens and estimates ----------------------------------------------------------


def check_estimate(function: Callable[[str], int]) -> str:
    """The reader's `estimate(text)`: characters divided by four, rounded up.

    Examples:
        >>> check_estimate(lambda text: len(text) // 4)
        "NEEDS_WORK: 4 of 6 cases wrong; first, 'abc' (3 characters): expected 1, got 0"
    """
    texts = ["", "abc", "abcd", "abcde", "é" * 9, "🍦 " * 5]
    cases: list[Case] = [
        (f"{text!r} ({len(text)} characters)", (text,), math.ceil(len(text) / 4)) for text in texts
    ]
    return _run_cases(function, cases)


#: The message of the message-size exercise.
QUESTION: Message = {"role": "user", "content": "Where is the ladder for the back freezer?"}


def check_message_size(answer: object) -> str:
    """Tokens that `QUESTION` costs in a request, by the estimate, framing included.

    Examples:
        >>> check_message_size(message_tokens(QUESTION))
        'PASS'
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return _not_a_number(answer)
    size = message_tokens(QUESTION)
    text_only = estimate_tokens(str(QUESTION["content"]))
    if answer == size:
        return PASS
    if answer == text_only:
        return _needs_work(
            f"{text_only} is the text alone; every message also pays "
            f"{MESSAGE_OVERHEAD_TOKENS} tokens for its framing"
        )
    return _needs_work(f"not {answer}: estimate the content, then add the per-message framing")


def _digit_aware(text: str) -> int:
    digits = sum(character.isdigit() for character in text)
    rest = "".join(character for character in text if not character.isdigit())
    return digits + estimate_tokens(rest)


def check_digit_aware(function: Callable[[str], int]) -> str:
    """The reader's `digit_aware(text)`: one token per digit, four characters a token for the rest.

    Examples:
        >>> check_digit_aware(estimate_tokens)
        "NEEDS_WORK: 3 of 5 cases wrong; first, '2026': expected 4, got 1"
    """
    texts = ["", "scoop", "2026", "PO 5512 on 2 March", "11:05 | mint | 2 scoops"]
    return _run_cases(function, [(repr(text), (text,), _digit_aware(text)) for text in texts])


# --- Layers -------------------------------------------------------------------------


def check_layer_order(answer: object) -> str:
    """The three layers, most stable first, as a list of their names.

    Examples:
        >>> print(check_layer_order(["system", "conversation", "pinned"]))
        NEEDS_WORK: records change rarely, the conversation every turn: pinned is second
    """
    right = ["system", "pinned", "conversation"]
    if not isinstance(answer, list | tuple) or sorted(map(str, answer)) != sorted(right):
        return _needs_work(f"list the three names {right} in some order, got {_shown(answer)}")
    names = [str(name) for name in answer]
    if names == right:
        return PASS
    if names == right[::-1]:
        return _needs_work("that is least stable first; a cache keeps the longest unchanged start")
    if names[0] != "system":
        return _needs_work("the system prompt almost never changes: it comes first")
    return _needs_work("records change rarely, the conversation every turn: pinned is second")


#: The rule of the rule-cost exercise.
RULE = "Close the display freezer door after every scoop."


def check_rule_cost(answer: object) -> str:
    """Tokens that `RULE` adds to a request as one more pinned record, by the estimate.

    Examples:
        >>> print(check_rule_cost(estimate_tokens(RULE)))
        NEEDS_WORK: 13 is the text alone; a record is a message and pays 5 of framing too
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return _not_a_number(answer)
    before = budget_report(Layers("s", [], []))["total"]
    after = budget_report(Layers("s", [RULE], []))["total"]
    if answer == after - before:
        return PASS
    if answer == estimate_tokens(RULE):
        return _needs_work(
            f"{answer} is the text alone; a record is a message and pays "
            f"{MESSAGE_OVERHEAD_TOKENS} of framing too"
        )
    return _needs_work(f"not {answer}: a record costs what the same text costs as a message")


def _report_cases() -> list[Case]:
    lucy_layers = Layers(LUCY.system, list(LUCY.pinned), LUCY.conversation())
    shapes = [
        ("empty layers", Layers("", [], [])),
        ("a system prompt only", Layers("You help Lucy.", [], [])),
        ("two records, one message", Layers("s", ["rule one", "rule two"], [QUESTION])),
        ("Lucy's day", lucy_layers),
    ]
    return [(label, (layers,), dict(budget_report(layers))) for label, layers in shapes]


def check_budget_report(function: Callable[[Layers], dict[str, int]]) -> str:
    """The reader's `report(layers)` against `budget_report`: the same four numbers.

    Examples:
        >>> check_budget_report(budget_report)
        'PASS'
    """
    return _run_cases(function, _report_cases(), lambda got, want: dict(got) == want)


# --- Cutting ------------------------------------------------------------------------


def _sales_rows(count: int) -> str:
    """`count` sales, one every five minutes from 10:00: `10:05 | sale 2`."""
    stamps = [divmod(10 * 60 + 5 * n, 60) for n in range(count)]
    return "\n".join(f"{hour}:{minute:02} | sale {n}" for n, (hour, minute) in enumerate(stamps, 1))


_LOG = _sales_rows(30)


def _tail(text: str, budget: int) -> str:
    lines = text.splitlines()
    kept, used = 0, 0
    for line in reversed(lines):
        cost = estimate_tokens(line + "\n")
        if used + cost > budget:
            break
        kept, used = kept + 1, used + cost
    if kept == len(lines):
        return text
    return "\n".join([f"[... {len(lines) - kept} lines left out ...]", *lines[len(lines) - kept :]])


def _cut_cases(reference: Callable[[str, int], str]) -> list[Case]:
    shapes = [
        ("everything fits", _LOG, 10_000),
        ("a budget of 30", _LOG, 30),
        ("a budget of 0", _LOG, 0),
        ("one line", "10:00 | sale 1", 5),
        ("empty text", "", 10),
    ]
    return [(label, (text, budget), reference(text, budget)) for label, text, budget in shapes]


def check_head(function: Callable[[str, int], str]) -> str:
    """The reader's `first_lines(text, budget)` against the package's `head`.

    Examples:
        >>> check_head(head)
        'PASS'
    """
    return _run_cases(function, _cut_cases(head))


def check_tail(function: Callable[[str, int], str]) -> str:
    """The reader's `tail(text, budget)`: the last lines that fit, after a gap line if any dropped.

    Examples:
        >>> verdict = check_tail(lambda text, budget: text)
        >>> for part in verdict.split("; first, "):
        ...     print(part)
        NEEDS_WORK: 2 of 5 cases wrong
        a budget of 30: line 1 should be '[... 23 lines left out ...]', got '10:00 | sale 1'
    """
    return _run_cases(function, _cut_cases(_tail))


# --- Clearing and compaction -------------------------------------------------------


def check_clearing(function: Callable[[list[Message], int], list[Message]]) -> str:
    """The reader's `clear_old_tool_results(messages, keep_last)` on Unit A's clearing cases.

    Examples:
        >>> check_clearing(lambda messages, keep_last: [dict(m) for m in messages])
        'NEEDS_WORK: clears all but the last two -> 0'
    """
    rows = grade_unit(function, compact)[:3]  # the three clearing cases
    failed = [row for row in rows if row["status"] != "PASS"]
    if not failed:
        return PASS
    return _needs_work("; ".join(f"{row['case']} -> {row['observed']}" for row in failed))


def check_visible_at_400(answer: object) -> str:
    """How many of Lucy's 11 facts are visible after compaction to 400 tokens, rules not pinned.

    Examples:
        >>> print(check_visible_at_400(9))
        NEEDS_WORK: 9 is the count with the rules pinned; here the summary can drop them
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return _not_a_number(answer)
    table = survival_table(LUCY, PLANS)
    counts = {label: len(row["kept"]) for label, row in table.items()}
    if answer == counts["400"]:
        return PASS
    if answer == counts["400+pinned"]:
        return _needs_work(
            f"{answer} is the count with the rules pinned; here the summary can drop them"
        )
    if answer == len(LUCY.questions):
        return _needs_work("at 400 tokens the summary has to drop something")
    return _needs_work(f"not {answer}: which facts hold a digit that keep_numbers would keep?")


def _call(ident: str, name: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": name, "input": {}}


def _result(ident: str, rows: int) -> dict[str, Any]:
    content = str(
        tool_message("t", {"rows": [f"row {i}: 12 tubs" for i in range(rows)]})["content"]
    )
    return {"type": "tool_result", "tool_use_id": ident, "content": content}


def _afternoon() -> list[Message]:
    """A short Anthropic-format afternoon: questions, calls, results (one pair of two)."""
    return [
        {"role": "user", "content": "Check the freezers, please."},
        {"role": "assistant", "content": [_call("toolu_a1", "freezer_count")]},
        {"role": "user", "content": [_result("toolu_a1", 12)]},
        {"role": "assistant", "content": "Both freezers are fine."},
        {"role": "user", "content": "And the deliveries and the till?"},
        {
            "role": "assistant",
            "content": [_call("toolu_a2", "deliveries"), _call("toolu_a3", "till")],
        },
        {"role": "user", "content": [_result("toolu_a2", 8), _result("toolu_a3", 3)]},
        {"role": "assistant", "content": "All delivered; the till is balanced."},
        {"role": "user", "content": "Thanks. What is left for today?"},
        {"role": "assistant", "content": "Only locking up."},
    ]


def _starts_on_a_question(conversation: Sequence[Message]) -> bool:
    first = conversation[0]
    blocks = first["content"] if isinstance(first["content"], list) else []
    return first["role"] == "user" and all(block.get("type") != "tool_result" for block in blocks)


def _longest_safe_suffix(conversation: list[Message], budget: int) -> int:
    """How many messages the safest drop-the-oldest trim keeps at `budget`."""
    for start in range(len(conversation)):
        rest = conversation[start:]
        fits = budget_report(Layers("", [], rest))["total"] <= budget
        if fits and _starts_on_a_question(rest):
            return len(rest)
    return 0


def check_safe_trim(function: Callable[[Layers, int], Layers]) -> str:
    """The reader's drop-the-oldest trim `(layers, budget) -> layers` at every budget.

    It passes when, at budgets from 0 to the afternoon's full size in steps of
    5 tokens, it only ever drops messages from the front, never leaves a broken
    tool-call pair (`validate_history`), fits the budget, and keeps as many
    messages as the safest such trim does.

    Examples:
        >>> print(check_safe_trim(lambda layers, budget: layers))
        NEEDS_WORK: at a budget of 0 tokens it keeps 208 tokens
    """
    afternoon = _afternoon()
    full = budget_report(Layers("", [], afternoon))["total"]
    for budget in range(0, full + 5, 5):
        given = Layers("", [], copy.deepcopy(afternoon))
        outcome = attempt(function, given, budget)
        if isinstance(outcome.error, NotImplementedError):
            return _needs_work("not written yet (it raises NotImplementedError)")
        if outcome.error is not None:
            return _needs_work(f"at a budget of {budget} tokens it raised {outcome.error_name}")
        if given.conversation != afternoon:
            return _needs_work("it changed the layers it was given")
        try:
            kept = list(outcome.value.conversation)
            size = budget_report(Layers("", [], kept))["total"]
            problems = validate_history(kept)
        except Exception as error:
            return _needs_work(f"it returned no readable Layers ({type(error).__name__})")
        if kept != afternoon[len(afternoon) - len(kept) :]:
            return _needs_work(
                f"at a budget of {budget} tokens it kept more than the newest messages"
            )
        if size > budget:
            return _needs_work(f"at a budget of {budget} tokens it keeps {size} tokens")
        if problems:
            return _needs_work(f"at a budget of {budget} tokens the history breaks: {problems[0]}")
        safest = _longest_safe_suffix(afternoon, budget)
        if len(kept) < safest:
            return _needs_work(
                f"at a budget of {budget} tokens it keeps {len(kept)} messages "
                f"where {safest} can stay"
            )
    return PASS


def _keep_first_reference(messages: Sequence[Message], budget: int) -> list[Message]:
    """The task (message 0) plus the newest messages after it that fit with it."""
    sizes = [message_tokens(m) for m in messages]
    total, start = sum(sizes), 1
    while start < len(sizes) and total > budget:
        total -= sizes[start]
        start += 1
    return [messages[0], *messages[start:]] if messages else []


def check_first_kept_trim(
    function: Callable[[list[Message], int, Callable[[Message], int]], list[Message]],
) -> str:
    """Exercise (How fast is it): trim the oldest turns but keep the task, counting once.

    `function(messages, budget, count)` keeps `messages[0]` (the task) and drops
    the oldest messages after it until the sizes, by `count(message)`, add up
    to at most `budget`. It must call `count` once per message.

    Args:
        function: the learner's trim.

    Returns:
        `"PASS"`, or `"NEEDS_WORK: ..."` naming the first history that went wrong.
    """
    for n in (10, 100, 400):
        history: list[Message] = [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * (1 + i % 7)}
            for i in range(n)
        ]
        budget = sum(message_tokens(m) for m in history) // 3
        calls = 0

        def count(message: Message) -> int:
            nonlocal calls
            calls += 1
            return message_tokens(message)

        expected = _keep_first_reference(history, budget)
        try:
            kept = function(copy.deepcopy(history), budget, count)
        except Exception as error:  # a learner's bug is a verdict, not a crash
            return _needs_work(f"{n} messages: raised {type(error).__name__}: {error}")
        if kept != expected:
            got = len(kept) if isinstance(kept, list) else _shown(kept)
            return _needs_work(
                f"{n} messages, budget {budget}: kept {got} messages, expected "
                f"{len(expected)} (the task, then the newest that fit with it)"
            )
        if calls != n:
            return _needs_work(f"{n} messages: count was called {calls:,} times, not {n}")
    return PASS
