"""The loop a reader can read: short named steps, one configuration, hooks without side effects.

`run_agent` is `AgentLoop(AgentConfig(...), task).run()`: these tests hold the
shape (no function of `harness.py` over about 40 lines, no private method of
`PrefixGuard` called from outside it), and that a request plan only shapes the
request it gets: the sub-agents strategy runs its sub-agents as a step of its
own and appends their tables to the lead's conversation.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from context_budget import experiment
from context_budget.fakes.emulated import EmulatedClient

SRC = Path(experiment.__file__).parent
#: The longest function body `harness.py` may hold, docstring and signature left out.
MOST_LINES = 40


def _functions(path: Path) -> list[tuple[str, int]]:
    """(name, body lines without the docstring) of every function in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            lines = (body[-1].end_lineno or 0) - body[0].lineno + 1 if body else 0
            found.append((node.name, lines))
    return found


def test_no_function_of_the_harness_is_over_forty_lines() -> None:
    long = [(name, lines) for name, lines in _functions(SRC / "harness.py") if lines > MOST_LINES]
    assert long == []


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    path = tmp_path / "long.py"
    path.write_text('def f():\n    """Doc."""\n' + "    x = 1\n" * 41, encoding="utf-8")
    assert _functions(path) == [("f", 41)]


def test_no_module_calls_a_private_method_of_the_prefix_guard() -> None:
    private = {
        node.name
        for node in ast.walk(ast.parse((SRC / "prefix_guard.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("_")
        and not node.name.startswith("__")
    }
    calls = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "prefix_guard.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # a module's own private method of the same name (a reader's `_tokens`) is its own
        own = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private - own:
                calls.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert calls == []


def test_run_agent_takes_the_task_and_then_exactly_the_configuration() -> None:
    import inspect

    from context_budget.harness import AgentConfig, run_agent

    shown = inspect.signature(run_agent).parameters
    assert list(shown) == ["user_input", *inspect.signature(AgentConfig).parameters]
    assert shown["user_input"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert {name for name, p in shown.items() if p.kind is p.KEYWORD_ONLY} == set(
        AgentConfig.__dataclass_fields__
    ) - {"tools", "tool_impls"}


def test_each_setting_of_the_loop_is_declared_once() -> None:
    """A field of `AgentConfig`, and nowhere else: no parameter, no `name=name` hand-over."""
    from context_budget.harness import AgentConfig

    settings = set(AgentConfig.__dataclass_fields__) - {"_"}
    tree = ast.parse((SRC / "harness.py").read_text(encoding="utf-8"))
    names: list[str] = []  # every declaration of a name, wherever it is
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "AgentConfig":
            fields = [item.target for item in node.body if isinstance(item, ast.AnnAssign)]
            names += [field.id for field in fields if isinstance(field, ast.Name)]
        elif isinstance(node, ast.FunctionDef) and node.name == "run_agent":
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            names += [argument.arg for argument in arguments]
        elif isinstance(node, ast.keyword) and isinstance(node.value, ast.Name):
            names += [node.arg] if node.arg == node.value.id else []
    assert {name: names.count(name) for name in settings} == dict.fromkeys(settings, 1)


# ---------------------------------------------------------------- the sub-agents strategy


class _Watching(EmulatedClient):
    """The default client, noting at each call whether a request was being built."""

    def __init__(self, plans: set[str], inside: list[bool], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plans, self.inside = plans, inside

    def _create(self, request: Any, *, beta: bool) -> dict[str, Any]:
        frame, names = sys._getframe(1), []
        while frame is not None:
            names.append(frame.f_code)
            frame = frame.f_back  # type: ignore[assignment]
        self.inside.append(any(code.co_name in self.plans for code in names))
        return super()._create(request, beta=beta)


def test_no_model_call_is_made_while_a_request_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    inside: list[bool] = []
    real = experiment._default_client

    def watching(model: str, clock: Any, simulated: Any) -> EmulatedClient:
        client = real(model, clock, simulated)
        # a request being built: the loop's step (`build` before it had a name) or a plan
        building = {"build_request", "build", "plan"}
        watched = _Watching(building, inside, model, client._responder, cache=client.cache)
        return watched

    monkeypatch.setattr(experiment, "_default_client", watching)
    result = experiment.run_strategy("subagents")
    assert result.correct and len(inside) == result.steps
    assert not any(inside)


def test_the_sub_agents_tables_are_appended_to_the_lead_s_conversation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[Any] = []

    class Keeping(experiment._Run):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(experiment, "_Run", Keeping)
    result = experiment.run_strategy("subagents")
    lead = made[0].runs["lead"]
    listing = lead.messages[2]["content"]
    assert listing[0]["type"] == "tool_result"
    assert listing[-1]["text"].startswith("Tables from the sub-agents.")
    assert all(note in listing[-1]["text"] for note in result.notes)


@pytest.mark.parametrize("strategy", [s for s in experiment.STRATEGIES if s != "compact"])
def test_summary_tool_choice_is_refused_where_no_summary_is_asked(strategy: str) -> None:
    with pytest.raises(ValueError, match="summary_tool_choice applies to 'compact' only"):
        experiment.run_strategy(strategy, summary_tool_choice=True)
