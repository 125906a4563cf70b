"""The titles this project knows. Each is one module with a Title subclass (rules) and a data file."""
from .registry import TITLES, get_title

__all__ = ["TITLES", "get_title"]
