"""Numba kernels. They see flat arrays only: no titles, hexes or protobuf (see ../../README.md)."""
# (first: its cache locator must be in place before any kernel is defined)
from . import kernel_cache  # noqa: F401
