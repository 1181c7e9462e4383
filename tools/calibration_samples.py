"""Write the generated samples of the calibration corpus: encoded, numeric and minified.

The calibration corpus (`src/context_budget/samples/calibration/`) holds, besides
excerpts and texts written for the course, samples of the machine text an agent
reads in tool results: base64 and hex (`encoded-*`), numeric tables and printed
NumPy arrays (`numeric-*`), and minified code (`minified-*`, excerpts of minified
files that packages of the lock ship). The first two are generated from fixed seeds;
running this again rewrites the same bytes, with the NumPy and the packages of the
lock (`tests/test_calibration.py` checks it).

    python tools/calibration_samples.py
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "context_budget" / "samples" / "calibration"


def _random_bytes(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)


def base64_jwt() -> str:
    """Three signed-looking tokens (base64url header.payload.signature), as a log shows them."""
    rng = random.Random(11)
    lines = ["Authorization headers seen by the gateway:", ""]
    for index in range(3):
        header = {"alg": "HS256", "typ": "JWT", "kid": f"key-{rng.randrange(1000):03d}"}
        claims = {
            "sub": f"staff-{rng.randrange(10**6):06d}",
            "name": rng.choice(["Lucy", "Sam", "Priya"]),
            "scope": "till:write freezer:read",
            "iat": 1780000000 + rng.randrange(10**6),
            "exp": 1780086400 + rng.randrange(10**6),
        }
        parts = [json.dumps(part, separators=(",", ":")).encode() for part in (header, claims)]
        parts.append(rng.randbytes(32))
        token = ".".join(base64.urlsafe_b64encode(p).decode().rstrip("=") for p in parts)
        lines.append(f"[{index}] Bearer {token}")
    return "\n".join(lines) + "\n"


def base64_oneline() -> str:
    """A data URI on one line: the base64 of 1,200 random bytes."""
    payload = base64.b64encode(_random_bytes(12, 1200)).decode()
    return f'<img alt="chart" src="data:image/png;base64,{payload}">\n'


def base64_wrapped() -> str:
    """A PEM-style block: 1,000 random bytes in base64, wrapped at 64 characters."""
    body = base64.b64encode(_random_bytes(13, 1000)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return (
        "-----BEGIN ENCRYPTED DATA-----\n" + "\n".join(lines) + "\n-----END ENCRYPTED DATA-----\n"
    )


def hex_digests() -> str:
    """A checksum listing: SHA-256 of made-up file names, as `sha256sum` prints it."""
    rng = random.Random(14)
    lines = []
    for index in range(14):
        name = (
            f"exports/till-{2026}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}-{index}.csv"
        )
        lines.append(f"{hashlib.sha256(name.encode()).hexdigest()}  {name}")
    return "\n".join(lines) + "\n"


def hex_dump() -> str:
    """`xxd`-style output of 384 random bytes: offset, sixteen bytes in hex, the printable ones."""
    data = _random_bytes(15, 384)
    lines = []
    for offset in range(0, len(data), 16):
        row = data[offset : offset + 16]
        pairs = " ".join(row[i : i + 2].hex() for i in range(0, 16, 2))
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{offset:08x}: {pairs}  {shown}")
    return "\n".join(lines) + "\n"


def hex_string() -> str:
    """Transaction-style records: long 0x-prefixed hex fields in JSON lines."""
    rng = random.Random(16)
    lines = []
    for _ in range(5):
        record = {
            "hash": "0x" + rng.randbytes(32).hex(),
            "from": "0x" + rng.randbytes(20).hex(),
            "input": "0x" + rng.randbytes(68).hex(),
            "nonce": hex(rng.randrange(10**4)),
        }
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def numpy_floats() -> str:
    """`print(array)` of a 10 x 6 array of normal draws, as NumPy prints it."""
    import numpy as np

    rng = np.random.default_rng(21)
    return f"{rng.normal(size=(10, 6))}\n"


def numpy_ints() -> str:
    """A NumPy integer array and its repr, as a REPL shows them."""
    import numpy as np

    rng = np.random.default_rng(22)
    counts = rng.integers(0, 500, size=(8, 12))
    return f">>> counts\n{counts!r}\n>>> counts.sum(axis=0)\n{counts.sum(axis=0)!r}\n"


def numpy_masks() -> str:
    """Small 0/1 matrices printed with labels, as a debugging script prints them."""
    import numpy as np

    rng = np.random.default_rng(23)
    parts = []
    for label in ("left", "right", "combined", "expected", "difference"):
        size = int(rng.integers(2, 6))
        matrix = rng.integers(0, 2, size=(size, size)).astype(float)
        parts.append(f"{label}:\n{matrix}")
    return "\n".join(parts) + "\n"


def numpy_scientific() -> str:
    """A float array NumPy prints in scientific notation, and its statistics."""
    import numpy as np

    rng = np.random.default_rng(24)
    values = rng.lognormal(mean=-6, sigma=4, size=(6, 5))
    return (
        f"rates =\n{values}\n"
        f"mean={values.mean():.6e} std={values.std():.6e} max={values.max():.6e}\n"
    )


def table_aligned() -> str:
    """A space-aligned table of readings, as a data frame prints it."""
    rng = random.Random(25)
    lines = [f"{'':>4} {'sensor':>8} {'temp_c':>9} {'humidity':>9} {'door_s':>7} {'kwh':>8}"]
    for row in range(24):
        lines.append(
            f"{row:>4} {'F' + str(rng.randrange(1, 5)):>8} {rng.uniform(-22, -12):>9.3f}"
            f" {rng.uniform(20, 80):>9.2f} {rng.randrange(0, 300):>7d} {rng.uniform(0, 3):>8.4f}"
        )
    return "\n".join(lines) + "\n"


#: Minified code: file name -> (package, file inside it, first character, characters).
#: Each is an excerpt, copied unchanged, of a minified file an installed package of the
#: lock ships (jQuery 3.6.0 and Bootstrap in mkdocs, MIT; mkdocs-material's bundles,
#: MIT); `SOURCES.txt` gives each origin and licence.
MINIFIED = {
    "minified-bootstrap-css.txt": ("mkdocs", "themes/mkdocs/css/bootstrap.min.css", 40_000, 3_000),
    "minified-bootstrap-js.txt": (
        "mkdocs",
        "themes/mkdocs/js/bootstrap.bundle.min.js",
        30_000,
        3_000,
    ),
    "minified-jquery-js.txt": (
        "mkdocs",
        "themes/readthedocs/js/jquery-3.6.0.min.js",
        20_000,
        3_000,
    ),
    "minified-material-bundle-js.txt": (
        "material",
        "templates/assets/javascripts/bundle.a5f9d56c.min.js",
        60_000,
        3_000,
    ),
    "minified-material-search-js.txt": (
        "material",
        "templates/assets/javascripts/workers/search.a7633da7.min.js",
        10_000,
        3_000,
    ),
}


def minified(name: str) -> str:
    """The excerpt `MINIFIED` names, with a newline at its end."""
    import importlib.util

    package, inside, start, size = MINIFIED[name]
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None, package
    text = (Path(spec.origin).parent / inside).read_text(encoding="utf-8")
    return text[start : start + size] + "\n"


#: File name -> the function that writes it.
SAMPLES: dict[str, Callable[[], str]] = {
    "encoded-base64-jwt.txt": base64_jwt,
    "encoded-base64-oneline.txt": base64_oneline,
    "encoded-base64-wrapped.txt": base64_wrapped,
    "encoded-hex-digests.txt": hex_digests,
    "encoded-hex-dump.txt": hex_dump,
    "encoded-hex-string.txt": hex_string,
    "numeric-numpy-floats.txt": numpy_floats,
    "numeric-numpy-ints.txt": numpy_ints,
    "numeric-numpy-masks.txt": numpy_masks,
    "numeric-numpy-scientific.txt": numpy_scientific,
    "numeric-table-aligned.txt": table_aligned,
}


def main() -> None:
    for name, make in SAMPLES.items():
        (OUT / name).write_text(make(), encoding="utf-8")
        print("wrote", name)
    for name in MINIFIED:
        (OUT / name).write_text(minified(name), encoding="utf-8")
        print("wrote", name)


if __name__ == "__main__":
    main()
