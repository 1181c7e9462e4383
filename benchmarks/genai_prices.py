"""`python -m benchmarks.genai_prices`: the table of models beside genai-prices.

[genai-prices](https://github.com/pydantic/genai-prices) is the price table
Pydantic keeps for LLM APIs, with a Python package that prices a call. This
module installs the pinned version into a virtual environment of its own
(`.cache/genai-prices`, from PyPI on first use), asks it what one call costs on
each model of `context_budget.models.MODELS` (`CALL`, at `AT`), and prints its
answer beside the package's own `cost`. A model it does not know is a row with
no price. The call is small, under every long-context threshold, so the rows
compare list rates.

    python -m benchmarks.genai_prices          prints the comparison
    python -m benchmarks.genai_prices --write  also writes genai-prices' answers to
                                               benchmarks/genai_prices.json, which
                                               the prices page compares with the table
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.page import ROOT, write_atomic
from benchmarks.peer import TIMEOUT_SECONDS, PeerError

__all__ = ["AT", "CALL", "GENAI_PRICES_VERSION", "RECORD", "ensure_genai_prices", "main", "ours"]

GENAI_PRICES_VERSION = "0.2.5"
CACHE = ROOT / ".cache" / "genai-prices"
#: Where `--write` keeps genai-prices' answers, with the call and the moment they price.
RECORD = ROOT / "benchmarks" / "genai_prices.json"
#: The moment every call is priced at (a weekday noon in UTC: off DeepSeek's peak hours).
AT = datetime(2026, 12, 1, 12, tzinfo=UTC)
#: One call, in tokens: uncached input, 5-minute cache writes, cache reads and output.
CALL = {"uncached": 20_000, "written": 10_000, "read": 10_000, "output": 10_000}

# Run by the virtual environment's Python: reads [[model, provider], ...] on stdin,
# prints {model: [usd, the model genai-prices matched] or [null, why]}.
_PEER = """
import json, sys
from datetime import datetime
from genai_prices import Usage, calc_price
call, at, rows = json.load(sys.stdin)
usage = Usage(
    input_tokens=call["uncached"] + call["written"] + call["read"],
    cache_write_tokens=call["written"], cache_read_tokens=call["read"],
    output_tokens=call["output"],
)
answers = {}
for model, provider in rows:
    try:
        price = calc_price(usage, model, provider_id=provider,
                           genai_request_timestamp=datetime.fromisoformat(at))
        answers[model] = [float(price.total_price), price.model.id]
    except LookupError as error:
        answers[model] = [None, type(error).__name__]
print(json.dumps(answers))
"""


def ensure_genai_prices(folder: Path = CACHE) -> Path:
    """The Python of a virtual environment holding the pinned genai-prices (pip, first use)."""
    python = folder / "bin" / "python"
    if not python.is_file():
        venv.create(folder, with_pip=True)
    check = [str(python), "-c", "import importlib.metadata as m; print(m.version('genai-prices'))"]
    found = subprocess.run(check, capture_output=True, text=True, check=False)
    if found.stdout.strip() != GENAI_PRICES_VERSION:
        pin = f"genai-prices=={GENAI_PRICES_VERSION}"
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", pin],
            capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise PeerError(f"pip could not install {pin}: {last}")
    return python


def ours() -> dict[str, float]:
    """Model id -> what `cost` charges for `CALL` at `AT`, in USD."""
    from context_budget import Usage, cost
    from context_budget.models import MODELS

    usage = Usage(
        input_tokens=CALL["uncached"],
        output_tokens=CALL["output"],
        cache_creation_input_tokens=CALL["written"],
        cache_read_input_tokens=CALL["read"],
    )
    return {model_id: cost(usage, model, at=AT).total for model_id, model in MODELS.items()}


def theirs(python: Path) -> dict[str, list[Any]]:
    """Model id -> [genai-prices' USD or None, the model it matched or why not]."""
    from context_budget.models import MODELS

    rows = [[model_id, model.provider] for model_id, model in MODELS.items()]
    done = subprocess.run(
        [str(python), "-c", _PEER],
        input=json.dumps([CALL, AT.isoformat(), rows]),
        capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PeerError(f"genai-prices failed: {last}")
    answers: dict[str, list[Any]] = json.loads(done.stdout)
    return answers


def render(mine: dict[str, float], peer: dict[str, list[Any]]) -> str:
    """One line a model: the package's price, genai-prices', and whether they agree."""
    lines = [f"{'model':24} {'ours, $':>9} {'genai-prices, $':>16}"]
    for model_id, usd in mine.items():
        other, matched = peer[model_id]
        shown = "-" if other is None else f"{other:.6f}"
        same = other is not None and round(other, 6) == round(usd, 6)
        lines.append(f"{model_id:24} {usd:9.6f} {shown:>16}  {'same' if same else matched}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.genai_prices", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--write", action="store_true", help=f"also write {RECORD.name}")
    args = parser.parse_args(argv)
    peer = theirs(ensure_genai_prices())
    sys.stdout.write(render(ours(), peer))
    if args.write:
        record = {
            "genai_prices": GENAI_PRICES_VERSION,
            "at": AT.isoformat(),
            "call": CALL,
            "prices": peer,
        }
        write_atomic(RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
