"""The package's exceptions: one tree, one rule.

Every exception class the package defines is in this tree, under
`ContextBudgetError`. A class that stands for a bad value is also the
built-in exception a caller would catch it as, so `except ValueError` keeps
working where it did (shown in brackets):

    ContextBudgetError                     every error the package raises on purpose
    ├── ContextOverflowError               a context cannot be made to fit its budget
    ├── InvalidRequestError                a request the Messages API would refuse (HTTP 400)
    │   ├── TooManyBreakpointsError        more than 4 cache_control breakpoints
    │   ├── CacheTTLOrderError             a 1-hour breakpoint after a 5-minute one
    │   ├── AutomaticCacheConflictError    the top-level cache_control clashes
    │   └── ContextManagementError         a context_management edit the API refuses
    ├── MiddleEditError                    a strict PrefixGuard saw the history edited in the middle
    ├── ScriptExhaustedError [IndexError]  a scripted model asked for one response too many
    ├── CompactionStormError               compaction after compaction failed to make room
    ├── MalformedResponseError             a model response a harness cannot answer or send back
    ├── Unpriced [ValueError]              a call the price table has no rate for (pricing)
    ├── FormatError [ValueError]           a file in no format the readers know (sessions)
    ├── SourceError [ValueError]           a session file missing, unreadable, not UTF-8 (sessions)
    └── InputError                         bad input a command reports in one line, exit status 2
        ├── BillError                      ... to `context-budget bill` (cli._bill)
        └── DemoError                      ... to `context-budget demo` (cli._demo)

The rule for everything else: a bad argument raises the built-in
`TypeError` when its type is wrong and `ValueError` when its value is out of
range, the message naming the value and the limit. A bool is never a number:
a token count of `True` is a `TypeError`, as a float or a string is, and a
count below its least is a `ValueError` (`context_budget._values.as_count`
draws that line for every count). Data read from a file or a response is
not an argument: a bad field in it is a `ValueError` whatever its type (a
usage's `"input_tokens": true`). Python's own protocols keep their built-in
errors: `AttributeError` on a frozen record, `ImportError` for an optional
extra that is not installed, `NotImplementedError` for a method a subclass
must write.
"""

from __future__ import annotations

__all__ = [
    "AutomaticCacheConflictError",
    "CacheTTLOrderError",
    "CompactionStormError",
    "ContextBudgetError",
    "ContextManagementError",
    "ContextOverflowError",
    "InputError",
    "InvalidRequestError",
    "MalformedResponseError",
    "MiddleEditError",
    "ScriptExhaustedError",
    "TooManyBreakpointsError",
]


class ContextBudgetError(Exception):
    """Base class of the errors this package raises on purpose."""


class ContextOverflowError(ContextBudgetError):
    """A context does not fit its token budget and cannot be made to fit.

    Attributes:
        budget: the budget, in tokens.
        size: the size that did not fit, in tokens.
    """

    def __init__(self, message: str, *, budget: int, size: int) -> None:
        super().__init__(message)
        self.budget = budget
        self.size = size


# --- errors of the cache model, the editing emulator and the prefix guard ---


class InvalidRequestError(ContextBudgetError):
    """A request the Messages API would refuse with HTTP 400 (`invalid_request_error`).

    The message is the API's own wording where it is known, and otherwise the
    documented rule in the API's terms.

    Attributes:
        status_code: the HTTP status the API would answer with (400).
    """

    status_code = 400


class TooManyBreakpointsError(InvalidRequestError):
    """More than 4 `cache_control` breakpoints, the automatic one included.

    Attributes:
        found: the breakpoints the request asked for.
    """

    def __init__(self, found: int) -> None:
        super().__init__(
            f"A maximum of 4 blocks with cache_control may be provided. Found {found}."
        )
        self.found = found


class CacheTTLOrderError(InvalidRequestError):
    """A `ttl: "1h"` breakpoint after a `ttl: "5m"` one, in tools -> system -> messages order.

    Attributes:
        block: the position (0-based, over the whole prefix) of the offending 1-hour block.
    """

    def __init__(self, block: int) -> None:
        super().__init__(
            "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control "
            "block. Note that blocks are processed in the following order: `tools`, "
            f"`system`, `messages`. (prefix block {block})"
        )
        self.block = block


class AutomaticCacheConflictError(InvalidRequestError):
    """The top-level `cache_control` conflicts with an explicit one on the last block.

    Raised when the last cacheable block already carries a `cache_control`
    with a different TTL (the documented rule; the API's exact words are not
    published, so the message states the rule).
    """


class ContextManagementError(InvalidRequestError):
    """A `context_management` value the API refuses (a compaction trigger below
    50,000 tokens, `clear_thinking_20251015` not listed first, an unknown edit)."""


class MiddleEditError(ContextBudgetError):
    """A strict `PrefixGuard` saw a history edited somewhere other than its end.

    Attributes:
        report: the guard's `PrefixReport` for the refused request.
    """

    def __init__(self, message: str, *, report: object) -> None:
        super().__init__(message)
        self.report = report


class ScriptExhaustedError(ContextBudgetError, IndexError):
    """A scripted client ran out of responses (an `IndexError` too: one past the script's end).

    Attributes:
        scripted: how many responses the script held.
        call: the number of the call that asked for one more, counting from 1.
    """

    def __init__(self, *, scripted: int, call: int) -> None:
        super().__init__(
            f"the script holds {scripted} response{'' if scripted == 1 else 's'} "
            f"and call {call} asked for one more"
        )
        self.scripted = scripted
        self.call = call


class CompactionStormError(ContextBudgetError):
    """Compaction kept failing: the request after each one was still over the threshold.

    Attributes:
        threshold: the counter value that triggers compaction, in tokens.
        sizes: the counter after the first call following each failed
            compaction, in tokens, oldest first.
    """

    def __init__(self, *, threshold: float, sizes: list[int]) -> None:
        shown = ", ".join(f"{size:,}" for size in sizes)
        super().__init__(
            f"{len(sizes)} compactions in a row left the next request at or above the "
            f"threshold of {threshold:,g} tokens (sizes after each: {shown} tokens); "
            "the part that survives compaction (system prompt, tools, notes, the new "
            "turn) is too big for this window"
        )
        self.threshold = threshold
        self.sizes = list(sizes)


class InputError(ContextBudgetError):
    """Bad input to a command: the one line it prints after `context-budget: error:`.

    The command then exits with status 2. `context-budget bill` and
    `context-budget demo` raise their own kinds of it, `BillError` and
    `DemoError`.
    """


class MalformedResponseError(ContextBudgetError):
    """A model response that breaks the Messages API's shape in a way a loop cannot answer.

    Sending it back would make a request the API refuses (an empty turn, a
    tool_use without an id, a repeated tool id), so the loop stops instead.

    Attributes:
        field: where the problem is, as a path into the response, such as
            `"content[1].id"`, `"content"` or `"usage"`.
        call: the number of the call whose response it is, counting from 1
            (as `ModelCall.number` counts); None when not known.
    """

    def __init__(self, field: str, problem: str, *, call: int | None = None) -> None:
        where = "response" if call is None else f"response of call {call}"
        super().__init__(f"{where}: {field} {problem}")
        self.field = field
        self.call = call
