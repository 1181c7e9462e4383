"""One tree, one rule: every exception class of the package, and what a bad count raises.

`context_budget.errors` draws the tree in its docstring. These tests hold it to
the package: every exception class defined anywhere in it sits under
`ContextBudgetError`, is drawn in the tree, and is still the built-in type a
caller caught it as; and a token count of the wrong type (a bool, a float, a
string) is a `TypeError` in every function that takes one, a count below its
least a `ValueError`.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import context_budget
from context_budget import errors

SRC = Path(context_budget.__file__).parent


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class a module of the package defines: qualified name -> class."""
    found: dict[str, type[BaseException]] = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        defined = {
            node.name
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef)
        }
        module = importlib.import_module(name)
        for class_name in sorted(defined):
            value = getattr(module, class_name, None)
            if isinstance(value, type) and issubclass(value, BaseException):
                found[f"{name}.{class_name}"] = value
    return found


def test_every_exception_class_of_the_package_is_in_the_tree() -> None:
    classes = _exception_classes()
    assert len(classes) >= 15  # the walk sees them (the errors module's own and the others)
    outside = sorted(
        name for name, kind in classes.items() if not issubclass(kind, errors.ContextBudgetError)
    )
    assert outside == []


def test_the_docstring_draws_every_class_of_the_tree() -> None:
    drawn = errors.__doc__ or ""
    missing = sorted(
        name for name, kind in _exception_classes().items() if f" {kind.__name__}" not in drawn
    )
    assert missing == []


@pytest.mark.parametrize(
    ("where", "builtin"),
    [
        ("context_budget.pricing.Unpriced", ValueError),
        ("context_budget.sessions.detect.FormatError", ValueError),
        ("context_budget.errors.ScriptExhaustedError", IndexError),
    ],
)
def test_each_error_is_still_the_builtin_it_was(where: str, builtin: type[Exception]) -> None:
    module, _, name = where.rpartition(".")
    kind = getattr(importlib.import_module(module), name)
    assert issubclass(kind, builtin) and issubclass(kind, errors.ContextBudgetError)


def test_the_command_s_errors_are_one_kind_of_input_error() -> None:
    from context_budget.cli._bill import BillError
    from context_budget.cli._demo import DemoError
    from context_budget.cli._input import InputError

    assert InputError is errors.InputError
    assert issubclass(BillError, InputError) and issubclass(DemoError, InputError)


def test_an_emulated_client_out_of_replies_says_so_as_a_scripted_one_does() -> None:
    from context_budget.fakes.emulated import EmulatedClient

    client = EmulatedClient("claude-sonnet-4-6", [{"content": "one"}])
    request = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "a"}],
    }
    client.messages.create(**request)
    with pytest.raises(errors.ScriptExhaustedError, match="holds 1 response and call 2"):
        client.messages.create(**request)


# ---------------------------------------------------------------- a token count of the wrong type


def _counts() -> dict[str, Callable[[Any], object]]:
    """Each function that takes a token count: name -> a call with the count given."""
    from context_budget import (
        Layers,
        PromptCache,
        clear_tool_uses_20250919,
        compact,
        should_compact,
        track_usage,
    )
    from context_budget.experiment import cost_floor

    layers = Layers("system", [], [{"role": "user", "content": "hi"}])
    usage = {"input_tokens": 1, "output_tokens": 1}
    return {
        "track_usage(tokens_used)": lambda n: track_usage(n, usage),
        "should_compact(tokens_used)": lambda n: should_compact(n, 2_000, 0.7),
        "should_compact(context_window)": lambda n: should_compact(0, n, 0.7),
        "compact(budget)": lambda n: compact(layers, n, lambda text: "summary"),
        "PromptCache(min_tokens)": lambda n: PromptCache("any", min_tokens=n),
        "clear_tool_uses_20250919(prompt_tokens)": lambda n: clear_tool_uses_20250919(
            [], {}, prompt_tokens=n
        ),
        "cost_floor(output_tokens)": lambda n: cost_floor(output_tokens=n),
    }


@pytest.mark.parametrize("function", sorted(_counts()))
@pytest.mark.parametrize("count", [True, False, "12", [3]], ids=repr)
def test_a_token_count_of_the_wrong_type_is_a_type_error(function: str, count: object) -> None:
    with pytest.raises(TypeError, match=re.escape(repr(count))):
        _counts()[function](count)


