"""What `pip install` puts in site-packages: the package `revenue` only, with the repository's server/,
benchmarks/ and examples/ inside it (revenue.server, revenue.benchmarks, revenue.examples) rather than
top-level `server` and `benchmarks` modules that collide with other projects'; and the page's files."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> list[str]:
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")
    # --no-build-isolation: build with the setuptools of this environment, offline.
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(ROOT)], capture_output=True, text=True, cwd=build,
                          env={**os.environ, "PIP_NO_INDEX": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    wheels = list(out.glob("revenue-*.whl"))
    assert len(wheels) == 1
    return zipfile.ZipFile(wheels[0]).namelist()


def test_only_the_revenue_package_at_the_top(wheel):
    top = {name.split("/")[0] for name in wheel}
    assert {t for t in top if not t.endswith(".dist-info")} == {"revenue"}


@pytest.mark.parametrize("folder, package", [("server", "revenue/server"), ("benchmarks", "revenue/benchmarks"),
                                             ("revenue", "revenue")])
def test_every_module_is_installed(wheel, folder, package):
    modules = {p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).rglob("*.py")}
    assert modules and {f"{package}/{m}" for m in modules} <= set(wheel)


def test_the_page_and_the_examples_are_installed(wheel):
    assert {"revenue/server/page/index.html", "revenue/server/page/app.js", "revenue/server/page/style.css",
            "revenue/server/page/moves.js",
            "revenue/examples/solve_1830.json", "revenue/titles/data/1830.json"} <= set(wheel)
