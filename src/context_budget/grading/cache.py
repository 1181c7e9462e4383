"""Checkers for the exercises of *Keep the start stable* and *Don't edit the middle*.

Each checker runs the learner's answer against the cache model or the prefix
guard and returns one line: `"PASS: ..."` with what was measured, or
`"NEEDS_WORK: ..."` saying what is wrong and where. A checker never lets the
learner's exception escape: it is reported as NEEDS_WORK with its class name.

Examples:
    >>> print(check_minimums({"claude-sonnet-4-6", "claude-opus-5"}))
    NEEDS_WORK: missed claude-opus-4-7 (minimum 2,048 tokens)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from context_budget.cache import MIN_CACHEABLE_TOKENS, PromptCache
from context_budget.history import PrefixGuard, validate_history
from context_budget.messages import Message
from context_budget.scenarios.cache_runs import SYSTEM, TASK, middle_run, read_call, read_result

#: The stable instructions of exercise 1, about 2,000 estimated tokens.
STABLE_RULES = SYSTEM
#: The questions of exercise 1, one per turn.
QUESTIONS = (
    "Which report is newest?",
    "Which service failed most?",
    "How long was auth down?",
    "Was a deploy involved?",
    "What should we fix first?",
    "Summarize in one line.",
)
#: The models of exercise 3.
MINIMUM_MODELS = (
    "claude-haiku-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-opus-5",
    "claude-sonnet-4-6",
)
#: The prompt size of exercise 3, in tokens.
MINIMUM_PROMPT = 3_000

_MODEL = "claude-sonnet-4-6"
PASS = "PASS"
NEEDS_WORK = "NEEDS_WORK"


def _needs(why: str) -> str:
    return f"{NEEDS_WORK}: {why}"


def _strings(value: object) -> list[str]:
    """Every string inside `value` (dicts, lists), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def check_timestamp_moved(make_request: Callable[[int, str], Mapping[str, Any]]) -> str:
    """Exercise 1: keep telling the model the time without losing the cache.

    `make_request(turn, now)` returns the `messages.create` arguments for turn
    `turn` (0 to 5) at time `now` (an ISO 8601 string), asking `QUESTIONS[turn]`
    under the instructions `STABLE_RULES`. PASS when every request still holds
    `now` and every turn after the first reads at least the instructions'
    tokens from the cache (`claude-sonnet-4-6`).
    """
    cache = PromptCache(_MODEL)
    rules = cache.prompt_tokens(system=STABLE_RULES)
    reads = []
    for turn, question in enumerate(QUESTIONS):
        now = f"2026-09-14T10:{turn:02d}:07Z"
        try:
            request = dict(make_request(turn, now))
            text = "\0".join(_strings(request))
            usage = cache.usage(request)
        except Exception as error:  # the learner's code: report, never raise
            return _needs(f"turn {turn} raised {type(error).__name__}: {error}")
        if now not in text:
            return _needs(f"turn {turn}: the request no longer tells the model the time {now!r}")
        if question not in text:
            return _needs(f"turn {turn}: the request does not ask {question!r}")
        if not any(STABLE_RULES in piece for piece in text.split("\0")):
            return _needs(f"turn {turn}: the request dropped STABLE_RULES")
        reads.append(usage.cache_read_input_tokens)
        if turn and usage.cache_read_input_tokens < rules:
            return _needs(
                f"turn {turn} read {usage.cache_read_input_tokens:,} tokens from the cache, "
                f"less than the {rules:,} tokens of STABLE_RULES: something before them changes, "
                "or no breakpoint sits after them"
            )
    return f"{PASS}: turns 1-5 each read at least {min(reads[1:]):,} tokens from the cache"


def check_breakpoints(breakpoints: Callable[[int, int], Sequence[int]]) -> str:
    """Exercise 2: place breakpoints so that every turn reads what the last one wrote.

    `breakpoints(previous_end, end)` returns the 1-based positions of the
    blocks to mark in a conversation of `end` one-block messages whose
    previous request had `previous_end` of them (0 on the first turn). PASS
    when, at 200 tokens a block on `claude-sonnet-4-6`, every turn after the
    first reads the previous request's whole prompt, with at most 4 marks.
    """
    for turns in ((10, 15, 35), (10, 40, 41, 80), (30, 31, 32, 60)):
        cache = PromptCache(_MODEL, counter=lambda text: 200)
        previous = 0
        for end in turns:
            try:
                marks = sorted(set(breakpoints(previous, end)))
            except Exception as error:
                return _needs(f"breakpoints({previous}, {end}) raised {type(error).__name__}")
            if not marks or len(marks) > 4 or marks[0] < 1 or marks[-1] > end:
                return _needs(
                    f"breakpoints({previous}, {end}) gave {marks}: "
                    f"give 1 to 4 positions in 1..{end}"
                )
            messages: list[Message] = [
                {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]} for i in range(end)
            ]
            for position in marks:
                messages[position - 1]["content"][0]["cache_control"] = {"type": "ephemeral"}
            read = cache.usage(messages=messages).cache_read_input_tokens
            if previous and read < previous * 200:
                return _needs(
                    f"after {previous} blocks, the turn with {end} read {read:,} tokens, not the "
                    f"{previous * 200:,} written before: marks {marks} leave the last write more "
                    "than 20 blocks behind every breakpoint"
                )
            previous = end
    return f"{PASS}: every turn read the whole previous prompt"


