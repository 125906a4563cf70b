"""Hypothesis profiles and a seed printed on every run, so that a failure found by chance replays with one
command.

Profiles (tests/profiles.py; environment variable REVENUE_PROFILE):
- `ci` (the default): the example counts the property tests declare through `examples()`, sized so the
  whole suite stays within CI's few minutes on two cores.
- `thorough`: ten times as many examples, for a long local run:
  REVENUE_PROFILE=thorough .venv/bin/python -m pytest

Seed: every run forces one Hypothesis seed for all tests, printed in the header and again in the summary
(random unless given). Replay a run with .venv/bin/python -m pytest --hypothesis-seed=N (add the
failing test's node id to replay only it), or set REVENUE_HYPOTHESIS_SEED=N.
"""
from __future__ import annotations

import os
import random

from hypothesis import core, settings

from . import hits, profiles  # noqa: F401  (profiles registers and loads the profile)
from .error_log import MARKER, no_error_log  # noqa: F401  (an autouse fixture: the server's ERRORs fail a test)

_SEED: list[int] = []


def pytest_configure(config):
    config.addinivalue_line("markers", f"{MARKER}(*texts): the test provokes an ERROR in the server's log on purpose "
                            "(only records containing one of `texts`, when given)")
    given = config.getoption("--hypothesis-seed", None)
    if given is None:
        given = os.environ.get("REVENUE_HYPOTHESIS_SEED")
    seed = int(given) if given is not None else random.SystemRandom().randrange(2**32)
    core.global_force_seed = seed
    _SEED[:] = [seed]


def pytest_report_header(config):
    return [f"hypothesis profile {settings.get_current_profile_name()!r}, seed {_SEED[0]} "
            f"(replay: .venv/bin/python -m pytest --hypothesis-seed={_SEED[0]})"]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hits.RATES:
        terminalreporter.section("rule hit rates (share of boards where taking the rule out changes the optimum) "
                                 "and board mix")
        for rule, (hit, boards) in sorted(hits.RATES.items()):
            terminalreporter.write_line(f"{rule:40s} {hit:4d} / {boards:<4d} {hit / boards:6.0%}")
    terminalreporter.write_line(
        f"hypothesis profile {settings.get_current_profile_name()!r}, seed {_SEED[0]}: replay with "
        f".venv/bin/python -m pytest --hypothesis-seed={_SEED[0]}")
