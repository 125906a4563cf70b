"""The kernels' property tests again with Numba's bounds checks on: compiled code reads and writes arrays
unchecked, so an index past an array's end is a wrong answer or a crash far from its cause (a key count
shared by two lists in core.combine read keys never written: a segmentation fault once in ten soak runs,
and runs short of the optimum called proved). With the checks on it is an IndexError in the test that
reached it.

Kernels compiled with the checks are kept apart from the others (NUMBA_CACHE_DIR: numba's cache does not
tell the two builds apart), in the project's .numba-boundscheck/, so only the first run compiles them."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
KERNEL_TESTS = ["tests/test_combine.py", "tests/test_solve_reference.py", "tests/test_route_rules.py",
                "tests/test_merge_walk.py", "tests/test_steam.py", "tests/test_scale.py",
                "tests/test_graph_build.py"]


# A whole run of the kernel tests in one: minutes, more when the checked kernels compile afresh.
@pytest.mark.timeout(1800)
def test_kernel_property_tests_pass_with_bounds_checks():
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(ROOT / ".numba-boundscheck")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *KERNEL_TESTS],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout
