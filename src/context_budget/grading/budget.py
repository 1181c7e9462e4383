"""Checkers for the exercises of Part I, *The budget*.

Each checker takes the reader's answer (a number, a list) or the reader's
function, and returns a `Verdict`: `PASS`, with what was measured when there
is something to say, or `NEEDS_WORK: ` and what is wrong, naming the case,
what was expected and what came back. A checker never raises because of the
reader's code: an exception inside it is reported in the verdict.

The checkers, by chapter:

- *Context is a budget*: `check_total_read`, `check_doubling_steps`,
  `check_read_so_far`;
- *Tokens and estimates*: `check_estimate`, `check_message_size`,
  `check_digit_aware`;
- *Layers and the budget report*: `check_layer_order`, `check_rule_cost`,
  `check_budget_report`;
- *Keep the start stable*: `check_timestamp_moved`, `check_breakpoints`,
  `check_minimums`, `check_every_provider` (run against the prompt-cache
  model, the last under five providers' rules).

Examples:
    >>> check_layer_order(["system", "pinned", "conversation"])
    'PASS'
    >>> print(check_layer_order(["conversation", "pinned", "system"]))
    NEEDS_WORK: that is least stable first; a cache keeps the longest unchanged start
    >>> print(check_minimums({"claude-sonnet-4-6", "claude-opus-5"}))
    NEEDS_WORK: missed claude-opus-4-7 (minimum 2,048 tokens)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from context_budget.budget import loop_steps, tokens_read
from context_budget.cache import PromptCache
from context_budget.grading import (
    NEEDS_WORK,
    PASS,
    Case,
    Verdict,
    attempt,
    brief,
    not_a_number,
    run_cases,
    strings_in,
    wrong_shape,
)
from context_budget.layers import Layers, budget_report
from context_budget.messages import Message
from context_budget.models import MODELS
from context_budget.scenarios.cache_runs import PROVIDER_POLICIES, PROVIDER_SYSTEM, SYSTEM
from context_budget.scenarios.lucy import LUCY
from context_budget.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens, message_tokens

__all__ = [
    "LONG_RULES",
    "MINIMUM_MODELS",
    "MINIMUM_PROMPT",
    "QUESTION",
    "QUESTIONS",
    "RULE",
    "STABLE_RULES",
    "check_breakpoints",
    "check_budget_report",
    "check_digit_aware",
    "check_doubling_steps",
    "check_estimate",
    "check_every_provider",
    "check_layer_order",
    "check_message_size",
    "check_minimums",
    "check_read_so_far",
    "check_rule_cost",
    "check_timestamp_moved",
    "check_total_read",
]


# --- Context is a budget --------------------------------------------------------------

#: The chapter's loop: tokens before the first call, tokens added per call.
LOOP_START, LOOP_GROWTH = 2_000, 1_875


def check_total_read(answer: object) -> Verdict:
    """Tokens read over the 24 calls of the chapter's loop (start 2,000, growth 1,875).

    Examples:
        >>> check_total_read(tokens_read(24, growth=1_875, start=2_000))
        'PASS'
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return not_a_number(answer)
    steps = loop_steps(24, growth=LOOP_GROWTH, start=LOOP_START)
    total = tokens_read(24, growth=LOOP_GROWTH, start=LOOP_START)
    if answer == total:
        return Verdict(PASS)
    if answer == steps[-1].context:
        return Verdict(
            NEEDS_WORK,
            f"{answer:,} is what the last call sends; the total adds up what all 24 calls read",
        )
    if answer == tokens_read(24, growth=LOOP_GROWTH) + LOOP_START:
        return Verdict(NEEDS_WORK, "the start is not read once: every call re-reads it")
    return Verdict(NEEDS_WORK, f"not {answer:,}: add the context of every call, start + k * growth")


