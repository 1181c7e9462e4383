"""Tokens and estimates: how far the four-characters estimate misses, by kind of text.

Drawn from the course's four shipped samples (`docs/samples/`): for each, the
estimate (`estimate_tokens`) against the real Qwen2.5 count (`qwen_counter`),
as `estimate / real - 1`. Right of zero the estimate counts too many tokens,
left of zero too few.
"""

from __future__ import annotations

from pathlib import Path

from context_budget import estimate_tokens, qwen_counter

from _svg import signed_bars

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
#: kind of text -> the shipped sample of it
FILES = {
    "prose": "prose.txt",
    "JSON": "tool-result.json",
    "numbers": "numbers.txt",
    "Python": "code.py.txt",
}


def errors() -> list[tuple[str, float]]:
    """`(kind, estimate / real - 1)` for each sample, in `FILES` order."""
    count = qwen_counter()
    out = []
    for kind, name in FILES.items():
        text = (SAMPLES / name).read_text(encoding="utf-8")
        out.append((kind, estimate_tokens(text) / count(text) - 1))
    return out


def draw() -> str:
    """The figure as SVG text."""
    bars = errors()
    worst_kind, worst = min(bars, key=lambda bar: bar[1])
    return signed_bars(
        bars,
        title="The estimate against the real tokenizer: too high on prose, "
        "far too low on JSON and numbers",
        desc="Error of the four-characters-a-token estimate against Qwen2.5 on the "
        "course's four samples: "
        + ", ".join(f"{kind} {error:+.0%}" for kind, error in bars)
        + f". The worst miss is {worst_kind}, {worst:+.0%}.",
        value_label="estimate against the real count (+ too many tokens, - too few)",
        percent=True,
    )