@pytest.mark.parametrize("function", sorted(_counts()))
def test_a_token_count_below_its_least_is_a_value_error(function: str) -> None:
    with pytest.raises(ValueError, match="-1"):
        _counts()[function](-1)


class _NoRepr:
    """A value whose repr fails, as a half-built object's may."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


_HUGE = "x" * 100_000


def _bad_value_calls() -> list[tuple[str, Callable[[Any], object]]]:
    from context_budget import (
        Layers,
        NotesFile,
        PrefixGuard,
        PromptCache,
        cache_report,
        clear_old_tool_results,
        compact,
        content_blocks,
        forget_everything,
        message_tokens,
        run_agent,
        tool_message,
    )
    from context_budget.fakes import ScriptedClient, SimulatedModel

    hi = {"role": "user", "content": "hi"}
    long = [
        {"role": "user", "content": "a" * 400},
        {"role": "assistant", "content": "b" * 400},
        hi,
    ]
    loop = {
        "tools": [],
        "tool_impls": {},
        "client": ScriptedClient([]),
        "model": "m",
        "context_window": 1_000,
        "compact_ratio": None,
    }
    return [
        ("run_agent tools", lambda bad: run_agent("go", **{**loop, "tools": bad})),
        ("run_agent model", lambda bad: run_agent("go", **{**loop, "model": [bad]})),
        ("run_agent client", lambda bad: run_agent("go", **{**loop, "client": bad})),
        ("run_agent tool_impls", lambda bad: run_agent("go", **{**loop, "tool_impls": bad})),
        ("run_agent guard", lambda bad: run_agent("go", **{**loop, "guard": bad})),
        ("run_agent plan", lambda bad: run_agent("go", **{**loop, "plan": [bad]})),
        ("notes path", lambda bad: NotesFile([bad])),  # type: ignore[arg-type]
        ("guard system", lambda bad: PrefixGuard().check([hi], system={"k": bad})),
        ("compact summary", lambda bad: compact(Layers("s", [], long), 40, lambda _: [bad])),
        ("message role", lambda bad: message_tokens({"role": [bad], "content": "x"})),
        (
            "result block type",
            lambda bad: message_tokens(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "a", "content": [{"type": _HUGE}]}
                    ],
                }
            ),
        ),
        (
            "is_error",
            lambda bad: message_tokens({"role": "tool", "content": "x", "is_error": [bad]}),
        ),
        ("counter's count", lambda bad: message_tokens(hi, counter=lambda _: [bad])),
        ("tool name", lambda bad: tool_message([bad], {})),  # type: ignore[arg-type]
        ("cache model", lambda _: PromptCache(_HUGE)),
        ("cache_report model", lambda _: cache_report([{"messages": [hi]}], _HUGE)),
        ("content_blocks", lambda bad: content_blocks({"content": {"k": bad}})),
        ("compact budget", lambda bad: compact(Layers("s", [], []), bad, forget_everything)),
        ("compact summarize", lambda bad: compact(Layers("s", [], []), 5, bad)),
        ("clear keep_last", lambda bad: clear_old_tool_results([], bad)),
        ("counter", lambda bad: message_tokens(hi, counter=bad)),
        ("simulated request", lambda bad: SimulatedModel().respond([bad])),
        (
            "simulated block",
            lambda bad: SimulatedModel().respond(
                {"messages": [{"role": "user", "content": [bad]}]}
            ),
        ),
        (
            "simulated result",
            lambda bad: SimulatedModel().respond(
                {
                    "messages": [
                        {
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": "a", "content": {1: bad}}
                            ],
                        }
                    ]
                }
            ),
        ),
        ("simulated reads", lambda bad: SimulatedModel(reads_per_step=[bad])),
    ]


@pytest.mark.parametrize(
    "bad", [_HUGE, _NoRepr(), -(10**5000)], ids=["huge", "no-repr", "int-too-long-to-print"]
)
@pytest.mark.parametrize(
    ("where", "call"), _bad_value_calls(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_bad_value_is_named_briefly_whatever_its_size_or_repr(
    where: str, call: Callable[[Any], object], bad: object
) -> None:
    """Each of these printed the whole value (100,000 characters), or failed with the
    value's own repr error (an int of 5,000 digits cannot be printed) in place of the
    error that names it."""
    with pytest.raises((TypeError, ValueError)) as raised:
        call(bad)
    assert len(str(raised.value)) < 2_000, where  # a list of known models is fine; 100,000 x is not
    shown = str(raised.value)
    assert "no repr" not in shown and "Exceeds the limit" not in shown, where
