"""Numba kernels. They see flat arrays only: no titles, hexes or protobuf (see ../../README.md)."""
