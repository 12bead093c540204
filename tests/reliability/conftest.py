"""Hypothesis profiles of the reliability tests.

`reliability` (the default) keeps the default test command quick; `HYPOTHESIS_PROFILE=long`
runs ten times as many examples (docs/RELIABILITY.md has the figures and commands). Neither
keeps an example database: a failure prints the example, and `@reproduce_failure` replays it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Examples per property test; schemathesis runs SCHEMATHESIS_EXAMPLES per REST operation.
EXAMPLES = {"reliability": 200, "long": 2000}
SCHEMATHESIS_EXAMPLES = {"reliability": 40, "long": 500}

_common = {
    "deadline": None,
    "database": None,
    "print_blob": True,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
}
for _name, _examples in EXAMPLES.items():
    settings.register_profile(_name, max_examples=_examples, **_common)  # type: ignore[arg-type]

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "reliability")
if PROFILE not in EXAMPLES:
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: use one of {', '.join(EXAMPLES)}")
settings.load_profile(PROFILE)
