"""How many cases a property runs: the Hypothesis profiles of the gate and of the soak.

- ``ci`` (the default; what ``make test`` and CI run): ``CI_CASES`` cases a property,
  drawn from a fixed seed, so the gate gives the same answer on every run.
- ``soak`` (``make soak``; ``HYPOTHESIS_PROFILE=soak``): ``SOAK_CASES`` cases a
  property, from a fresh seed each run; it explores what the gate's fixed cases miss.

The root ``conftest.py`` registers both and loads the one ``HYPOTHESIS_PROFILE``
names (or ``--hypothesis-profile``). A property decorated with plain ``@given``
runs the profile's count. A property whose every case costs far more than most
(a whole simulated experiment, a site page parsed) runs a ``share`` of it:

    @cases(0.25)       # a quarter of the profile's count, never fewer than MIN_CASES
    @given(...)
    def test_...

Example: under ``ci`` ``cases(0.25)`` is 25 cases; under ``soak`` 5,000.
"""

from __future__ import annotations

import os

from hypothesis import settings

CI_CASES = 100
SOAK_CASES = 20_000
MIN_CASES = 10
PROFILE_VARIABLE = "HYPOTHESIS_PROFILE"

__all__ = ["CI_CASES", "MIN_CASES", "SOAK_CASES", "cases", "register_profiles"]


def register_profiles() -> str:
    """Register ``ci`` and ``soak`` and load the one the environment names; return its name.

    Raises:
        ValueError: ``HYPOTHESIS_PROFILE`` names neither profile.
    """
    settings.register_profile("ci", max_examples=CI_CASES, deadline=None, derandomize=True)
    settings.register_profile("soak", max_examples=SOAK_CASES, deadline=None)
    name = os.environ.get(PROFILE_VARIABLE, "ci")
    if name not in {"ci", "soak"}:
        raise ValueError(f"{PROFILE_VARIABLE}={name!r}: the profiles are 'ci' and 'soak'")
    settings.load_profile(name)
    return name


def cases(share: float) -> settings:
    """Settings for a property that runs ``share`` of the loaded profile's count.

    Read when the test module is imported, so the profile must be loaded first
    (the root ``conftest.py`` does it before any test module is collected).

    Raises:
        ValueError: ``share`` is not a number in (0, 1].
    """
    if not 0 < share <= 1:
        raise ValueError(f"share {share!r}: a property runs a share in (0, 1] of the profile")
    count = max(MIN_CASES, round(settings().max_examples * share))  # settings() is the profile's
    return settings(max_examples=count)