def check_doubling_steps(answer: object) -> Verdict:
    """The fewest calls that read at least twice what the 24-call loop reads.

    Examples:
        >>> print(check_doubling_steps(48))
        NEEDS_WORK: 48 calls read 3.8 times as much, not twice: it grows with the square
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return not_a_number(answer)
    target = 2 * tokens_read(24, growth=LOOP_GROWTH, start=LOOP_START)
    fewest = next(
        n for n in range(1, 1_000) if tokens_read(n, growth=LOOP_GROWTH, start=LOOP_START) >= target
    )
    if answer == fewest:
        return Verdict(PASS)
    if answer < 1:
        return Verdict(NEEDS_WORK, f"a loop has at least one call, got {answer}")
    read = tokens_read(answer, growth=LOOP_GROWTH, start=LOOP_START)
    ratio = read / (target / 2)
    if answer > fewest:
        return Verdict(
            NEEDS_WORK,
            f"{answer} calls read {ratio:.1f} times as much, not twice: it grows with the square",
        )
    return Verdict(
        NEEDS_WORK, f"{answer} calls read only {ratio:.2f} times as much; a few more are needed"
    )


def check_read_so_far(function: Callable[[int, int, int], int]) -> Verdict:
    """The reader's `read_so_far(steps, growth, start)`, written as a loop, against the closed form.

    Examples:
        >>> check_read_so_far(lambda steps, growth, start: steps * (start + steps * growth))
        'NEEDS_WORK: 2 of 5 cases wrong; first, 3 calls of 100 from 0: expected 600, got 900'
        >>> check_read_so_far(lambda steps, growth, start: steps * start)
        'NEEDS_WORK: 3 of 5 cases wrong; first, 1 call of 100 from 0: expected 100, got 0'
    """
    cases: list[Case] = [
        (
            f"{n} call{'' if n == 1 else 's'} of {g} from {s}",
            (n, g, s),
            tokens_read(n, growth=g, start=s),
        )
        for n, g, s in [(0, 100, 50), (1, 100, 0), (3, 100, 0), (24, 1_875, 2_000), (5, 0, 7)]
    ]
    return run_cases(function, cases)


# --- Tokens and estimates -------------------------------------------------------------


def check_estimate(function: Callable[[str], int]) -> Verdict:
    """The reader's `estimate(text)`: characters divided by four, rounded up.

    Examples:
        >>> check_estimate(lambda text: len(text) // 4)
        "NEEDS_WORK: 4 of 6 cases wrong; first, 'abc' (3 characters): expected 1, got 0"
    """
    texts = ["", "abc", "abcd", "abcde", "é" * 9, "🍦 " * 5]
    cases: list[Case] = [
        (f"{text!r} ({len(text)} characters)", (text,), math.ceil(len(text) / 4)) for text in texts
    ]
    return run_cases(function, cases)


#: The message of the message-size exercise.
QUESTION: Message = {"role": "user", "content": "Where is the ladder for the back freezer?"}


def check_message_size(answer: object) -> Verdict:
    """Tokens that `QUESTION` costs in a request, by the estimate, framing included.

    Examples:
        >>> check_message_size(message_tokens(QUESTION))
        'PASS'
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return not_a_number(answer)
    size = message_tokens(QUESTION)
    text_only = estimate_tokens(str(QUESTION["content"]))
    if answer == size:
        return Verdict(PASS)
    if answer == text_only:
        return Verdict(
            NEEDS_WORK,
            f"{text_only} is the text alone; every message also pays "
            f"{MESSAGE_OVERHEAD_TOKENS} tokens for its framing",
        )
    return Verdict(
        NEEDS_WORK, f"not {answer}: estimate the content, then add the per-message framing"
    )


def _digit_aware(text: str) -> int:
    digits = sum(character.isdigit() for character in text)
    rest = "".join(character for character in text if not character.isdigit())
    return digits + estimate_tokens(rest)


def check_digit_aware(function: Callable[[str], int]) -> Verdict:
    """The reader's `digit_aware(text)`: one token per digit, four characters a token for the rest.

    Examples:
        >>> check_digit_aware(estimate_tokens)
        "NEEDS_WORK: 3 of 5 cases wrong; first, '2026': expected 4, got 1"
    """
    texts = ["", "scoop", "2026", "PO 5512 on 2 March", "11:05 | mint | 2 scoops"]
    return run_cases(function, [(repr(text), (text,), _digit_aware(text)) for text in texts])


# --- Layers and the budget report -----------------------------------------------------


def check_layer_order(answer: object) -> Verdict:
    """The three layers, most stable first, as a list of their names.

    Examples:
        >>> print(check_layer_order(["system", "conversation", "pinned"]))
        NEEDS_WORK: records change rarely, the conversation every turn: pinned is second
    """
    right = ["system", "pinned", "conversation"]
    if not isinstance(answer, list | tuple) or sorted(map(str, answer)) != sorted(right):
        return Verdict(
            NEEDS_WORK, f"list the three names {right} in some order, got {brief(answer)}"
        )
    names = [str(name) for name in answer]
    if names == right:
        return Verdict(PASS)
    if names == right[::-1]:
        return Verdict(
            NEEDS_WORK, "that is least stable first; a cache keeps the longest unchanged start"
        )
    if names[0] != "system":
        return Verdict(NEEDS_WORK, "the system prompt almost never changes: it comes first")
    return Verdict(
        NEEDS_WORK, "records change rarely, the conversation every turn: pinned is second"
    )


#: The rule of the rule-cost exercise.
RULE = "Close the display freezer door after every scoop."


def check_rule_cost(answer: object) -> Verdict:
    """Tokens that `RULE` adds to a request as one more pinned record, by the estimate.

    Examples:
        >>> print(check_rule_cost(estimate_tokens(RULE)))
        NEEDS_WORK: 13 is the text alone; a record is a message and pays 5 of framing too
    """
    if isinstance(answer, bool) or not isinstance(answer, int):
        return not_a_number(answer)
    before = budget_report(Layers("s", [], []))["total"]
    after = budget_report(Layers("s", [RULE], []))["total"]
    if answer == after - before:
        return Verdict(PASS)
    if answer == estimate_tokens(RULE):
        return Verdict(
            NEEDS_WORK,
            f"{answer} is the text alone; a record is a message and pays "
            f"{MESSAGE_OVERHEAD_TOKENS} of framing too",
        )
    return Verdict(
        NEEDS_WORK, f"not {answer}: a record costs what the same text costs as a message"
    )


def _report_cases() -> list[Case]:
    lucy_layers = Layers(LUCY.system, list(LUCY.pinned), LUCY.conversation())
    shapes = [
        ("empty layers", Layers("", [], [])),
        ("a system prompt only", Layers("You help Lucy.", [], [])),
        ("two records, one message", Layers("s", ["rule one", "rule two"], [QUESTION])),
        ("Lucy's day", lucy_layers),
    ]
    return [(label, (layers,), dict(budget_report(layers))) for label, layers in shapes]


def check_budget_report(function: Callable[[Layers], dict[str, int]]) -> Verdict:
    """The reader's `report(layers)` against `budget_report`: the same four numbers.

    Examples:
        >>> check_budget_report(budget_report)
        'PASS'
    """
    return run_cases(function, _report_cases(), lambda got, want: dict(got) == want)


# --- Keep the start stable ------------------------------------------------------------

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
#: The rules of exercise 4: longer than every provider's minimum cacheable prefix.
LONG_RULES = PROVIDER_SYSTEM
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

#: The model whose prompt cache prices exercises 1 and 2.
_MODEL = "claude-sonnet-4-6"


def _minimum(model: str) -> int:
    """The model's minimum cacheable prefix, tokens, from its row of the table of models."""
    return MODELS[model].cache.minimum.tokens


def check_timestamp_moved(make_request: Callable[[int, str], Mapping[str, Any]]) -> Verdict:
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
    for turn in range(len(QUESTIONS)):
        request = _asked(make_request, turn, STABLE_RULES, "STABLE_RULES")
        if isinstance(request, Verdict):
            return request
        try:
            usage = cache.usage(dict(request))
        except (TypeError, ValueError) as error:  # the cache model's own words on the request
            return _unsendable(turn, error)
        reads.append(usage.cache_read_input_tokens)
        if turn and usage.cache_read_input_tokens < rules:
            return Verdict(
                NEEDS_WORK,
                f"turn {turn} read {usage.cache_read_input_tokens:,} tokens from the cache, "
                f"less than the {rules:,} tokens of STABLE_RULES: something before them changes, "
                "or no breakpoint sits after them",
            )
    return Verdict(PASS, f"turns 1-5 each read at least {min(reads[1:]):,} tokens from the cache")


def _now(turn: int) -> str:
    """The time of `turn` in the exercises that tell the model the time."""
    return f"2026-09-14T10:{turn:02d}:07Z"


def _asked(
    make_request: Callable[[int, str], Mapping[str, Any]], turn: int, rules: str, name: str
) -> Mapping[str, Any] | Verdict:
    """The learner's request of `turn`, or the verdict on what is wrong with it.

    It must be a dict with a messages list that still tells the model the
    time, asks `QUESTIONS[turn]` and carries `rules` (called `name`).
    """
    now = _now(turn)
    outcome = attempt(make_request, turn, now)
    if outcome.error is not None:  # the learner's code: report, never raise
        return Verdict(NEEDS_WORK, f"turn {turn} raised {outcome.error_name}: {outcome.error}")
    request = outcome.value
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        return wrong_shape(
            f"make_request({turn}, now) returned", request, "a dict with a messages list"
        )
    text = "\0".join(strings_in(request))
    if now not in text:
        return Verdict(
            NEEDS_WORK, f"turn {turn}: the request no longer tells the model the time {now!r}"
        )
    if QUESTIONS[turn] not in text:
        return Verdict(NEEDS_WORK, f"turn {turn}: the request does not ask {QUESTIONS[turn]!r}")
    if not any(rules in piece for piece in text.split("\0")):
        return Verdict(NEEDS_WORK, f"turn {turn}: the request dropped {name}")
    return request


def _unsendable(turn: int, error: Exception) -> Verdict:
    reason = error if isinstance(error, ValueError) else "blocks of the wrong type"
    return Verdict(NEEDS_WORK, f"turn {turn}: the request cannot be sent: {reason}")


def check_every_provider(make_request: Callable[[int, str], Mapping[str, Any]]) -> Verdict:
    """Exercise 4: one request that keeps the cache on all five providers' rules.

    `make_request(turn, now)` returns the `messages.create` arguments for turn
    `turn` (0 to 5) at time `now`, asking `QUESTIONS[turn]` under the rules
    `LONG_RULES` (longer than every provider's minimum). Each provider of
    `scenarios.cache_runs.PROVIDER_POLICIES` reads the six requests with its
    own `PromptCache`. PASS when, on every one, every turn after the first
    reads the rules from the cache, to within the provider's own unit (a
    hit counted in 128-token steps or 64-token units reads a little less).
    """
    requests = []
    for turn in range(len(QUESTIONS)):
        request = _asked(make_request, turn, LONG_RULES, "LONG_RULES")
        if isinstance(request, Verdict):
            return request
        requests.append(dict(request))
    missed: list[str] = []  # one line per provider that misses
    kept: list[str] = []
    least = None
    for label, model, mode in PROVIDER_POLICIES:
        row = MODELS[model]
        cache = PromptCache(model, policy=row.cache if mode is None else row.caches[mode])
        rules = cache.prompt_tokens(system=LONG_RULES)
        slack = cache.policy.step_tokens - 1  # a hit counted in steps reads a little less
        for turn, request in enumerate(requests):
            try:
                read = cache.usage(request).cache_read_input_tokens
            except (TypeError, ValueError) as error:
                return _unsendable(turn, error)
            if turn and read < rules - slack:
                why = _why(cache.policy.automatic, cache.policy.hit_unit)
                missed.append(f"{label} read {read:,} of its {rules:,} on turn {turn} ({why})")
                break
            least = read if turn and (least is None or read < least) else least
        else:
            kept.append(label)
    if missed:
        also = f"; {', '.join(kept)} kept them" if kept else ""
        return Verdict(
            NEEDS_WORK, "the rules were not read from the cache: " + "; ".join(missed) + also
        )
    return Verdict(PASS, f"every provider read at least {least:,} tokens on turns 1-5")


def _why(automatic: str, hit_unit: str) -> str:
    """What a miss means on a provider of this kind."""
    if automatic == "never":
        return "its cache holds only what a marker ends"
    if hit_unit == "breakpoint":
        return "no breakpoint sits after the rules, or something before them changes"
    return "something before the rules changes"


def check_breakpoints(breakpoints: Callable[[int, int], Sequence[int]]) -> Verdict:
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
            outcome = attempt(breakpoints, previous, end)
            if outcome.error is not None:
                return Verdict(
                    NEEDS_WORK, f"breakpoints({previous}, {end}) raised {outcome.error_name}"
                )
            given = outcome.value
            if not _ints(given):
                return wrong_shape(
                    f"breakpoints({previous}, {end}) returned", given, "a list of positions (ints)"
                )
            marks = sorted(set(given))
            if not marks or len(marks) > 4 or marks[0] < 1 or marks[-1] > end:
                return Verdict(
                    NEEDS_WORK,
                    f"breakpoints({previous}, {end}) gave {marks}: "
                    f"give 1 to 4 positions in 1..{end}",
                )
            messages: list[Message] = [
                {"role": "user", "content": [{"type": "text", "text": f"m{i}"}]} for i in range(end)
            ]
            for position in marks:
                messages[position - 1]["content"][0]["cache_control"] = {"type": "ephemeral"}
            read = cache.usage(messages=messages).cache_read_input_tokens
            if previous and read < previous * 200:
                return Verdict(
                    NEEDS_WORK,
                    f"after {previous} blocks, the turn with {end} read {read:,} tokens, not the "
                    f"{previous * 200:,} written before: marks {marks} leave the last write more "
                    "than 20 blocks behind every breakpoint",
                )
            previous = end
    return Verdict(PASS, "every turn read the whole previous prompt")


def _ints(value: object) -> bool:
    """Whether `value` is a list, tuple or set of ints (bools aside)."""
    return isinstance(value, list | tuple | set | frozenset) and all(
        type(item) is int for item in value
    )


def check_minimums(answer: Collection[str]) -> Verdict:
    """Exercise 3: which of `MINIMUM_MODELS` cache a prompt of `MINIMUM_PROMPT` tokens.

    `answer` is the set of model ids you predict will write a cache entry.
    """
    right = {m for m in MINIMUM_MODELS if _minimum(m) <= MINIMUM_PROMPT}
    if isinstance(answer, str | bytes | Mapping) or not isinstance(answer, Collection):
        return wrong_shape("the answer is", answer, "a set of model ids")
    if not all(isinstance(model, str) for model in answer):
        return wrong_shape("the answer is", answer, "a set of model ids (strings)")
    given = set(answer)
    unknown = sorted(given - set(MINIMUM_MODELS))
    if unknown:
        return Verdict(NEEDS_WORK, f"not one of the exercise's models: {', '.join(unknown)}")
    wrong = [
        f"{m} does not cache it (minimum {_minimum(m):,} tokens)" for m in sorted(given - right)
    ]
    missed = [f"missed {m} (minimum {_minimum(m):,} tokens)" for m in sorted(right - given)]
    if wrong or missed:
        return Verdict(NEEDS_WORK, "; ".join([*wrong, *missed]))
    return Verdict(
        PASS, f"{len(right)} of {len(MINIMUM_MODELS)} models cache {MINIMUM_PROMPT:,} tokens"
    )
