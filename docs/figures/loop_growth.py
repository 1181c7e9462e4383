"""Context is a budget: the context each call sends, and the running total read.

Drawn from `loop_steps` and `tokens_read` with the page's own loop: 2,000 tokens
before the first round (system prompt and task) and 1,875 a round (one incident
report), over 24 steps. The context climbs in a straight line; the total the
model has read climbs quadratically as the steps add up.
"""

from __future__ import annotations

from context_budget import loop_steps, tokens_read

from _svg import line_chart

STEPS = 24
GROWTH = 1_875  # tokens each step adds to the history
START = 2_000  # tokens before the first step: the system prompt and the task


def draw() -> str:
    """The figure as SVG text."""
    steps = loop_steps(STEPS, growth=GROWTH, start=START)
    context = [(s.step, s.context) for s in steps]
    total = [(n, tokens_read(n, growth=GROWTH, start=START)) for n in range(1, STEPS + 1)]
    return line_chart(
        [("context of this call", context), ("tokens read so far", total)],
        title="Each call sends the whole history: the context grows in a line, "
        "the tokens read grow with the square of the steps",
        desc=f"A loop that starts at {START:,} tokens and adds {GROWTH:,} a step, for "
        f"{STEPS} steps: the last call "
        f"sends {context[-1][1]:,} tokens, and {total[-1][1]:,} have been read in all.",
        x_label="step (model call)",
        y_label="tokens",
    )
