"""Errors the library raises on bad input, each naming the offending field.

The service maps InputError to INVALID_ARGUMENT with a google.rpc.BadRequest listing every violation;
the command line prints the same lines. Nothing else should reach a user as a traceback.
"""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: one or more (field, description) violations, e.g.
    ("board.tiles[3].rotation", "7 is not in 0..5")."""

    def __init__(self, field: str, description: str, more: list[tuple[str, str]] | None = None):
        self.violations = [(field, description)] + list(more or [])
        super().__init__("; ".join(f"{f}: {d}" if f else d for f, d in self.violations))

    @property
    def field(self) -> str:
        return self.violations[0][0]

    @property
    def description(self) -> str:
        return self.violations[0][1]

    def within(self, prefix: str) -> "InputError":
        """The same error with every field path put under `prefix` (e.g. "request")."""
        moved = [(f"{prefix}.{f}" if f else prefix, d) for f, d in self.violations]
        return InputError(moved[0][0], moved[0][1], moved[1:])
