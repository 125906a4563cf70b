"""Hypothesis profiles (see conftest.py): `ci`, the default, and `thorough`, chosen with the environment
variable REVENUE_PROFILE. Property tests size themselves with `examples()`."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SCALE = {"ci": 1, "thorough": 10}

settings.register_profile("ci", deadline=None, print_blob=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=1000)
PROFILE = os.environ.get("REVENUE_PROFILE", "ci")
if PROFILE not in SCALE:
    raise SystemExit(f"REVENUE_PROFILE={PROFILE!r}: the profiles are {', '.join(SCALE)}")
settings.load_profile(PROFILE)


def examples(ci: int, env: str | None = None) -> int:
    """The number of examples of a property test: `ci` in the ci profile, ten times that in the thorough
    one; the environment variable `env`, when set, overrides both."""
    if env and os.environ.get(env):
        return int(os.environ[env])
    return ci * SCALE[PROFILE]
