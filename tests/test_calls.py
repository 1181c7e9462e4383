"""One record for a model call: every class that carries one call's tokens is a `CallRecord`.

The test walks the whole package: a dataclass with a `Usage` field, or with a
field named for a kind of a call's tokens (a `Usage` field, `prompt_tokens`,
`cache_read`, `cache_write`, `cached`, `written`, ...), carries per-call usage.
`Usage` itself and the modelled loop of chapter 1 (`LoopStep`: sizes, not a
call's reported usage) aside, each must derive from `CallRecord` and hold its
tokens in one `usage` field.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import context_budget
from context_budget.calls import CallRecord, ModelCall
from context_budget.usage import Usage

#: Every class of the package that records one model call's usage.
CALL_RECORDS = {
    "context_budget.bills.Call",
    "context_budget.cache_report.RequestRow",
    "context_budget.calls.ModelCall",
    "context_budget.experiment.StepRecord",
    "context_budget.scenarios.cache_runs.Call",
}
#: The names a call's tokens have gone by: `Usage`'s own fields and the spellings beside them.
_TOKEN_NAMES = {
    *(field.name for field in dataclasses.fields(Usage)),
    "prompt_tokens",
    "cache_read",
    "cache_write",
    "cache_creation_5m",
    "cache_creation_1h",
    "cached",
    "written",
}
_NOT_CALLS = {"context_budget.usage.Usage", "context_budget.budget.LoopStep"}


def _classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(context_budget.__path__, "context_budget."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def _carries_usage(cls: type) -> bool:
    for field in dataclasses.fields(cls):
        if field.name in _TOKEN_NAMES or field.type in ("Usage", Usage):
            return True
    return False


def test_every_class_that_carries_one_calls_usage_is_a_call_record() -> None:
    classes = _classes()
    carrying = {name for name, cls in classes.items() if _carries_usage(cls)} - _NOT_CALLS
    records = {name for name, cls in classes.items() if issubclass(cls, CallRecord)}
    public = {name.replace("sessions.session.Call", "bills.Call") for name in carrying | records}
    assert public == CALL_RECORDS
    for name in carrying:
        fields = {field.name: field.type for field in dataclasses.fields(classes[name])}
        assert fields.get("usage") in ("Usage", Usage), name
        assert not set(fields) & _TOKEN_NAMES, name


def test_the_loops_call_record_reads_its_tokens_from_its_usage() -> None:
    usage = Usage(input_tokens=10, output_tokens=5, cache_read_input_tokens=90)
    call = ModelCall(1, "turn", "end_turn", usage, 105)
    assert (call.prompt_tokens, call.cache_read, call.cache_write) == (100, 90, 0)
    assert call.hit_share == 0.9
    assert ModelCall(2, "turn", None, Usage(), 0).hit_share == 0.0
