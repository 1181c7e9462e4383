"""`python -m benchmarks.loop`: `run_agent` over long runs, with and without hooks and the guard.

A run of `turns` tool rounds, then an answer, against a client that answers
at once (so the figure is the loop's own time): each round the model asks for
one file and gets 400 characters back. Three ways to run it: no hook; a
request plan (`plan=`) that marks the newest message in place and asks for
the automatic breakpoint; an `edit_history=` that sends what it gets. Each
runs without a guard and with one (`strict=True`). A hook gets copies of the
history, so the loop's history is never edited, and the guard compares only
what each request adds or a hook changed; the figure that matters is how the
time grows with the turns: ×4 turns should cost about ×4 time, not ×16 (a
copy, or a comparison, of the whole history per request).

    python -m benchmarks.loop               prints the table
    python -m benchmarks.loop --write-page  also writes benchmarks/loop_results.md and
                                            the table on docs/measured/speed.md
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any

from benchmarks.page import ROOT, Region, machine_line
from context_budget import run_agent

__all__ = [
    "GOAL_GROWTH",
    "GUARDS",
    "HOOKS",
    "REGION",
    "RESULTS",
    "SIZES",
    "loop_region",
    "render",
    "time_loop",
    "time_sizes",
]

#: The turns of the two runs compared: ×4.
SIZES = (1_000, 4_000)
#: The most the time may grow from the smaller run to the larger with a hook or the guard.
GOAL_GROWTH = 5.0
#: Runs of each size; the least CPU time counts.
REPEATS = 7
RESULTS = ROOT / "benchmarks" / "loop_results.md"
#: Where the speed page shows the table.
REGION = Region("loop-bench", RESULTS)
_TOOLS = [{"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}]


class _InstantClient:
    """A client that answers every request at once: `turns` tool calls, then the answer."""

    def __init__(self, turns: int) -> None:
        self.turns, self.calls = turns, 0
        self.messages = self

    def create(self, **request: Any) -> dict[str, Any]:
        self.calls += 1
        usage = {"input_tokens": 10, "output_tokens": 5}
        if self.calls > self.turns:
            done = [{"type": "text", "text": "done"}]
            return {"content": done, "stop_reason": "end_turn", "usage": usage}
        path = f"reports/{self.calls}.md"
        call = {
            "type": "tool_use",
            "id": f"t{self.calls}",
            "name": "read_file",
            "input": {"path": path},
        }
        content = [{"type": "text", "text": "Reading the next one."}, call]
        return {"content": content, "stop_reason": "tool_use", "usage": usage}


def _mark_the_newest(request: dict[str, Any]) -> dict[str, Any]:
    """A plan: a breakpoint on the newest message's last block (in place), and automatic caching."""
    newest = request["messages"][-1]
    if isinstance(newest["content"], list):
        newest["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {**request, "cache_control": {"type": "ephemeral"}}


def _as_it_is(history: list[Any]) -> list[Any]:
    return history


#: The three ways to shape a request: name -> run_agent's hook arguments.
HOOKS: dict[str, dict[str, Any]] = {
    "no hook": {},
    "plan=": {"plan": _mark_the_newest},
    "edit_history=": {"edit_history": _as_it_is},
}
#: The two ways to watch the requests, each with every hook: name -> run_agent's arguments.
GUARDS: dict[str, dict[str, Any]] = {
    "none": {},
    "strict=True": {"strict": True},
}
#: A run: (hook, guard), as HOOKS and GUARDS name them.
Run = tuple[str, str]


def time_sizes(
    hooks: dict[str, Any], sizes: tuple[int, ...] = SIZES, *, repeats: int = REPEATS
) -> tuple[float, ...]:
    """The least CPU time of `repeats` runs at each size, in seconds, the sizes taken in turn.

    One run of each size, then the next round: both sizes of a growth see
    the machine as it is in the same minutes, so a busy spell cannot fall on
    one size alone.
    """
    best = [float("inf")] * len(sizes)
    for _ in range(repeats):
        for place, turns in enumerate(sizes):
            best[place] = min(best[place], time_loop(turns, hooks, repeats=1))
    return tuple(best)


def time_loop(turns: int, hooks: dict[str, Any], *, repeats: int = REPEATS) -> float:
    """The least CPU time of `repeats` runs of `turns` rounds, in seconds (the collector off)."""
    best = float("inf")
    for _ in range(repeats):
        client = _InstantClient(turns)
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            run = run_agent(
                "Read every report.",
                _TOOLS,
                {"read_file": lambda call: "x" * 400},
                client=client,
                model="m",
                context_window=10**9,
                compact_ratio=None,
                **hooks,
            )
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
        assert run.text == "done" and len(run.calls) == turns + 1
    return best


def render(timings: dict[Run, tuple[float, ...]], sizes: tuple[int, ...] = SIZES) -> str:
    """The table: one row per hook and guard, seconds at each size, and the growth judged.

    The run with neither a hook nor a guard is the floor, shown but not judged.
    """
    head = " | ".join(f"{size:,} turns (s)" for size in sizes)
    lines = [f"| hook | guard | {head} | growth for ×{sizes[-1] // sizes[0]} turns |"]
    lines.append("|---|---|" + "---:|" * (len(sizes) + 1))
    worst = 0.0
    for (hook, guard), seconds in timings.items():
        growth = seconds[-1] / seconds[0]
        if (hook, guard) != ("no hook", "none"):
            worst = max(worst, growth)
        cells = " | ".join(f"{value:.3f}" for value in seconds)
        shown = guard if guard == "none" else f"`{guard}`"
        lines.append(f"| `{hook}` | {shown} | {cells} | ×{growth:.1f} |")
    verdict = "met" if worst <= GOAL_GROWTH else "missed"
    lines += [
        "",
        f"Goal: with a hook or the guard, at most ×{GOAL_GROWTH:g} for "
        f"×{sizes[-1] // sizes[0]} turns: **{verdict}** (the worst: ×{worst:.1f}).",
        "",
        "Setup: `run_agent` against a client that answers at once, one tool call a turn "
        f"with a 400-character result; the least CPU time of the process over {REPEATS} runs "
        "of each size, the sizes taken in turn, the garbage collector off during a run.",
        "",
        machine_line(),
    ]
    return "\n".join(lines) + "\n"


def loop_region(page_text: str) -> str:
    """The text between the page's loop-bench marker lines."""
    return REGION.read(page_text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loop", description=__doc__)
    parser.add_argument("--write-page", action="store_true")
    args = parser.parse_args(argv)
    timings = {
        (hook, guard): time_sizes({**hooks, **watch})
        for hook, hooks in HOOKS.items()
        for guard, watch in GUARDS.items()
    }
    text = render(timings)
    REGION.show(text, write_page=args.write_page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
