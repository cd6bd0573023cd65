"""Settings shared by the whole suite (helpers for servers live in the *_fixtures.py modules)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# The suite runs on a shared 2-core machine: no per-example deadline, and a fixed budget.
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", deadline=None, max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
