"""Layers and the budget report: every token charged to one layer."""

from __future__ import annotations

import json
import re

import pytest
from conversations import LONG, PINNED, SMALL

from context_budget import BudgetReport, Layers, budget_report, message_tokens


def test_report_charges_every_token_to_one_layer() -> None:
    report = budget_report(Layers("You help Lucy.", PINNED, LONG))
    assert report["system"] == 4 + 5  # 14 characters, one framed message
    assert report["pinned"] == 9 + 5  # one record, one framed message
    assert report["conversation"] == sum(message_tokens(m) for m in LONG)
    assert report["total"] == report["system"] + report["pinned"] + report["conversation"]


def test_each_pinned_record_is_one_message() -> None:
    one = budget_report(Layers("", ["ab cd"], []))["pinned"]
    two = budget_report(Layers("", ["ab", "cd"], []))["pinned"]
    assert (one, two) == (2 + 5, 2 * (1 + 5))


def test_an_empty_system_prompt_costs_nothing() -> None:
    assert budget_report(Layers("", [], SMALL))["system"] == 0


def test_report_is_a_dict_that_serializes_as_json() -> None:
    report = budget_report(Layers("s", [], SMALL))
    assert isinstance(report, BudgetReport)
    assert json.loads(json.dumps(report)) == {
        "system": 6,
        "pinned": 0,
        "conversation": 6 + 7,  # "hi" and "hello"
        "total": 19,
    }


def test_report_renders_an_aligned_table_with_shares() -> None:
    table = str(budget_report(Layers("s" * 12, ["p" * 20], [{"role": "user", "content": "x"}])))
    assert table.splitlines() == [
        "layer          tokens   share",
        "system              8   33.3%",
        "pinned             10   41.7%",
        "conversation        6   25.0%",
        "total              24  100.0%",
    ]


def test_an_empty_context_reports_zero_shares() -> None:
    assert str(budget_report(Layers("", [], []))).splitlines()[-1] == (
        "total               0    0.0%"
    )


def test_report_uses_the_counter_it_is_given() -> None:
    report = budget_report(Layers("s", ["p"], SMALL), counter=lambda text: 100)
    assert report["total"] == 4 * (100 + 5)


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ((None, [], []), "system must be a str, got NoneType"),
        (("s", "rule", []), "pinned must be a list of str, got str"),
        (("s", ["ok", 3], []), "pinned record 1 has type int, not str"),
        (("s", [], ({"role": "user", "content": "hi"},)), "conversation must be a list"),
    ],
)
def test_layers_reject_the_wrong_types(arguments: tuple[object, ...], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        Layers(*arguments)  # type: ignore[arg-type]


def test_layers_are_frozen() -> None:
    layers = Layers("s", [], [])
    with pytest.raises(AttributeError):
        layers.system = "t"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("system", "pinned", "words"),
    [
        (
            "You help\ud800 Lucy.",
            [],
            "system: a string holds a lone surrogate (U+D800) at character 8",
        ),
        ("s", ["ok", "\udcffrule"], "pinned record 1: a string holds a lone surrogate (U+DCFF)"),
    ],
    ids=["system", "pinned"],
)
def test_a_layer_no_request_could_carry_is_named(
    system: str, pinned: list[str], words: str
) -> None:
    """A lone surrogate cannot be encoded as UTF-8, so no request can carry the layer; a
    message holding one is refused, and a system prompt or pinned record is refused too
    (it was counted, then failed wherever the layers were sent)."""
    with pytest.raises(ValueError, match=re.escape(words)):
        Layers(system, pinned, [])
