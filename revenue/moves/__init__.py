"""What a company may do next on the board: every legal tile lay and station token as the 18xx.games engine
allows them (lays, tokens), and each valued by the best run it makes possible (value)."""
from .lays import legal_lays
from .tokens import legal_tokens
from .value import value_lays, value_tokens

__all__ = ["legal_lays", "legal_tokens", "value_lays", "value_tokens"]
