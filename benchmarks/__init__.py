"""Benchmarks: scenario boards per title and the tables that time the optimizer (python -m benchmarks)."""
