"""Where the compiled kernels are cached: one directory per user, package version and kernel source, which
every environment of that user finds (a second virtual environment, a reinstall of the same version, a
read-only install).

Numba's own locators key a cache by the source file's path (its __pycache__, or NUMBA_CACHE_DIR/<hash of the
path>), so another environment's copy of the same file compiles again, and a read-only install caches only
in Numba's user directory, again by path. KernelLocator, put first among Numba's locators when this module
is imported (revenue.core imports it before any kernel module), caches this package's kernels in

    <root>/<version>/<folder>-<source hash>/

where root is $NUMBA_CACHE_DIR when set, else $XDG_CACHE_HOME/revenue (~/.cache/revenue), else (when that
cannot be written) revenue-kernels-<user> in the system's temporary directory. Kernels of other packages
keep Numba's locators.

The source hash is one hash over every module of revenue/core (and the kernel's own module, for kernels
elsewhere): a kernel's compiled code holds the code of the kernels it calls from other modules, and Numba's
per-file stamp would not see those change. One hash for all is the simple rule that cannot miss such a
dependency; a change to any kernel compiles them all again (a developer's cost, in a directory of its own, so
checkouts of different kernels do not overwrite each other's cache).
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from pathlib import Path

from numba.core import caching, config

CORE = Path(__file__).resolve().parent
PACKAGE = CORE.parent


@functools.lru_cache(maxsize=None)
def version() -> str:
    """The installed package's version ("unknown" when it runs from a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("revenue")
    except PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=None)
def source_hash(py_file: str) -> str:
    """One hash over the kernel modules of revenue/core and `py_file` (see the module)."""
    own = Path(py_file).resolve()
    if own.parent == CORE:
        return _core_hash()
    return hashlib.sha256(_core_hash().encode() + own.read_bytes()).hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def _core_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(CORE.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_roots() -> list[Path]:
    """The directories tried for the cache, in order."""
    if config.CACHE_DIR:
        return [Path(config.CACHE_DIR)]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return [Path(base) / "revenue", Path(tempfile.gettempdir()) / f"revenue-kernels-{user}"]


def cache_dir(py_file: str) -> Path | None:
    """The directory holding the compiled kernels of the module `py_file` (None: none can be written)."""
    return _writable_dir(os.path.dirname(os.path.abspath(py_file)), source_hash(py_file), config.CACHE_DIR)


@functools.lru_cache(maxsize=None)
def _writable_dir(folder: str, stamp: str, numba_cache_dir: str) -> Path | None:
    name = f"{Path(folder).relative_to(PACKAGE).as_posix().replace('/', '.')}-{stamp}"
    for root in cache_roots():
        path = root / version() / name
        try:
            path.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=path).close()
        except OSError:
            continue
        return path
    return None


def kernels_dir() -> Path | None:
    """The directory of this version's compiled kernels (its subdirectories: one per kernel folder and
    source hash)."""
    path = core_dir()
    return None if path is None else path.parent


def core_dir() -> Path | None:
    """The directory of revenue/core's compiled kernels."""
    return cache_dir(str(CORE / "__init__.py"))


def ours(py_file: str) -> bool:
    """Whether `py_file` is a module of this package."""
    try:
        Path(py_file).resolve().relative_to(PACKAGE)
    except ValueError:
        return False
    return True


class KernelLocator(caching._CacheLocator):
    """Numba's cache locator for this package's kernels (see the module)."""

    def __init__(self, py_func, py_file: str, path: Path):
        self._lineno = py_func.__code__.co_firstlineno
        self._path = str(path)
        self._stamp = source_hash(py_file)

    def ensure_cache_path(self) -> None:
        os.makedirs(self._path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file: str):
        if not os.path.exists(py_file) or not ours(py_file):
            return None
        path = cache_dir(py_file)
        return None if path is None else cls(py_func, py_file, path)


_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl    # (renamed in Numba 0.61)
if KernelLocator not in _IMPL._locator_classes:
    _IMPL._locator_classes.insert(0, KernelLocator)
