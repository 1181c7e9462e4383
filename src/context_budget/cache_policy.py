"""How a provider caches a prompt, as data: one `CachePolicy` per documented behaviour.

Every provider caches the start of a prompt that an earlier request sent, and
each documents its own rules. A `CachePolicy` holds them, so that one
emulator (`cache.PromptCache`) reads the same Anthropic-format request under
any of them:

- `hit_unit`: what a hit is counted in. `"breakpoint"`: the exact prefix at a
  cache breakpoint an earlier request wrote (Anthropic; OpenAI from GPT-5.6;
  a Gemini explicit cache). `"prefix"`: the longest prefix an earlier request
  sent, in steps of `step_tokens` past the minimum (OpenAI's automatic
  caching up to GPT-5.5; Gemini's implicit caching). `"unit"`: a whole cache
  prefix unit an earlier request stored (DeepSeek). `"block"`: whole blocks
  of `step_tokens` tokens (a self-hosted vLLM). `"none"`: nothing is cached.
- where breakpoints come from (`automatic`), how many a request may carry
  (`max_breakpoints`) and write (`max_writes`), how far back a read looks
  (`lookback_blocks`);
- the lifetimes offered (`lifetimes`, the first the default), whether a hit
  renews an entry (`refreshed_by_hit`), how much room there is
  (`capacity_tokens`, least recently used first out);
- what it costs: each lifetime's write multiple of the input rate
  (`write_multiples`), the read multiple (`read_multiple`), whether usage
  reports writes at all (`writes_reported`; a provider that does not bills
  them as plain input), and storage by the hour (`storage_per_hour`);
- `hit_rate`: the share of eligible hits that happen, 1.0 where the provider
  guarantees them.

Where a provider's page is silent the policy takes a default, names it in
`assumptions`, and the caller can pass another: a policy is a frozen value,
so `dataclasses.replace(policy, hit_rate=0.5)` is one.

Example:
    >>> policy = CachePolicy.vllm(block_tokens=16, capacity_tokens=100_000)
    >>> policy.hit_unit, policy.step_tokens, policy.read_multiple
    ('block', 16, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from context_budget._values import short_repr

__all__ = [
    "HIT_UNITS",
    "LIFETIME_SECONDS",
    "LOOKBACK_BLOCKS",
    "MAX_BREAKPOINTS",
    "CachePolicy",
    "MinimumLength",
]

#: What a hit is counted in, by policy (`CachePolicy.hit_unit`).
HIT_UNITS = ("breakpoint", "prefix", "unit", "block", "none")
#: Seconds of each lifetime a write can carry in a `Usage` (its three write fields).
LIFETIME_SECONDS = {"5m": 300.0, "30m": 1800.0, "1h": 3600.0}
#: Anthropic: breakpoints a request may hold, explicit and automatic together.
MAX_BREAKPOINTS = 4
#: Anthropic: positions a read checks at a breakpoint, the breakpoint itself counted first.
LOOKBACK_BLOCKS = 20

HitUnit = Literal["breakpoint", "prefix", "unit", "block", "none"]
Automatic = Literal["asked", "always", "never"]

_ANTHROPIC_CACHING = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
_OPENAI_CACHING = "https://developers.openai.com/api/docs/guides/prompt-caching"
_OPENAI_OPTIONS = (
    "https://developers.openai.com/api/reference/resources/responses (prompt_cache_options)"
)
_GEMINI_CACHING = "https://ai.google.dev/gemini-api/docs/caching"
_DEEPSEEK_CACHING = "https://api-docs.deepseek.com/guides/kv_cache"
_VLLM_CACHING = "https://docs.vllm.ai/en/latest/design/prefix_caching.html"


@dataclass(frozen=True)
class MinimumLength:
    """The shortest prefix a model caches, with its date and source.

    Attributes:
        tokens: the minimum, in tokens, of the prefix up to a breakpoint.
        as_of: the date the figure was read, `YYYY-MM-DD`.
        source: where it was read (an assumption says so).
    """

    tokens: int
    as_of: str
    source: str

    def __post_init__(self) -> None:
        if type(self.tokens) is not int or self.tokens < 0:
            raise ValueError(
                f"MinimumLength.tokens must be an int >= 0, got {short_repr(self.tokens)}"
            )


@dataclass(frozen=True)
class CachePolicy:
    """One provider's prompt-caching rules, as its documentation states them.

    Attributes:
        provider: whose rules these are (`"anthropic"`, `"openai"`, `"google"`,
            `"deepseek"`, `"vllm"`, or a caller's own name).
        hit_unit: what a hit is counted in, one of `HIT_UNITS`.
        minimum: the shortest prefix cached (tokens), dated and sourced.
        step_tokens: for `"prefix"`, the step a hit grows in past the minimum
            (OpenAI: 128); for `"block"`, the block size (vLLM: 16); for
            `"unit"`, the interval at which long prompts are stored (DeepSeek);
            1 for `"breakpoint"`.
        automatic: for `"breakpoint"`, where a breakpoint comes from without
            a marker on a block: `"asked"` (only the request-level
            `cache_control`: Anthropic's automatic caching), `"always"` (one on
            the last block of every request: OpenAI's implicit mode),
            `"never"` (only markers).
        max_breakpoints: markers a request may carry; more are refused with
            the API's 400 where `refuses_extra`, else only the latest
            `max_writes` are written.
        refuses_extra: whether too many markers (or a 1-hour one after a
            5-minute one) is an error, as on Anthropic's API.
        max_writes: breakpoints a request writes at most (markers and the
            automatic one together).
        keeps: which markers are written when there are more than
            `max_writes`: the `"latest"` (OpenAI) or the `"first"` (a Gemini
            explicit cache is the prefix up to the first).
        lookback_blocks: positions a read checks at a breakpoint, the
            breakpoint itself first; None: every earlier position.
        considered: how many of the latest entries a read may match (OpenAI:
            80 breakpoints); None: every live one.
        lifetimes: lifetime name -> seconds an entry lives, the default first.
        refreshed_by_hit: whether a read starts an entry's lifetime again.
        writes_reported: whether usage reports the tokens written
            (`cache_creation_input_tokens`); where not, they are plain input.
        write_multiples: lifetime name -> the write rate over the input rate.
        read_multiple: the read rate over the input rate.
        storage_per_hour: USD per million tokens held per hour of a write's
            lifetime (Gemini's explicit caches); 0.0 where storage is free.
        capacity_tokens: the most tokens held at once (least recently used
            out first); None: no limit.
        hit_rate: the share of eligible tokens read, 0.0 to 1.0 (an expected
            value: Gemini guarantees no implicit hit).
        assumptions: what the provider's pages leave unsaid, and the default
            this policy takes for it.
        source: the page the rules were read from.
        as_of: the date they were read, `YYYY-MM-DD`.
    """

    provider: str
    hit_unit: HitUnit
    minimum: MinimumLength
    step_tokens: int = 1
    automatic: Automatic = "asked"
    max_breakpoints: int = MAX_BREAKPOINTS
    refuses_extra: bool = True
    max_writes: int = MAX_BREAKPOINTS
    keeps: Literal["latest", "first"] = "latest"
    lookback_blocks: int | None = LOOKBACK_BLOCKS
    considered: int | None = None
    lifetimes: tuple[tuple[str, float], ...] = (("5m", 300.0), ("1h", 3600.0))
    refreshed_by_hit: bool = True
    writes_reported: bool = True
    write_multiples: tuple[tuple[str, float], ...] = (("5m", 1.25), ("1h", 2.0))
    read_multiple: float = 0.1
    storage_per_hour: float = 0.0
    capacity_tokens: int | None = None
    hit_rate: float = 1.0
    assumptions: tuple[str, ...] = ()
    source: str = ""
    as_of: str = ""
    _seconds: dict[str, float] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check_choices()
        self._check_counts()
        for name in ("lifetimes", "write_multiples"):  # a dict of them is read as its pairs
            object.__setattr__(self, name, _pairs(getattr(self, name), name))
        self._check_lifetimes()
        self._check_rates()

    def _check_choices(self) -> None:
        """The fields that name one of a few choices, and the minimum's type."""
        if self.hit_unit not in HIT_UNITS:
            raise ValueError(
                f"hit_unit must be one of {', '.join(HIT_UNITS)}, got {short_repr(self.hit_unit)}"
            )
        if not isinstance(self.minimum, MinimumLength):
            raise TypeError(
                f"CachePolicy.minimum must be a MinimumLength, got {short_repr(self.minimum)}"
            )
        if self.automatic not in get_args(Automatic):
            raise ValueError(
                f"CachePolicy.automatic must be one of {', '.join(get_args(Automatic))}, "
                f"got {short_repr(self.automatic)}"
            )
        if self.keeps not in ("latest", "first"):
            raise ValueError(
                f"CachePolicy.keeps must be 'latest' or 'first', got {short_repr(self.keeps)}"
            )

    def _check_counts(self) -> None:
        """The counts: at least 1, or None where None means no limit."""
        for name in ("step_tokens", "max_breakpoints", "max_writes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"CachePolicy.{name} must be an int >= 1, got {short_repr(value)}")
        for name in ("lookback_blocks", "considered", "capacity_tokens"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(
                    f"CachePolicy.{name} must be None or an int >= 1, got {short_repr(value)}"
                )

    def _check_lifetimes(self) -> None:
        """At least one lifetime, each a positive number of seconds (kept by name); only
        those a `Usage` holds where the usage reports the writes."""
        if not self.lifetimes:
            raise ValueError("CachePolicy.lifetimes must name at least one lifetime")
        for name, seconds in self.lifetimes:
            _number(seconds, f"lifetimes[{name!r}]", positive=True, finite=False)
            self._seconds[name] = float(seconds)
        if self.writes_reported and self.hit_unit != "none":
            unknown = [name for name in self._seconds if name not in LIFETIME_SECONDS]
            if unknown:
                raise ValueError(
                    f"a policy that reports writes may offer only lifetimes a Usage holds "
                    f"({', '.join(LIFETIME_SECONDS)}), got {', '.join(map(repr, unknown))}"
                )

    def _check_rates(self) -> None:
        """The multiples and rates: numbers (`_number`); the hit rate a share."""
        for name, multiple in self.write_multiples:
            _number(multiple, f"write_multiples[{name!r}]")
        _number(self.read_multiple, "read_multiple")
        _number(self.storage_per_hour, "storage_per_hour")
        _number(self.hit_rate, "hit_rate")
        if self.hit_rate > 1:
            raise ValueError(f"CachePolicy.hit_rate must be at most 1, got {self.hit_rate!r}")

    # ------------------------------------------------------------ reading it

    @property
    def default_lifetime(self) -> str:
        """The lifetime a write carries when the request names none (the first offered)."""
        return self.lifetimes[0][0]

    def seconds(self, lifetime: str) -> float:
        """Seconds an entry of `lifetime` lives.

        Raises:
            ValueError: the policy offers no such lifetime; the message names those it does.
        """
        if lifetime not in self._seconds:
            raise ValueError(
                f"this {self.provider} policy offers lifetimes {', '.join(self._seconds)}, "
                f"got {short_repr(lifetime)}"
            )
        return self._seconds[lifetime]

    def write_multiple(self, lifetime: str) -> float:
        """The write rate of `lifetime` over the input rate (1.0 where writes cost nothing more)."""
        return dict(self.write_multiples).get(lifetime, 1.0)

    # ------------------------------------------------------------ each provider's

    @classmethod
    def anthropic(
        cls, minimum: MinimumLength, *, read_multiple: float = 0.1, as_of: str = "2026-08-21"
    ) -> CachePolicy:
        """Anthropic's prompt caching: writes at breakpoints, a 20-block lookback on reads.

        Up to 4 breakpoints (markers and the request-level `cache_control`),
        5-minute writes at 1.25 times input and 1-hour writes at 2 times,
        refreshed by every hit; reads at the model's own multiple.
        """
        return cls(
            "anthropic",
            "breakpoint",
            minimum,
            read_multiple=read_multiple,
            source=_ANTHROPIC_CACHING,
            as_of=as_of,
        )

    @classmethod
    def openai_prefix(
        cls,
        *,
        read_multiple: float = 0.1,
        lifetime: tuple[str, float] = ("24h", 86_400.0),
        as_of: str = "2026-12-06",
    ) -> CachePolicy:
        """OpenAI's automatic caching before GPT-5.6: exact prefixes, no write fee.

        Prompts from 1,024 tokens are cached whole; a later prompt reads the
        longest prefix it shares, in steps of 128 tokens past 1,024. Writes
        are free and unreported. Retention is in memory (5 to 10 minutes idle,
        an hour at most) or 24 hours (`prompt_cache_retention: "24h"`).
        """
        return cls(
            "openai",
            "prefix",
            MinimumLength(1024, as_of, _OPENAI_CACHING),
            step_tokens=128,
            automatic="always",
            lookback_blocks=None,
            lifetimes=(lifetime, ("in_memory", 600.0)),
            writes_reported=False,
            write_multiples=(),
            read_multiple=read_multiple,
            assumptions=(
                "an in-memory entry lives 10 minutes idle, the longer end of the "
                "5 to 10 the guide gives",
            ),
            source=_OPENAI_CACHING,
            as_of=as_of,
        )

    @classmethod
    def openai_breakpoints(
        cls, *, read_multiple: float = 0.1, explicit: bool = False, as_of: str = "2026-12-06"
    ) -> CachePolicy:
        """OpenAI's caching from GPT-5.6: exact prefixes at breakpoints, writes at 1.25 times.

        In implicit mode one breakpoint sits at the end of every request and
        the latest three markers (`prompt_cache_breakpoint`; here the
        request's `cache_control` markers) are written with it; in explicit
        mode (`explicit=True`) only markers, four at most. A read matches an
        entry at any of the latest 80 breakpoints, with no lookback limit, and
        never falls back to a shorter unmarked prefix. An entry lives 30
        minutes from its last write or read.
        """
        return cls(
            "openai",
            "breakpoint",
            MinimumLength(1024, as_of, _OPENAI_CACHING),
            automatic="never" if explicit else "always",
            refuses_extra=False,
            lookback_blocks=None,
            considered=80,
            lifetimes=(("30m", 1800.0),),
            write_multiples=(("30m", 1.25),),
            read_multiple=read_multiple,
            source=f"{_OPENAI_CACHING}; {_OPENAI_OPTIONS}",
            as_of=as_of,
        )

    @classmethod
    def gemini_implicit(
        cls, minimum: MinimumLength, *, read_multiple: float = 0.1, hit_rate: float = 1.0
    ) -> CachePolicy:
        """Gemini's implicit caching: on by default, prefix hits, no guarantee of one.

        Google promises no implicit hit, so `hit_rate` is an assumption: by
        default every eligible prefix is read (the best case), at the read
        multiple. Writes are free and unreported; how long an entry lives is
        not stated.
        """
        return cls(
            "google",
            "prefix",
            minimum,
            automatic="always",
            lookback_blocks=None,
            lifetimes=(("implicit", 3600.0),),
            writes_reported=False,
            write_multiples=(),
            read_multiple=read_multiple,
            hit_rate=hit_rate,
            assumptions=(
                f"every eligible prefix is read (hit_rate {hit_rate:g}); Google guarantees no "
                "implicit hit",
                "an implicit entry lives an hour, as an explicit one does by default",
            ),
            source=_GEMINI_CACHING,
            as_of="2026-12-06",
        )

    @classmethod
    def gemini_explicit(
        cls, minimum: MinimumLength, *, read_multiple: float = 0.1, storage_per_hour: float
    ) -> CachePolicy:
        """Gemini's explicit caching: one cached content per request, its TTL paid by the hour.

        The cache is the request's prefix up to its first marker; creating it
        costs the input rate plus `storage_per_hour` for its lifetime (an
        hour by default); a later request that starts with exactly that
        prefix reads it; a hit does not extend it.
        """
        return cls(
            "google",
            "breakpoint",
            minimum,
            automatic="never",
            max_breakpoints=1,
            refuses_extra=False,
            max_writes=1,
            keeps="first",
            lookback_blocks=1,
            lifetimes=(("1h", 3600.0),),
            refreshed_by_hit=False,
            write_multiples=(("1h", 1.0),),
            read_multiple=read_multiple,
            storage_per_hour=storage_per_hour,
            assumptions=(
                "the cached content is the prefix up to the request's first cache_control "
                "marker (the Gemini API takes it as a separate cachedContents resource)",
            ),
            source=_GEMINI_CACHING,
            as_of="2026-12-06",
        )

    @classmethod
    def deepseek(cls, *, read_multiple: float, interval_tokens: int = 64) -> CachePolicy:
        """DeepSeek's disk cache: whole prefix units, stored at the end of each input and output.

        A request stores a unit at the end of its prompt and one at the end
        of the reply (which the next request carries as its last assistant
        message), a unit at the prefix it shares with an earlier request,
        and units at fixed intervals of a long prompt. A later request reads
        the longest unit it matches whole. Writes cost nothing more.
        """
        return cls(
            "deepseek",
            "unit",
            MinimumLength(0, "2026-12-06", f"{_DEEPSEEK_CACHING}: no minimum stated"),
            step_tokens=interval_tokens,
            automatic="always",
            lookback_blocks=None,
            lifetimes=(("disk", 86_400.0),),
            writes_reported=False,
            write_multiples=(),
            read_multiple=read_multiple,
            assumptions=(
                f"long prompts are stored every {interval_tokens} tokens (the interval is not "
                "stated; 64 tokens was the storage unit DeepSeek documented before V4)",
                "no minimum length and no lifetime are stated; units live a day here",
            ),
            source=_DEEPSEEK_CACHING,
            as_of="2026-12-06",
        )

    @classmethod
    def vllm(cls, block_tokens: int = 16, capacity_tokens: int | None = None) -> CachePolicy:
        """A self-hosted vLLM's automatic prefix caching: whole blocks, least recently used out.

        Only full blocks of `block_tokens` are cached, each keyed by its
        parent's hash and its own tokens; at least the prompt's last token
        is computed; blocks stay until the `capacity_tokens` the server has
        for them are full, and then the least recently used go first (a
        request's later blocks before its earlier ones). Nothing is charged.
        """
        return cls(
            "vllm",
            "block",
            MinimumLength(block_tokens, "2026-12-06", f"{_VLLM_CACHING}: one full block"),
            step_tokens=block_tokens,
            automatic="always",
            lookback_blocks=None,
            lifetimes=(("evicted", math.inf),),
            writes_reported=False,
            write_multiples=(),
            read_multiple=0.0,
            capacity_tokens=capacity_tokens,
            source=_VLLM_CACHING,
            as_of="2026-12-06",
        )

    @classmethod
    def uncached(cls, provider: str, source: str, as_of: str) -> CachePolicy:
        """A model with no prompt caching: every prompt token is input."""
        return cls(
            provider,
            "none",
            MinimumLength(0, as_of, source),
            lifetimes=(("none", 1.0),),
            writes_reported=False,
            write_multiples=(),
            read_multiple=1.0,
            source=source,
            as_of=as_of,
        )


def _pairs(value: object, name: str) -> tuple[tuple[str, float], ...]:
    """`value` as (name, number) pairs: a tuple of pairs as it is, a dict as its items.

    Raises:
        TypeError: it is neither (the numbers are checked by `_number`).
    """
    pairs = tuple(value.items()) if isinstance(value, Mapping) else value
    if not isinstance(pairs, tuple | list) or not all(
        isinstance(pair, tuple | list) and len(pair) == 2 and isinstance(pair[0], str)
        for pair in pairs
    ):
        raise TypeError(
            f"CachePolicy.{name} must be (name, number) pairs, such as (('5m', 300.0),), "
            f"or a dict of them, got {short_repr(value)}"
        )
    return tuple((pair[0], pair[1]) for pair in pairs)


def _number(value: object, name: str, *, positive: bool = False, finite: bool = True) -> None:
    """A `ValueError` naming `name` unless `value` is a number >= 0 (> 0 when `positive`),
    finite unless `finite` is False (a lifetime may be endless, a rate may not)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        ok = False
    else:
        ok = (value > 0 if positive else value >= 0) and (not finite or value != math.inf)
    if not ok:
        what = "a finite number" if finite else "a number"
        least = "> 0" if positive else ">= 0"
        raise ValueError(f"CachePolicy.{name} must be {what} {least}, got {short_repr(value)}")
