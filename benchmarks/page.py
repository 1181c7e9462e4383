"""The results files and the page regions that show them.

``docs/measured/speed.md`` holds each benchmark's last table between two marker
lines of its own (``<!-- NAME:start -->`` and ``<!-- NAME:end -->``). A
``Region`` names one such pair and its results file: ``read`` takes the table
back from the page, so a test can check that the page shows exactly what the
results file holds, ``replace`` rewrites it, and ``publish`` writes both files.
Files are written with the package's one writer, ``write_atomic``: whole or not at all,
with the mode a plain write gives.
"""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# private on purpose: the package's one way to write a file, which the tools share
from context_budget._files import write_atomic

__all__ = [
    "END",
    "PAGE",
    "RESULTS",
    "START",
    "Region",
    "machine_line",
    "page_region",
    "replace_region",
    "write_atomic",
]

ROOT = Path(__file__).resolve().parent.parent
#: The results of the last full run, committed.
RESULTS = ROOT / "benchmarks" / "results.md"
#: The page that shows them.
PAGE = ROOT / "docs" / "measured" / "speed.md"


@dataclass(frozen=True)
class Region:
    """One benchmark's table: where the page shows it, and the results file it copies."""

    #: The markers' name: ``bill-bench`` stands for ``<!-- bill-bench:start -->`` and
    #: ``<!-- bill-bench:end -->``.
    name: str
    results: Path
    page: Path = PAGE

    @property
    def start(self) -> str:
        return f"<!-- {self.name}:start -->"

    @property
    def end(self) -> str:
        return f"<!-- {self.name}:end -->"

    def _match(self, page_text: str) -> re.Match[str]:
        # subtle: a marker counts only alone on its line, so quoting one in a code block
        # is harmless
        pattern = re.compile(
            rf"^{re.escape(self.start)}[ \t]*\n(?P<body>.*?)^{re.escape(self.end)}[ \t]*$",
            re.MULTILINE | re.DOTALL,
        )
        found = list(pattern.finditer(page_text))
        if len(found) != 1:
            raise ValueError(
                f"expected one region between {self.start} and {self.end} lines, found {len(found)}"
            )
        return found[0]

    def read(self, page_text: str) -> str:
        """The text between the page's marker lines (the table of the last run)."""
        return self._match(page_text)["body"]

    def replace(self, page_text: str, body: str) -> str:
        """``page_text`` with the text between its marker lines replaced by ``body``."""
        match = self._match(page_text)
        body = body if body.endswith("\n") else body + "\n"
        return page_text[: match.start("body")] + body + page_text[match.end("body") :]

    def publish(self, text: str, *, page: bool) -> None:
        """Write ``text`` to the results file and, with ``page``, into the page's region."""
        write_atomic(self.results, text)
        if page:
            write_atomic(self.page, self.replace(self.page.read_text(encoding="utf-8"), text))

    def show(self, text: str, *, write_page: bool) -> None:
        """Print a benchmark's table; with ``write_page``, also write it to the results file
        and the page (``publish``) and say so on stderr."""
        print(text, end="")
        if write_page:
            self.publish(text, page=True)
            print(f"wrote {self.results} and the table on {self.page}", file=sys.stderr)


#: The table of `python -m benchmarks` (`make bench`).
SPEED = Region("bench", RESULTS)
START, END = SPEED.start, SPEED.end


def page_region(page_text: str) -> str:
    """The text between the page's bench marker lines (the table of the last run)."""
    return SPEED.read(page_text)


def replace_region(page_text: str, body: str) -> str:
    """``page_text`` with the text between its bench marker lines replaced by ``body``."""
    return SPEED.replace(page_text, body)


def machine_line(*tools: str, load: tuple[float, float] = (0.0, 0.0)) -> str:
    """The machine line under a benchmark's table: the architecture, cores, system and
    Python, each of `tools` (e.g. `"Node.js 20.20.2"`), the day (UTC) and, where given,
    the machine's load average when the runs began and ended."""
    named = "".join(f", {tool}" for tool in tools)
    today = time.strftime("%Y-%m-%d", time.gmtime())
    said = f", load average {load[0]:.1f} when the runs began and {load[1]:.1f} when they ended"
    return (
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()}, "
        f"Python {platform.python_version()}{named}, run on {today}{said if any(load) else ''}."
    )
