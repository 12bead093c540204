"""Hypothesis profiles of the whole suite, chosen by `HYPOTHESIS_PROFILE` (docs/RELIABILITY.md).

- `ci` (the default): derandomized. Every run tries the same examples (hypothesis seeds each
  test from its own source), so a red run is a regression of the code, never a new draw, and it
  replays on any machine. What it does not reach, `explore` does.
- `explore`: the same number of examples, drawn afresh each run. A failure prints the example
  and a `@reproduce_failure(...)` line; the fix then belongs in the document, the server or a
  test's `@example`, so that `ci` keeps it.
- `long`: ten times as many examples, drawn afresh (nightly, or before a release).

No profile keeps an example database: nothing depends on what a previous run left behind.
Loaded by tests/conftest.py, so it holds for every hypothesis test, schemathesis' included.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from hypothesis import HealthCheck, settings


@dataclass(frozen=True)
class Profile:
    examples: int  # per property test
    schemathesis_examples: int  # per REST operation (plus schemathesis' coverage cases)
    derandomize: bool


PROFILES = {
    "ci": Profile(200, 40, derandomize=True),
    "explore": Profile(200, 40, derandomize=False),
    "long": Profile(2000, 500, derandomize=False),
}
ENV = "HYPOTHESIS_PROFILE"

for _name, _profile in PROFILES.items():
    settings.register_profile(
        _name,
        max_examples=_profile.examples,
        derandomize=_profile.derandomize,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )

NAME = os.environ.get(ENV) or "ci"
if NAME not in PROFILES:
    raise RuntimeError(f"{ENV}={NAME!r}: use one of {', '.join(PROFILES)}")
PROFILE = PROFILES[NAME]
settings.load_profile(NAME)