def check_minimums(answer: Collection[str]) -> str:
    """Exercise 3: which of `MINIMUM_MODELS` cache a prompt of `MINIMUM_PROMPT` tokens.

    `answer` is the set of model ids you predict will write a cache entry.
    """
    right = {m for m in MINIMUM_MODELS if MIN_CACHEABLE_TOKENS[m].tokens <= MINIMUM_PROMPT}
    given = set(answer)
    unknown = sorted(given - set(MINIMUM_MODELS))
    if unknown:
        return _needs(f"not one of the exercise's models: {', '.join(unknown)}")
    wrong = [
        f"{m} does not cache it (minimum {MIN_CACHEABLE_TOKENS[m].tokens:,} tokens)"
        for m in sorted(given - right)
    ]
    missed = [
        f"missed {m} (minimum {MIN_CACHEABLE_TOKENS[m].tokens:,} tokens)"
        for m in sorted(right - given)
    ]
    if wrong or missed:
        return _needs("; ".join([*wrong, *missed]))
    return f"{PASS}: {len(right)} of {len(MINIMUM_MODELS)} models cache {MINIMUM_PROMPT:,} tokens"


def check_guard_predictions(predictions: Mapping[str, str]) -> str:
    """Exercise 4: predict the guard's worst verdict on each strategy of `middle_run`.

    `predictions` maps `"append"`, `"client_clear"`, `"server_clear"` and
    `"restart"` to `"append"`, `"replaced"` or `"edited"`: the verdict the
    guard gives that run at its worst (edited > replaced > append).
    """
    order = {"first": 0, "append": 1, "replaced": 2, "edited": 3}
    wrong = []
    for strategy in ("append", "client_clear", "server_clear", "restart"):
        if strategy not in predictions:
            return _needs(f"no prediction for {strategy!r}")
        calls = middle_run(strategy)
        worst = max(calls, key=lambda call: order[call.guard])
        if predictions[strategy] != worst.guard:
            at = calls.index(worst) + 1
            wrong.append(
                f"{strategy}: you said {predictions[strategy]!r}, the guard said "
                f"{worst.guard!r} (first at call {at})"
            )
    if wrong:
        return _needs("; ".join(wrong))
    return f"{PASS}: all four verdicts right"


def check_restart(restart: Callable[[list[Message], str], list[Message]]) -> str:
    """Exercise 5: restart a conversation from a summary without editing its middle.

    `restart(history, summary)` returns the history to send next. PASS when
    the guard does not call it an edit, it is a valid history, it still holds
    the task and the summary, it is under half the old size, and `history`
    is left as it was.
    """
    history: list[Message] = [{"role": "user", "content": TASK}]
    for n in range(6):
        history += [read_call(n), read_result(n)]
    summary = "Read INC-1000 to INC-1005; auth was down 57 minutes, the longest so far."
    before = copy.deepcopy(history)
    guard = PrefixGuard()
    guard.check(history)
    try:
        fresh = restart(history, summary)
    except Exception as error:
        return _needs(f"restart raised {type(error).__name__}: {error}")
    if history != before:
        return _needs("restart changed the history it was given; build a new list")
    try:
        report = guard.check(fresh)
    except (TypeError, ValueError) as error:
        return _needs(f"the new history is malformed: {error}")
    if not report.ok:
        return _needs(
            f"the guard says {report}: a new conversation must not begin like the old one "
            "and then differ; put the task and the summary in one new first message"
        )
    problems = validate_history(fresh)
    if problems:
        return _needs(f"the new history breaks a tool call: {problems[0]}")
    text = "\0".join(_strings(fresh))
    if TASK not in text or summary not in text:
        return _needs("the new history must carry both the task and the summary")
    old, new = (PromptCache(_MODEL).prompt_tokens(messages=m) for m in (history, fresh))
    if new * 2 > old:
        return _needs(f"the new history is {new:,} tokens; the old one was {old:,}")
    return f"{PASS}: {report.kind}, {old:,} -> {new:,} tokens"
