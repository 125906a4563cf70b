"""The `revenue` command line (entry point `revenue.cli:main`)."""
from .main import main

__all__ = ["main"]
