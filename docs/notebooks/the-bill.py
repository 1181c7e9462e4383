# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab: plot the bill
#
# The chapter *Context is a budget* computed what an agent loop reads when
# every step re-sends the whole history. This lab draws it: tokens read per
# call and in total, with and without a prompt cache. Everything comes from
# `context_budget`; the downloaded notebook carries the package in its first
# cell, so it runs on any Python 3.11+ kernel. The plot needs matplotlib;
# without it the lab says so in one line and prints its numbers all the same.
#
# **Time:** about 15 minutes. **Prerequisites:** the chapter *Context is a
# budget*, and a kernel with matplotlib if you want the plots.

# %%
from context_budget import loop_cost, loop_steps, tokens_read

START = 2_000  # tokens in the context before step 1
GROWTH = 1_875  # tokens each step adds
STEPS = 60
plain = loop_steps(STEPS, growth=GROWTH, start=START)
cached = loop_steps(STEPS, growth=GROWTH, start=START, cached=True)
total = tokens_read(STEPS, growth=GROWTH, start=START)
print(f"{STEPS} steps read {total:,} input tokens")
print(f"the last call alone sends {plain[-1].context:,} tokens")

# %% [markdown]
# The per-call context is a straight line; the running total is a parabola.
# Doubling the steps roughly quadruples the total.

# %%
import builtins
import html
import io
import itertools

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
except ImportError:  # a bare kernel: the numbers work, only the plot needs it
    plt = None
    print(
        "No plot here: install matplotlib (pip install matplotlib) to draw it."
    )

steps = [call.step for call in plain]
# running totals (tokens): all that is read, and what the cache did not serve
running = list(itertools.accumulate(call.context for call in plain))
uncached = list(itertools.accumulate(call.uncached for call in cached))

if plt is not None:
    # Dark grey ink and colours at 3:1 or more on a white page; the site shows
    # the plot inverted on its dark theme, where the same contrast holds.
    INK = "#4d4d4d"
    # tokens in k and M; the axes start at a plain 0
    thousands = FuncFormatter(
        lambda value, _: f"{value / 1_000:,.0f}k" if value else "0"
    )
    millions = FuncFormatter(
        lambda value, _: f"{value / 1_000_000:g}M" if value else "0"
    )

    def show(fig, alt):
        """Show `fig` as SVG (its text as text), described by `alt`."""
        display = getattr(builtins, "display", None)  # every IPython kernel's
        if display is None:  # run as a plain script
            plt.show()
            return
        buffer = io.StringIO()
        # vector, so it is sharp at any width; the same ids and no date on
        # every run
        fig.savefig(
            buffer, format="svg", bbox_inches="tight", metadata={"Date": None}
        )
        plt.close(fig)
        described = f'<svg role="img" aria-label="{html.escape(alt)}"'
        svg = buffer.getvalue().replace("<svg", described, 1)
        display({"image/svg+xml": svg, "text/plain": alt}, raw=True)

    with plt.rc_context(
        {
            "font.size": 13,
            "svg.fonttype": "none",
            "svg.hashsalt": "the-bill",
            "text.color": INK,
            "axes.labelcolor": INK,
            "axes.edgecolor": INK,
            "xtick.color": INK,
            "ytick.color": INK,
            "axes.facecolor": "none",
            "figure.facecolor": "none",
            "savefig.facecolor": "none",
            "legend.frameon": False,
            "lines.linewidth": 2.5,
        }
    ):
        fig, (left, right) = plt.subplots(2, 1, figsize=(4, 5.6))
        left.plot(steps, [call.context for call in plain], color="#00897b")
        left.set(
            title="Context sent with each call", xlabel="step (model call)"
        )
        left.set_ylabel("tokens sent")
        left.yaxis.set_major_formatter(thousands)
        right.plot(steps, running, color="#00897b", marker="o", markevery=6)
        right.plot(
            steps,
            uncached,
            color="#b26a00",
            linestyle="--",
            marker="s",
            markevery=6,
        )
        # labels by the lines' right ends: the total's to the left of its end
        # (above it is the title), the uncached part's above its line
        for values, text, offset in (
            (running, "read in total", (-12, -4)),
            (uncached, "uncached", (-6, 8)),
        ):
            right.annotate(
                text,
                (steps[-1], values[-1]),
                xytext=offset,
                textcoords="offset points",
                ha="right",
                va="top" if offset[1] < 0 else "baseline",
                color=INK,
            )
        right.set(title="Tokens read so far", xlabel="step (model call)")
        right.set_ylabel("tokens, running total")
        right.yaxis.set_major_formatter(millions)
        for axes in (left, right):
            axes.grid(alpha=0.3)
            axes.spines[["top", "right"]].set_visible(False)
        fig.tight_layout()
        show(
            fig,
            "Two line charts. Top: the context sent with each call grows in a "
            "straight line with the step. Bottom: the tokens read so far curve "
            "upwards, growing with the square of the steps; the uncached part "
            "(dashed) stays far below the total.",
        )

# %% [markdown]
# ## The same loop in dollars
#
# At $5 per million input tokens, a cache read at a tenth of that and a cache
# write at 1.25 times, the cache divides the bill but the bill still grows
# faster than the loop.

# %%
for n in (15, 30, 60):
    no_cache = loop_cost(plain[:n], input_price=5.0)
    with_cache = loop_cost(
        cached[:n], input_price=5.0, read_multiplier=0.1, write_multiplier=1.25
    )
    print(
        f"{n:3} steps: ${no_cache:6.2f} without a cache,"
        f" ${with_cache:5.2f} with one"
    )

# %% [markdown]
# Try it: change `GROWTH` to a tenth (a loop that clears old tool results keeps
# its growth small) and run the notebook again.

# %% [markdown]
# ## Sources
#
# - Anthropic,
#   [prompt caching documentation](https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
#   the write and read multipliers the cached bill uses.
# - Anthropic,
#   [*Effective context engineering for AI agents*](https://www.anthropic.com/engineering/effective-context-engineering-for-ai-agents)
#   (September 2025): why every token in the window is paid for again.
