"""Any ERROR the server logs fails the test it happened in: a handler or search that raised, a failed
warm-up, a crash in the HTTP stack. The status a client got may be the one the test expects while the
server hit a fault; the log is where that shows.

`ERROR_LOG` holds the ERROR records of the server's loggers in this process, and the ERROR lines of
server processes the tests start (their readers hand them to `ERROR_LOG.add`). The autouse fixture
`no_error_log` (registered in tests/conftest.py) fails a test that leaves any; a test that provokes one on
purpose is marked `@pytest.mark.allow_error_log` (and checks the record itself), or
`@pytest.mark.allow_error_log("text", ...)` to allow only records that contain one of those texts.
"""
from __future__ import annotations

import logging
import threading

import pytest

# The service's logger (and its parent, should it ever log there) and uvicorn's, which logs an exception
# that escapes the HTTP app.
LOGGERS = ("revenue", "revenue.server", "uvicorn.error")
MARKER = "allow_error_log"


class ErrorLog(logging.Handler):
    """The ERROR (and CRITICAL) records of LOGGERS, as text, until taken."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self._guard = threading.Lock()   # not `lock`: logging.Handler holds that one around emit()
        self._found: list[str] = []
        self._last: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        with self._guard:
            if record is self._last:     # one record seen by two of LOGGERS (revenue.server propagating)
                return
            self._last = record
        self.add(f"{record.name} {record.levelname}: {record.getMessage()}")

    def add(self, text: str) -> None:
        """An ERROR line from elsewhere (a server process's log)."""
        with self._guard:
            self._found.append(text)

    def take(self) -> list[str]:
        with self._guard:
            found, self._found = self._found, []
            return found


ERROR_LOG = ErrorLog()
for _name in LOGGERS:
    logging.getLogger(_name).addHandler(ERROR_LOG)


def server_log_line(line: str, where: str) -> None:
    """A line of a server process's log (stderr): an ERROR line goes to ERROR_LOG (server/app.py's
    LogFormat starts each such line with its level's name)."""
    if line.startswith(("ERROR ", "CRITICAL ")):
        ERROR_LOG.add(f"{where}: {line.rstrip()}")


@pytest.fixture(autouse=True)
def no_error_log(request):
    """Fails the test if the server logged an ERROR during it (or since the test before, whose server
    may have logged it while stopping), unless its marker allow_error_log allows it."""
    yield
    found = ERROR_LOG.take()
    marker = request.node.get_closest_marker(MARKER)
    if marker is not None:
        found = [text for text in found if marker.args and not any(allowed in text for allowed in marker.args)]
    if found:
        shown = "\n".join(text[:500] for text in found[:5])
        pytest.fail(f"the server logged {len(found)} ERROR record(s) (mark the test {MARKER} if it provokes "
                    f"them on purpose):\n{shown}", pytrace=False)
