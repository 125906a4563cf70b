"""Errors the library raises on bad input, each naming the offending field.

The service maps InputError to INVALID_ARGUMENT with a google.rpc.BadRequest listing every violation;
the command line prints the same lines. Nothing else should reach a user as a traceback.
"""
from __future__ import annotations

# An error names its field and quotes at most a short prefix of a bad value, so that what reaches a
# client (a gRPC status detail travels in metadata, which is small) or a log stays small whatever came in.
MAX_FIELD_CHARS = 200
MAX_DESCRIPTION_CHARS = 500
QUOTE_CHARS = 80
MAX_VIOLATIONS = 50


def clip(text: str, most: int) -> str:
    """`text` cut to at most `most` characters, the cut marked with "..."."""
    return text if len(text) <= most else text[:most - 3] + "..."


def short_repr(value) -> str:
    """A value quoted for an error message, cut to a short prefix (a long string says its length)."""
    if isinstance(value, str) and len(value) > QUOTE_CHARS:
        return repr(value[:QUOTE_CHARS - 20]) + f"... ({len(value)} characters)"
    return clip(repr(value), QUOTE_CHARS)


class InputError(ValueError):
    """Bad input: one or more (field, description) violations, e.g.
    ("board.tiles[3].rotation", "7 is not in 0..5")."""

    def __init__(self, field: str, description: str, more: list[tuple[str, str]] | None = None):
        given = [(field, description)] + list(more or [])
        self.violations = [(clip(str(f), MAX_FIELD_CHARS), clip(str(d), MAX_DESCRIPTION_CHARS))
                           for f, d in given[:MAX_VIOLATIONS]]
        if len(given) > MAX_VIOLATIONS:
            self.violations.append(("", f"and {len(given) - MAX_VIOLATIONS} more violations"))
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


class Interrupted(Exception):
    """A computation stopped by its deadline or a cancel before it had an answer to give."""
