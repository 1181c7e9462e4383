"""``python -m benchmarks``: run every benchmark, print the table, write the results.

python -m benchmarks               full run; writes benchmarks/results.md
python -m benchmarks --write-page  the same, and rewrites the table on docs/measured/speed.md
python -m benchmarks --quick       small sizes, one call each; writes nothing unless --out
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.measure import QUICK_SIZES, SIZES, measure
from benchmarks.page import PAGE, RESULTS, replace_region, write_atomic
from benchmarks.report import render


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"sizes {QUICK_SIZES} only, one call each"
    )
    parser.add_argument(
        "--out", type=Path, help=f"where to write the results (default {RESULTS}, full runs only)"
    )
    parser.add_argument(
        "--write-page", action="store_true", help=f"also rewrite the table region of {PAGE}"
    )
    args = parser.parse_args(argv)
    if args.quick and args.write_page:
        parser.error("--write-page publishes a full run only; drop --quick")

    started = time.perf_counter()
    log = (lambda line: None) if args.quick else (lambda line: print(line, file=sys.stderr))
    timings = measure(QUICK_SIZES, repeats=1, log=log) if args.quick else measure(SIZES, log=log)
    text = render(timings)
    print(text, end="")

    out = args.out if args.out is not None else (None if args.quick else RESULTS)
    if out is not None:
        write_atomic(out, text)
        print(f"wrote {out}", file=sys.stderr)
    if args.write_page:
        write_atomic(PAGE, replace_region(PAGE.read_text(encoding="utf-8"), text))
        print(f"wrote the table on {PAGE}", file=sys.stderr)
    elif out == RESULTS:
        print(f"{PAGE} not updated: run with --write-page to show this run", file=sys.stderr)
    print(f"benchmarks took {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
