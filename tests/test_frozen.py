"""`quick_init`: a frozen dataclass built in one step behaves as the dataclass built it."""

from __future__ import annotations

import inspect
from dataclasses import FrozenInstanceError, InitVar, dataclass, field, replace

import pytest

from context_budget._frozen import quick_init
from context_budget.pricing import Cost
from context_budget.sessions.session import Call, Place
from context_budget.usage import Usage


@dataclass(frozen=True)
class _Plain:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"count must be >= 0, got {self.count}")


@quick_init
@dataclass(frozen=True)
class _Quick:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"count must be >= 0, got {self.count}")


def _shown(value: object) -> str:
    return repr(value).replace("_Quick", "_Plain")


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(("a",), {}), (("a", 2), {}), (("a",), {"tags": ("x",)}), ((), {"name": "b", "count": 3})],
)
def test_a_quick_init_builds_what_the_dataclass_builds(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    quick, plain = _Quick(*args, **kwargs), _Plain(*args, **kwargs)  # type: ignore[arg-type]
    assert _shown(quick) == repr(plain)
    assert quick == _Quick(*args, **kwargs) and hash(quick) == hash(_Quick(*args, **kwargs))  # type: ignore[arg-type]
    assert vars(quick) == vars(plain)
    assert _shown(replace(quick, count=7)) == repr(replace(plain, count=7))


def test_a_quick_init_keeps_the_signature_the_checks_and_the_freezing() -> None:
    assert inspect.signature(_Quick) == inspect.signature(_Plain)
    with pytest.raises(ValueError, match="count must be >= 0, got -1"):
        _Quick("a", -1)
    with pytest.raises(TypeError):
        _Quick()  # type: ignore[call-arg]
    with pytest.raises(FrozenInstanceError):
        _Quick("a").count = 2  # type: ignore[misc]


def test_the_records_a_bill_builds_by_the_hundred_thousand_are_built_in_one_step() -> None:
    for built in (Usage, Cost, Call, Place):
        assert built.__init__.__code__.co_filename == "<string>", built
    with pytest.raises(ValueError, match=r"Usage\.output_tokens must be a non-negative int"):
        Usage(1, -1)


def test_quick_init_refuses_a_class_it_would_build_wrongly() -> None:
    @dataclass
    class Mutable:
        x: int

    @dataclass(frozen=True, slots=True)
    class Slotted:
        x: int

    @dataclass(frozen=True)
    class Factory:
        x: list[int] = field(default_factory=list)

    @dataclass(frozen=True)
    class Late:
        x: int
        y: InitVar[int] = 0

    for refused in (Mutable, Slotted, Factory, Late):
        with pytest.raises(TypeError):
            quick_init(refused)
