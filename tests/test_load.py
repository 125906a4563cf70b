"""The load generator's CPU accounting of the server's processes (benchmarks/load.py)."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from benchmarks.load import Server, cpu_spent, shares

# A parent that forks one child; the child burns CPU, both then wait to be killed.
_TREE = """
import os, sys, time
if os.fork() == 0:
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    print("burnt", flush=True)
else:
    print("forked", flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_cpu_by_process_reads_each_forked_process():
    proc = subprocess.Popen([sys.executable, "-c", _TREE], stdout=subprocess.PIPE, text=True)
    try:
        assert sorted(proc.stdout.readline().strip() for _ in range(2)) == ["burnt", "forked"]
        server = Server.__new__(Server)     # no server started: only its process is looked at
        server.proc = proc
        by_process = server.cpu_by_process()
        assert by_process is not None and list(by_process)[0] == proc.pid and len(by_process) == 2
        child = next(pid for pid in by_process if pid != proc.pid)
        assert by_process[child] >= 0.25 > by_process[proc.pid]
        assert server.cpu_seconds() == pytest.approx(sum(by_process.values()), abs=0.05)
    finally:
        proc.kill()
        proc.wait()
    time.sleep(0.05)
    assert server.cpu_by_process() is None       # the process is gone: /proc does not tell


def test_cpu_spent_and_shares():
    before = {10: 1.0, 11: 2.0}
    after = {10: 4.0, 11: 3.0, 12: 1.0}          # 12 forked during the run
    assert cpu_spent(before, after) == [3.0, 1.0, 1.0]
    assert cpu_spent(before, None) is None
    assert shares([3.0, 1.0, 1.0]) == [0.6, 0.2, 0.2]
    assert shares([0.0, 0.0]) is None
