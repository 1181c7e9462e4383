"""The one table of models: every per-model fact the package knows, dated and sourced.

`MODELS` maps a model id to its `Model`: its provider, its prices (a rate
that changed keeps every value, each from its date), its cache policy
(`cache_policy.CachePolicy`), its price rules (fast mode, a long-context
band, the US-only multiple, peak hours) and which earlier thinking its
prompts keep. `model_for` finds the row of any id a request or a saved
session names: dated (`claude-sonnet-4-5-20250929`, `gpt-5.1-2025-11-13`,
`claude-sonnet-4-5@20250929`), behind a provider prefix (`anthropic/`,
`openai/`, LiteLLM's `deepseek/deepseek-chat`, Gemini's `models/`) or an
alias (`gpt-5.6` is Sol, `deepseek-flash` the V4 Flash line). Pricing
(`pricing.price_for`, `pricing.cost`), the prompt cache (`cache.PromptCache`),
the cache report, server-side editing and the bill all ask it, so a model is
known everywhere alike or unknown everywhere alike.

Each `Price` names the page it was read from and the date; a row read from a
secondary source (a third-party price table or announcement) says so in its
source, and a fact no page states is an assumption that says so too.

Example:
    >>> model = model_for("anthropic/claude-sonnet-4-5-20250929")
    >>> model.id, model.provider, model.thinking, model.cache.minimum.tokens
    ('claude-sonnet-4-5', 'anthropic', 'last-turn', 1024)
    >>> model_for("gpt-5.6-terra").price_at("2026-07-15").input
    2.5
    >>> model_for("gpt-5.6-terra").price_at("2026-08-01").input
    2.0
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

from context_budget._values import as_rate, short_repr
from context_budget.cache_policy import CachePolicy, MinimumLength

__all__ = [
    "MODELS",
    "PROVIDERS",
    "LongContext",
    "Model",
    "Peak",
    "Price",
    "as_moment",
    "check_time",
    "model_family",
    "model_for",
]

#: The providers the table knows.
PROVIDERS = ("anthropic", "openai", "google", "deepseek")
Provider = Literal["anthropic", "openai", "google", "deepseek"]
#: How much earlier thinking a prompt keeps: only the current turn's, or all of it.
Thinking = Literal["last-turn", "all"]


@dataclass(frozen=True)
class LongContext:
    """The rates of a request whose prompt passes `above` tokens (USD per million tokens).

    The band applies to the whole request, not to the tokens past `above`,
    as every provider that has one documents: Anthropic (Sonnet 4 and 4.5),
    OpenAI (GPT-5.5 and later), Google (Gemini Pro).

    Attributes:
        above: prompt tokens (uncached + cache writes + cache reads) past
            which the whole request is charged at these rates.
        input: the uncached input rate; cache writes and reads keep their
            multiples of it.
        output: the output rate.
    """

    above: int
    input: float
    output: float

    def __post_init__(self) -> None:
        if type(self.above) is not int or self.above < 0:
            raise ValueError(f"LongContext.above must be an int >= 0, got {short_repr(self.above)}")
        as_rate(self.input, "LongContext.input", "USD/Mtok")
        as_rate(self.output, "LongContext.output", "USD/Mtok")


@dataclass(frozen=True)
class Peak:
    """Hours at which every rate is multiplied (DeepSeek's peak hours).

    Attributes:
        hours: `(start, end)` pairs of UTC hours, each `start <= hour < end`.
        multiple: the multiple of every rate in those hours.
        weekdays_only: whether Saturdays and Sundays are off-peak all day.
    """

    hours: tuple[tuple[int, int], ...]
    multiple: float
    weekdays_only: bool = True

    def __post_init__(self) -> None:
        sound = isinstance(self.hours, tuple) and all(
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(type(hour) is int for hour in pair)
            and 0 <= pair[0] < pair[1] <= 24
            for pair in self.hours
        )
        if not sound:
            raise ValueError(
                "Peak.hours must be (start, end) UTC hours, 0 <= start < end <= 24, "
                f"got {short_repr(self.hours)}"
            )
        as_rate(self.multiple, "Peak.multiple", "a multiple of every rate")

    def applies(self, when: datetime) -> bool:
        """Whether `when` (a time with a zone) falls in the peak hours."""
        moment = when.astimezone(UTC)
        if self.weekdays_only and moment.weekday() >= 5:
            return False
        return any(start <= moment.hour < end for start, end in self.hours)


@dataclass(frozen=True)
class Price:
    """One model's rates from a date on, in US dollars per million tokens.

    Attributes:
        input: uncached input tokens.
        write_5m: tokens written to the cache for 5 minutes.
        write_1h: tokens written to the cache for 1 hour.
        read: tokens read from the cache.
        output: generated tokens (thinking included).
        as_of: the date the rates were read, `YYYY-MM-DD`.
        source: where they were read (a secondary source says so).
        fast: the multiple of every token rate in fast mode; None where the
            model has no fast-mode rate.
        us_only: the multiple of every token rate for US-only inference
            (`inference_geo: "us"`); 1.0 where it costs nothing more.
        long_context: the long-context band, or None where there is none.
        web_search: USD per 1,000 web-search requests.
        write_30m: tokens written for 30 minutes (OpenAI from GPT-5.6); None
            where the model offers no such write.
        since: when these rates took effect, an ISO date or UTC date and
            time (`"2026-08-16T16:00"`); `""` for a model's first rates.
        peak: hours at which every rate is multiplied, or None.
    """

    input: float
    write_5m: float
    write_1h: float
    read: float
    output: float
    as_of: str
    source: str
    fast: float | None = None
    us_only: float = 1.0
    long_context: LongContext | None = None
    web_search: float = 10.0
    write_30m: float | None = None
    since: str = ""
    peak: Peak | None = None

    def __post_init__(self) -> None:
        for name in ("input", "write_5m", "write_1h", "read", "output", "us_only", "web_search"):
            as_rate(getattr(self, name), f"Price.{name}", "USD/Mtok")
        if self.write_30m is not None:
            as_rate(self.write_30m, "Price.write_30m", "USD/Mtok")
        if self.fast is not None:
            as_rate(self.fast, "Price.fast", "a multiple of the standard rates")
        for name in ("as_of", "source", "since"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(
                    f"Price.{name} must be a str, got {short_repr(getattr(self, name))}"
                )
        if self.since:
            _moment(self.since, "Price.since")
        for name, kind in (("long_context", LongContext), ("peak", Peak)):
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise TypeError(
                    f"Price.{name} must be a {kind.__name__} or None, got {short_repr(value)}"
                )

    def under(self, policy: CachePolicy) -> Price:
        """These rates with the cache rates `policy` sets: its multiples of the input rate.

        For pricing one model's tokens under another provider's caching (a
        what-if); the writes of a lifetime the policy does not offer keep
        their own rates.

        Example:
            >>> sonnet = model_for("claude-sonnet-4-6").price
            >>> sonnet.under(CachePolicy.vllm()).read
            0.0
        """
        multiples = dict(policy.write_multiples)

        def write(lifetime: str, own: float | None) -> float | None:
            return self.input * multiples[lifetime] if lifetime in multiples else own

        return replace(
            self,
            read=self.input * policy.read_multiple,
            write_5m=write("5m", self.write_5m) or 0.0,
            write_1h=write("1h", self.write_1h) or 0.0,
            write_30m=write("30m", self.write_30m),
        )


def _moment(value: str, name: str) -> datetime:
    """An ISO date or date and time as a UTC `datetime` (a naive one is UTC)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{name} must be an ISO date or time, got {short_repr(value)}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


#: A day inside each end of the years `as_moment` reads (1 to 9999), in seconds since the
#: epoch: a number between them is a time, whatever the row.
_FIRST_SECOND = datetime(1, 1, 2, tzinfo=UTC).timestamp()
_LAST_SECOND = datetime(9999, 12, 30, tzinfo=UTC).timestamp()


def as_moment(when: float | str | datetime, name: str = "at") -> datetime:
    """A call's time (seconds since the epoch, an ISO string or a `datetime`) as UTC.

    Raises:
        TypeError: `when` is none of those.
        ValueError: it is not a time.
    """
    if isinstance(when, datetime):
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    if isinstance(when, str):
        return _moment(when, name)
    if isinstance(when, int | float) and not isinstance(when, bool):
        try:
            return datetime.fromtimestamp(when, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ValueError(_no_seconds(when, name)) from None
    raise TypeError(
        f"{name} must be seconds since the epoch, an ISO time or a datetime, got {short_repr(when)}"
    )


def _no_seconds(when: float, name: str) -> str:
    """Why a number is no time: the range of seconds `as_moment` reads, and, for a number
    a thousand times too large, that it looks like milliseconds."""
    said = (
        f"{name} is not a time: {short_repr(when)}: seconds since the epoch from "
        f"{_FIRST_SECOND:,.0f} to {_LAST_SECOND:,.0f} (years 1 to 9999)"
    )
    if _FIRST_SECOND <= when / 1000 < _LAST_SECOND:
        said += "; it reads as a time in milliseconds: divide it by 1,000"
    return said


def check_time(when: object, name: str = "at") -> None:
    """Refuse `when` unless it is a time `as_moment` reads, without making its `datetime`.

    A bill asks this of every call, with seconds read from its file, in range:
    those are checked by a comparison, anything else by `as_moment`.

    Raises:
        TypeError, ValueError: as `as_moment`.
    """
    if not (type(when) is float and _FIRST_SECOND <= when < _LAST_SECOND):
        as_moment(when, name)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Model:
    """Everything the package knows about one model, each fact with its source.

    Attributes:
        id: the model's id, undated (`claude-sonnet-4-5`, `gpt-5.5`).
        provider: one of `PROVIDERS`.
        prices: its rates, oldest first; each from its `Price.since`.
        cache: its provider's caching rules for it (the default mode).
        caches: every caching mode the provider documents for it, by name
            (`"explicit"`, `"implicit"`, ...), the default among them.
        thinking: which earlier thinking blocks its prompts keep:
            `"last-turn"` (a user message that is not only tool results drops
            the thinking of every earlier assistant turn) or `"all"`.
        aliases: other ids that name it.
        source: the model's own page.
        as_of: the date that page was read, `YYYY-MM-DD`.
    """

    id: str
    provider: Provider
    prices: tuple[Price, ...]
    cache: CachePolicy
    caches: Mapping[str, CachePolicy] = field(default_factory=dict)
    thinking: Thinking = "all"
    aliases: tuple[str, ...] = ()
    source: str = ""
    as_of: str = ""
    _since: tuple[datetime, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(
                f"provider must be one of {', '.join(PROVIDERS)}, got {short_repr(self.provider)}"
            )
        if not self.prices:
            raise ValueError(f"model {self.id!r} has no prices")
        if not isinstance(self.aliases, tuple) or not all(
            isinstance(alias, str) for alias in self.aliases
        ):
            raise TypeError(
                f"Model.aliases must be a tuple of ids, such as ('gpt-5.6',), "
                f"got {short_repr(self.aliases)}"
            )
        since = tuple(
            _moment(price.since, "Price.since") if price.since else datetime.min.replace(tzinfo=UTC)
            for price in self.prices
        )
        if list(since) != sorted(since) or len(set(since)) != len(since):
            raise ValueError(f"model {self.id!r}: prices must be in order of their dates")
        object.__setattr__(self, "_since", since)

    @property
    def price(self) -> Price:
        """The latest rates in the table."""
        return self.prices[-1]

    def price_at(self, when: float | str | datetime | None = None) -> Price:
        """The rates in effect at `when` (seconds since the epoch, an ISO time or a
        `datetime`); the latest rates when None.

        A call before the first dated rate takes the first one.

        Raises:
            TypeError, ValueError: `when` is not a time (`as_moment`), whether
                the row has one rate or several.
        """
        if when is None:
            return self.prices[-1]
        if len(self.prices) == 1:
            check_time(when)
            return self.prices[0]
        moment = as_moment(when)
        found = self.prices[0]
        for start, price in zip(self._since, self.prices, strict=True):
            if start <= moment:
                found = price
        return found


# ---------------------------------------------------------------- ids

_DATED = re.compile(r"(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@\d{8})$")
#: Amazon Bedrock's form of a Claude id: a region (`us.`, `eu.`, `global.`, ...) and
#: `anthropic.` before it, a version (`-v1:0`) after it.
_BEDROCK = re.compile(r"^(?:[a-z]{2,6}\.)?anthropic\.(claude-.+?)(?:-v\d+(?::\d+)?)?$")
#: A Claude version written with a dot, as OpenRouter writes it (`claude-sonnet-4.5`).
_DOTTED = re.compile(r"(?<=\d)\.(?=\d)")


def model_family(model_id: str) -> str:
    """An id without its provider prefix and its date: how `model_for` reads any id.

    The part after the last `/` (`anthropic/`, `openai/`, LiteLLM's
    `provider/model`, OpenRouter's `vendor/model`, Gemini's `models/`), in
    lower case, without a trailing date (`-20250929`, `-2025-11-13`, Vertex's
    `@20250929`) or `-latest`; a Claude id also without Bedrock's region,
    `anthropic.` and version (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`),
    and with a version written with a dot written with a dash, as Anthropic
    writes it (OpenRouter's `claude-sonnet-4.5`). Other providers' dots stay
    (`gpt-5.5`, `gemini-3.1-pro-preview`).

    Examples:
        >>> model_family("claude-sonnet-4-20250514")
        'claude-sonnet-4'
        >>> model_family("anthropic/claude-3-5-haiku-latest")
        'claude-3-5-haiku'
        >>> model_family("openrouter/anthropic/claude-sonnet-4.5")
        'claude-sonnet-4-5'
        >>> model_family("bedrock/us.anthropic.claude-opus-4-6-v1:0")
        'claude-opus-4-6'
    """
    if not isinstance(model_id, str):
        raise TypeError(f"model must be a str, got {short_repr(model_id)}")
    name = model_id.rsplit("/", 1)[-1].lower()
    bedrock = _BEDROCK.match(name)
    if bedrock is not None:
        name = bedrock.group(1)
    if name.startswith("claude-"):
        name = _DOTTED.sub("-", name)
    return _DATED.sub("", name)


def model_for(model_id: str, models: Mapping[str, Model] | None = None) -> Model | None:
    """The row of any id a request or a session names, or None for a model the table lacks.

    The id is looked up as it is, then without its provider prefix, then as
    `model_family` gives it; each may be a model's own id or one of its aliases.

    Args:
        model_id: the id, dated or not, with or without a provider prefix.
        models: id -> `Model` to look in; `MODELS` when None.

    Examples:
        >>> model_for("claude-sonnet-4-5-20250929") is model_for("anthropic/claude-sonnet-4-5")
        True
        >>> model_for("gpt-5.6").id, model_for("openai/deepseek-v9") is None
        ('gpt-5.6-sol', True)
    """
    if not isinstance(model_id, str):
        raise TypeError(f"model must be a str, got {short_repr(model_id)}")
    if models is not None and not isinstance(models, Mapping):
        raise TypeError(f"models must be a dict of id -> Model, got {short_repr(models)}")
    if models is None and model_id in _FOUND:
        return _FOUND[model_id]
    table, names = (MODELS, _NAMES) if models is None else (models, _names(models))
    found = None
    for name in (model_id, model_id.rsplit("/", 1)[-1], model_family(model_id)):
        found = table.get(name) or names.get(name)
        if found is not None:
            break
    if models is None and len(_FOUND) < _MOST_FOUND:
        _FOUND[model_id] = found
    return found


#: Each id `model_for` looked up in `MODELS` -> its row (None: none), so that a bill or a
#: replay, which asks for the row of every call's model, reads each id once; up to
#: `_MOST_FOUND` ids, so that ids made up by the thousand do not grow it without end.
_FOUND: dict[str, Model | None] = {}
_MOST_FOUND = 4096


def _names(models: Mapping[str, Model]) -> dict[str, Model]:
    """Every alias of `models` -> its model."""
    return {alias: model for model in models.values() for alias in model.aliases}


# ---------------------------------------------------------------- the rows
# One function per provider; each row's facts name the page they were read from
# and the date. Rates are USD per million tokens.

_A_PRICING = "Anthropic, https://platform.claude.com/docs/en/about-claude/pricing"
_A_CACHING = "Anthropic, https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
_A_FAST = "https://platform.claude.com/docs/en/build-with-claude/fast-mode"
_A_THINKING = "https://platform.claude.com/docs/en/build-with-claude/extended-thinking"
_SNAPSHOT = "llms-txt-archive snapshot 2026-08-21"

#: Claude models whose prompts keep only the current turn's thinking (earlier Opus
#: and Sonnet models, every Haiku), per the thinking page's "Thinking block
#: preservation by model" (2026-08-21); every other Claude keeps all of it.
_LAST_TURN = frozenset(
    {
        "claude-opus-4",
        "claude-opus-4-1",
        "claude-sonnet-4",
        "claude-sonnet-4-5",
        "claude-3-7-sonnet",
        "claude-3-5-sonnet",
        "claude-3-sonnet",
        "claude-haiku-4-5",
        "claude-3-5-haiku",
        "claude-haiku-5-5",
        "claude-3-opus",
        "claude-3-haiku",
    }
)
#: Claude 4.6 and later: US-only inference at 1.1 times every token rate.
_US_ONLY = 1.1
_SONNET_LONG = LongContext(200_000, 6.0, 22.5)


def _claude(
    base: float, out: float, read: float, as_of: str, source: str, **rules: object
) -> Price:
    """A Claude price: 5-minute writes at 1.25 times input, 1-hour writes at 2 times."""
    return Price(base, base * 1.25, base * 2, read, out, as_of, source, **rules)  # type: ignore[arg-type]


def _minimum(tokens: int, as_of: str = "2026-08-21", source: str = "") -> MinimumLength:
    return MinimumLength(tokens, as_of, source or f"{_A_CACHING} ({_SNAPSHOT})")


def _assumed(tokens: int, follows: str) -> MinimumLength:
    return MinimumLength(
        tokens, "2026-09-30", f"assumed equal to {follows} (not in the 2026-08-21 table)"
    )


def _anthropic_model(
    model_id: str, prices: tuple[Price, ...], minimum: MinimumLength, source: str = ""
) -> Model:
    latest = prices[-1]
    policy = CachePolicy.anthropic(
        minimum, read_multiple=latest.read / latest.input, as_of=minimum.as_of
    )
    return Model(
        model_id,
        "anthropic",
        prices,
        policy,
        {"breakpoints": policy},
        "last-turn" if model_id in _LAST_TURN else "all",
        source=source or _A_PRICING,
        as_of=prices[0].as_of,
    )


#: Opus 4.7's fast-mode multiple: no Anthropic page read for this table gives it.
_OPUS_47 = (
    f"{_A_PRICING} ({_SNAPSHOT}); fast mode 6x as ccusage 20.0.24's table of fast-mode "
    "multiples has it (https://github.com/ryoppippi/ccusage), an Anthropic rate not read "
    "here; Claude Code's fast-mode page (https://code.claude.com/docs/en/fast-mode, read "
    "2026-12-07) says fast mode on Opus 4.7 was removed on 2026-07-24"
)


def _anthropic_rows() -> list[Model]:
    pricing = f"{_A_PRICING} ({_SNAPSHOT})"
    fast_6 = {"fast": 6.0, "us_only": _US_ONLY}
    fast_2 = {"fast": 2.0, "us_only": _US_ONLY}
    rows = [
        ("claude-opus-4-6", _claude(5.0, 25.0, 0.50, "2026-08-21", pricing, **fast_6), 4096),
        ("claude-opus-4-7", _claude(5.0, 25.0, 0.50, "2026-08-21", _OPUS_47, **fast_6), 2048),
        ("claude-opus-4-8", _claude(5.0, 25.0, 0.50, "2026-08-21", pricing, **fast_2), 1024),
        ("claude-opus-5", _claude(5.0, 25.0, 0.50, "2026-08-21", pricing, **fast_2), 512),
        ("claude-opus-4-5", _claude(5.0, 25.0, 0.50, "2026-08-21", pricing), 4096),
        ("claude-sonnet-5", _claude(2.0, 10.0, 0.20, "2026-08-21", pricing, us_only=1.1), 1024),
        ("claude-sonnet-4-6", _claude(3.0, 15.0, 0.30, "2026-08-21", pricing, us_only=1.1), 1024),
        (
            "claude-sonnet-4-5",
            _claude(3.0, 15.0, 0.30, "2026-08-21", pricing, long_context=_SONNET_LONG),
            1024,
        ),
        ("claude-haiku-4-5", _claude(1.0, 5.0, 0.10, "2026-08-21", pricing), 4096),
        ("claude-fable-5", _claude(10.0, 50.0, 1.0, "2026-08-21", pricing, us_only=1.1), 512),
        ("claude-mythos-5", _claude(10.0, 50.0, 1.0, "2026-08-21", pricing, us_only=1.1), 512),
    ]
    models = [
        _anthropic_model(model_id, (price,), _minimum(tokens)) for model_id, price, tokens in rows
    ]
    return models + _later_claude() + _older_claude()


_OPUS_55 = (
    "Anthropic, Claude Opus 5.5 model page "
    "(https://platform.claude.com/docs/en/models/opus-5-5/overview, Sept 2026): cached "
    f"input a twentieth of uncached, not on the pricing page; fast mode 2x per {_A_FAST}"
)
_SONNET_55 = "Anthropic, https://platform.claude.com/docs/en/models/sonnet-5-5/overview"
_SONNET_55_CUT = (
    "secondary: third-party price tables give reads at $0.10 from 2026-10-07 "
    "(TheKrush/PromptFuel v1.0.23; kurofune/claudit v1.9.2, checked against the live "
    "pricing page on 2026-10-24); the model page read 2026-09-30 gave $0.20"
)
_FABLE_51 = f"{_A_PRICING} (Fable 5.1 row, Sept 2026): reads $0.25 on $10 input"
_HAIKU_55 = (
    "Anthropic, https://platform.claude.com/docs/en/models/haiku-5-5/overview (Oct 2026): "
    "prompts over 100K tokens at 5 times every rate"
)


def _later_claude() -> list[Model]:
    """The models released after the 2026-08-21 snapshot, from their own pages."""
    return [
        _anthropic_model(
            "claude-opus-5-5",
            (_claude(4.0, 20.0, 0.20, "2026-09-30", _OPUS_55, fast=2.0, us_only=_US_ONLY),),
            _assumed(512, "Opus 5"),
        ),
        _anthropic_model(
            "claude-sonnet-5-5",
            (
                _claude(2.0, 10.0, 0.20, "2026-09-30", _SONNET_55, us_only=_US_ONLY),
                _claude(
                    2.0,
                    10.0,
                    0.10,
                    "2026-12-06",
                    _SONNET_55_CUT,
                    us_only=_US_ONLY,
                    since="2026-10-07",
                ),
            ),
            _assumed(1024, "Sonnet 5"),
        ),
        _anthropic_model(
            "claude-fable-5-1",
            (_claude(10.0, 50.0, 0.25, "2026-09-30", _FABLE_51, us_only=_US_ONLY),),
            _assumed(512, "Fable 5"),
        ),
        _anthropic_model(
            "claude-mythos-5-1",
            (_claude(10.0, 50.0, 0.25, "2026-09-30", _FABLE_51, us_only=_US_ONLY),),
            _assumed(512, "Mythos 5"),
        ),
        _anthropic_model(
            "claude-haiku-5-5",
            (
                _claude(
                    0.10,
                    0.50,
                    0.01,
                    "2026-10-07",
                    _HAIKU_55,
                    us_only=_US_ONLY,
                    long_context=LongContext(100_000, 0.50, 2.50),
                ),
            ),
            _assumed(4096, "Haiku 4.5"),
        ),
    ]


_PAGE = f"{_A_PRICING} (model pricing table; read 2026-12-01)"
_SONNET_3 = (
    "Anthropic, https://www.anthropic.com/news/claude-3-family: $3 / $15 as announced "
    "in March 2024, not re-read here; Claude 3 Sonnet never offered prompt caching"
)
_CLAUDE_3 = (
    "Anthropic, https://docs.anthropic.com/en/docs/about-claude/pricing (the model pricing "
    "table of 2025, topped by Opus 4.1, which listed Opus 3 (deprecated) and Haiku 3); the "
    "page read 2026-12-01 no longer lists them"
)
_CLAUDE_3_MINIMUM = (
    "secondary: Anthropic's prompt-caching page of 2025 as quoted by "
    "https://docs.truefoundry.com/gateway/chat-completions-prompt-caching "
    "(Opus 3 1,024 tokens, Haiku 3 2,048)"
)
_SONNET_35 = (
    "secondary: the synaps crate's table of the pricing page ('Sonnet (other)': $3 / $15, "
    "reads 0.1x, verified 2026-10); the page read for this table no longer lists Sonnet 3.5"
)


def _older_claude() -> list[Model]:
    """The models recorded sessions still name (Claude Code 1.0.x ran on Sonnet 4)."""
    models = [
        _anthropic_model(model_id, (price,), _minimum(1024))
        for model_id, price in (
            ("claude-opus-4-1", _claude(15.0, 75.0, 1.50, "2026-12-01", _PAGE)),
            ("claude-opus-4", _claude(15.0, 75.0, 1.50, "2026-12-01", _PAGE)),
            (
                "claude-sonnet-4",
                _claude(3.0, 15.0, 0.30, "2026-12-01", _PAGE, long_context=_SONNET_LONG),
            ),
        )
    ]
    models.append(
        _anthropic_model(
            "claude-3-7-sonnet",
            (_claude(3.0, 15.0, 0.30, "2026-12-01", _PAGE),),
            _minimum(1024, "2026-05-06", f"{_A_CACHING} (llms-txt-archive snapshot 2026-05-06)"),
        )
    )
    models.append(
        _anthropic_model(
            "claude-3-5-sonnet",
            (_claude(3.0, 15.0, 0.30, "2026-12-06", _SONNET_35),),
            _assumed(1024, "Sonnet 3.7 (the page no longer lists Sonnet 3.5)"),
        )
    )
    models.append(
        _anthropic_model(
            "claude-3-5-haiku", (_claude(0.80, 4.0, 0.08, "2026-12-01", _PAGE),), _minimum(2048)
        )
    )
    models += [
        _anthropic_model(
            "claude-3-opus",
            (_claude(15.0, 75.0, 1.50, "2026-12-07", _CLAUDE_3),),
            MinimumLength(1024, "2026-12-07", _CLAUDE_3_MINIMUM),
        ),
        _anthropic_model(  # subtle: writes at 1.2 times input (5 minutes), reads at 0.12
            "claude-3-haiku",
            (Price(0.25, 0.30, 0.50, 0.03, 1.25, "2026-12-07", _CLAUDE_3),),
            MinimumLength(2048, "2026-12-07", _CLAUDE_3_MINIMUM),
        ),
    ]
    sonnet_3 = Price(3.0, 3.0, 3.0, 3.0, 15.0, "2026-12-06", _SONNET_3)
    models.append(
        Model(
            "claude-3-sonnet",
            "anthropic",
            (sonnet_3,),
            CachePolicy.uncached("anthropic", _SONNET_3, "2026-12-06"),
            thinking="last-turn",
            source=_SONNET_3,
            as_of="2026-12-06",
        )
    )
    return models


# OpenAI: each model's own page on developers.openai.com (its "Text tokens" table,
# standard tier, short context), and the prompt-caching guide for the cache.
_O_MODELS = "https://developers.openai.com/api/docs/models/"
#: GPT-5.5 and later: past 272K input tokens the whole request pays twice the input
#: rate (the cache rates follow it) and 1.5 times the output rate.
_O_LONG_ABOVE = 272_000


def _openai_price(
    model_id: str,
    rates: tuple[float, float, float],
    *,
    as_of: str,
    note: str = "",
    since: str = "",
    writes: bool = False,
    long: bool = False,
    fast: float | None = None,
) -> Price:
    """Input, cached input and output; writes at 1.25 times input (`writes`) or free."""
    base, read, out = rates
    write = base * 1.25 if writes else base
    source = (
        note
        if note.startswith("secondary:")
        else f"OpenAI, {_O_MODELS}{model_id} (read {as_of}){note}"
    )
    band = LongContext(_O_LONG_ABOVE, base * 2, out * 1.5) if long else None
    return Price(
        base,
        write,
        write,
        read,
        out,
        as_of,
        source,
        fast,
        1.0,
        band,
        write_30m=write if writes else None,
        since=since,
    )


def _openai_model(
    model_id: str, prices: tuple[Price, ...], *, aliases: tuple[str, ...] = ()
) -> Model:
    latest = prices[-1]
    multiple = latest.read / latest.input
    if latest.write_30m is not None:  # GPT-5.6 and later: writes at breakpoints, paid
        implicit = CachePolicy.openai_breakpoints(read_multiple=multiple)
        explicit = CachePolicy.openai_breakpoints(read_multiple=multiple, explicit=True)
        caches = {"implicit": implicit, "explicit": explicit}
    else:
        implicit = CachePolicy.openai_prefix(read_multiple=multiple)
        caches = {"automatic": implicit}
    return Model(
        model_id,
        "openai",
        prices,
        implicit,
        caches,
        aliases=aliases,
        source=f"{_O_MODELS}{model_id}",
        as_of=prices[0].as_of,
    )


_FREE = "; writes cost no more than input before GPT-5.6"
#: A source for models whose OpenAI page was not read (the note then stands alone).
_COPILOT = (
    "secondary: GitHub's per-token table for Copilot (github/docs, "
    "data/tables/copilot/models-and-pricing.yml), which gives GPT-5.5 and GPT-5.6 at this "
    "table's rates too; OpenAI's page for the model was not read" + _FREE
)
_CUT = "; the 2026-07-30 price cut (secondary for its date: docs.laozhang.ai, 2026-08-01)"
_LAUNCH = (
    "; the launch rates of 2026-07-09, from secondary sources (apidog.com's GPT-5.6 guide, "
    "docs.laozhang.ai); the model page now shows the later rates"
)

#: OpenAI's rates: model id, (input, cached input, output), the date they took effect
#: ("" for the first), the date they were read, and what the source adds. GPT-5.6 and
#: later write at 1.25 times input; on GPT-5.4 and from GPT-5.5 on, past 272K input
#: tokens the whole request pays the long-context rates.
_OPENAI_RATES: tuple[tuple[str, tuple[float, float, float], str, str, str], ...] = (
    (
        "gpt-4o",
        (2.50, 1.25, 10.0),
        "",
        "2026-12-06",
        "; secondary: the openai-models crate's table" + _FREE,
    ),
    (
        "gpt-4o-mini",
        (0.15, 0.075, 0.60),
        "",
        "2026-12-06",
        "secondary: the openai-models crate's table (docs.rs, openai-models 0.1.1), the "
        "rates LiteLLM recorded for a real OpenHands conversation too; OpenAI's page for the "
        "model was not read" + _FREE,
    ),
    ("codex-mini-latest", (1.50, 0.375, 6.0), "", "2026-12-02", _FREE),
    (
        "gpt-5",
        (1.25, 0.125, 10.0),
        "",
        "2026-12-06",
        "; the rates GPT-5.1's page compares it at" + _FREE,
    ),
    ("gpt-5-codex", (1.25, 0.125, 10.0), "", "2026-12-02", _FREE),
    ("gpt-5.1", (1.25, 0.125, 10.0), "", "2026-12-02", _FREE),
    (
        "gpt-5.1-codex",
        (1.25, 0.125, 10.0),
        "",
        "2026-12-06",
        "; the GPT-5.1 rates (its page, read 2026-12-06): the Codex model's own page was not read",
    ),
    ("gpt-5.2", (1.75, 0.175, 14.0), "", "2026-12-06", _COPILOT),
    ("gpt-5.2-codex", (1.75, 0.175, 14.0), "", "2026-12-06", _COPILOT),
    ("gpt-5.3-codex", (1.75, 0.175, 14.0), "", "2026-12-06", _COPILOT),
    ("gpt-5.4", (2.50, 0.25, 15.0), "", "2026-12-06", _COPILOT),
    ("gpt-5.4-mini", (0.75, 0.075, 4.50), "", "2026-12-06", _COPILOT),
    ("gpt-5.4-nano", (0.20, 0.02, 1.25), "", "2026-12-06", _COPILOT),
    (
        "gpt-5.5",
        (5.0, 0.50, 30.0),
        "",
        "2026-12-06",
        "; input $5 as GPT-5.6 Sol's page compares it; cached and output rates and the "
        "long-context rule from third-party tables (apidog.com, shortapi.ai), and ccusage "
        "20.0.24 prices Codex rollouts at these rates",
    ),
    (
        "gpt-5.6-sol",
        (5.0, 0.50, 30.0),
        "",
        "2026-12-06",
        "; the list rates its page says the promotion cuts by 20% and 33%",
    ),
    (
        "gpt-5.6-sol",
        (4.0, 0.40, 20.0),
        "2026-08-21",
        "2026-12-02",
        "; promotional rates from 2026-08-21, 'at least until November 21, 2026' on the page; "
        "the date they began is from a third-party tracker (TheKrush/PromptFuel v1.0.17)",
    ),
    (
        "gpt-5.6-sol",
        (5.0, 0.50, 30.0),
        "2026-12-01",
        "2026-12-06",
        "; secondary: back to the list rates from 2026-12-01 per a reseller's notice "
        "(docs.laozhang.ai, 2026-11-30)",
    ),
    ("gpt-5.6-terra", (2.50, 0.25, 15.0), "", "2026-12-06", _LAUNCH),
    ("gpt-5.6-terra", (2.0, 0.20, 12.0), "2026-07-30", "2026-12-06", _CUT),
    ("gpt-5.6-luna", (1.0, 0.10, 6.0), "", "2026-12-06", _LAUNCH),
    (
        "gpt-5.6-luna",
        (0.20, 0.02, 1.20),
        "2026-07-30",
        "2026-12-06",
        "; secondary: the 2026-07-30 price cut as docs.laozhang.ai and docs.apiyi.com give it "
        "(the Luna page itself was not read)",
    ),
    ("gpt-6.2-sol", (2.0, 0.10, 10.0), "", "2026-12-02", "; 30-minute writes at 1.25x input"),
)
#: Fast mode (priority processing) at twice every rate, where the model's page gives it.
_OPENAI_FAST = {"gpt-6.2-sol": 2.0}
_OPENAI_ALIASES = {"gpt-5.6-sol": ("gpt-5.6",)}
#: The models before GPT-5.6 whose long-context rates are known.
_OPENAI_LONG = frozenset({"gpt-5.4", "gpt-5.5"})


def _openai_rows() -> list[Model]:
    """One row per model of `_OPENAI_RATES`, its dated rates in order."""
    prices: dict[str, list[Price]] = {}
    for model_id, rates, since, as_of, note in _OPENAI_RATES:
        newer = model_id.startswith(("gpt-5.6", "gpt-6"))
        price = _openai_price(
            model_id,
            rates,
            as_of=as_of,
            note=note,
            since=since,
            writes=newer,
            long=newer or model_id in _OPENAI_LONG,
            fast=_OPENAI_FAST.get(model_id),
        )
        prices.setdefault(model_id, []).append(price)
    return [
        _openai_model(model_id, tuple(rows), aliases=_OPENAI_ALIASES.get(model_id, ()))
        for model_id, rows in prices.items()
    ]


_G_CACHING = "https://ai.google.dev/gemini-api/docs/caching"
_G_PRICING = "Google, https://ai.google.dev/gemini-api/docs/pricing"


def _gemini_price(
    rates: tuple[float, float, float],
    as_of: str,
    source: str,
    *,
    long: LongContext | None = None,
    since: str = "",
) -> Price:
    """Input, cached input and output; an explicit cache is created at the input rate."""
    base, read, out = rates
    return Price(base, base, base, read, out, as_of, source, long_context=long, since=since)


def _gemini_model(
    model_id: str,
    prices: tuple[Price, ...],
    minimum: int,
    storage: float | None,
    *,
    aliases: tuple[str, ...] = (),
) -> Model:
    latest = prices[-1]
    tokens = MinimumLength(minimum, "2026-12-06", f"Google, {_G_CACHING} (minimum token table)")
    multiple = latest.read / latest.input
    implicit = CachePolicy.gemini_implicit(tokens, read_multiple=multiple)
    caches = {"implicit": implicit}
    if storage is not None:
        caches["explicit"] = CachePolicy.gemini_explicit(
            tokens, read_multiple=multiple, storage_per_hour=storage
        )
    return Model(
        model_id,
        "google",
        prices,
        implicit,
        caches,
        aliases=aliases,
        source=f"https://ai.google.dev/gemini-api/docs/models/{model_id}",
        as_of=prices[0].as_of,
    )


def _google_rows() -> list[Model]:
    pro = (
        f"{_G_PRICING} (transcribed 2026-09-20 by api-evangelist/gemini); cached $0.20 and "
        "storage $4.50 per million tokens per hour from a secondary guide "
        "(techjacksolutions.com, June 2026)"
    )
    flash = (
        f"{_G_PRICING} (transcribed 2026-09-20 by api-evangelist/gemini); the cached rate "
        f"is the 90% discount of {_G_CACHING}; storage is assumed at the Flash rate of $1.00 "
        "per million tokens per hour"
    )
    argon = (
        "secondary: LiteLLM's launch note (BerriAI/litellm discussion 46238) and a price "
        "tracker (iyulab/TokenMeter v0.13.1): implicit caching only"
    )
    return [
        _gemini_model(
            "gemini-3.1-pro-preview",
            (
                _gemini_price(
                    (2.0, 0.20, 12.0), "2026-12-06", pro, long=LongContext(200_000, 4.0, 18.0)
                ),
            ),
            4096,
            4.50,
            aliases=("gemini-3.1-pro",),
        ),
        _gemini_model(
            "gemini-3.5-flash", (_gemini_price((1.50, 0.15, 9.0), "2026-12-06", flash),), 1024, 1.00
        ),
        _gemini_model(
            "gemini-4-argon",
            (
                _gemini_price((2.0, 0.10, 10.0), "2026-12-06", f"{argon}; launch rates"),
                _gemini_price(
                    (4.0, 0.20, 20.0), "2026-12-06", f"{argon}; from 2026-12-01", since="2026-12-01"
                ),
            ),
            4096,
            None,
        ),
    ]


_D_PRICING = "DeepSeek, https://api-docs.deepseek.com/quick_start/pricing"
#: Peak hours, 01:00-04:00 and 06:00-10:00 UTC on weekdays, at twice the off-peak
#: rates (from 2026-08-16 16:00 UTC). Chinese public holidays, off-peak all day, are
#: not modelled.
_D_PEAK = Peak(((1, 4), (6, 10)), 2.0)


def _deepseek_price(
    rates: tuple[float, float, float],
    as_of: str,
    source: str,
    *,
    since: str = "",
    peak: bool = False,
) -> Price:
    """Cache hit, cache miss and output (off-peak where there is a peak); writes are free."""
    hit, miss, out = rates
    return Price(
        miss, miss, miss, hit, out, as_of, source, since=since, peak=_D_PEAK if peak else None
    )


def _deepseek_model(
    model_id: str, prices: tuple[Price, ...], *, aliases: tuple[str, ...] = ()
) -> Model:
    latest = prices[-1]
    policy = CachePolicy.deepseek(read_multiple=latest.read / latest.input)
    return Model(
        model_id,
        "deepseek",
        prices,
        policy,
        {"disk": policy},
        aliases=aliases,
        source=_D_PRICING,
        as_of=prices[0].as_of,
    )


def _deepseek_rows() -> list[Model]:
    v4 = f"{_D_PRICING} (V4 launch rates, page read 2026-12-06 at an earlier version)"
    peak = (
        f"{_D_PRICING}: peak and off-peak billing from 2026-08-16 16:00 UTC (off-peak rates here)"
    )
    v41 = (
        f"{_D_PRICING} (read 2026-12-06): requests to deepseek-v4-flash are served by "
        "DeepSeek-V4.1-Flash at its price from 2026-09-10 04:00 UTC"
    )
    v32 = (
        "secondary: DeepSeek's V3.2 rates as LiteLLM recorded them in a shipped mini-swe-agent "
        "trajectory (each call's cost reproduces exactly); V4 Flash's from 2026-04-24"
    )
    flash = (
        _deepseek_price((0.0028, 0.14, 0.28), "2026-12-06", v4),
        _deepseek_price(
            (0.007, 0.22, 0.66), "2026-12-06", peak, since="2026-08-16T16:00", peak=True
        ),
        _deepseek_price(
            (0.003, 0.15, 0.60), "2026-12-06", v41, since="2026-09-10T04:00", peak=True
        ),
    )
    return [
        _deepseek_model(
            "deepseek-v4-flash", flash, aliases=("deepseek-flash", "deepseek-v4.1-flash")
        ),
        _deepseek_model(
            "deepseek-v4-pro",
            (
                _deepseek_price((0.003625, 0.435, 0.87), "2026-12-06", v4),
                _deepseek_price(
                    (0.022, 0.66, 1.98), "2026-12-06", peak, since="2026-08-16T16:00", peak=True
                ),
            ),
        ),
        _deepseek_model(
            "deepseek-chat",
            (
                _deepseek_price((0.028, 0.28, 0.42), "2026-12-06", v32),
                # from the V4 launch deepseek-chat names V4 Flash's non-thinking mode, so it
                # is priced as V4 Flash is, at each of its later rates too
                *(
                    replace(
                        price,
                        since=price.since or "2026-04-24",
                        source=f"{price.source}; deepseek-chat names V4 Flash's non-thinking mode",
                    )
                    for price in flash
                ),
            ),
            aliases=("deepseek-reasoner",),
        ),
    ]


def _rows() -> list[Model]:
    """Every row of the table, by provider."""
    return _anthropic_rows() + _openai_rows() + _google_rows() + _deepseek_rows()


#: Model id -> `Model`, every per-model fact the package holds.
MODELS: dict[str, Model] = {model.id: model for model in sorted(_rows(), key=lambda m: m.id)}
_NAMES = _names(MODELS)
