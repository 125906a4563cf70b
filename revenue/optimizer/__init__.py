"""The optimizer: the best legal assignment of routes to a company's trains, with proof.

solve() (revenue.optimizer.solver) answers a request: it enumerates every legal route of each train type
(revenue.core.walk) and searches the best combination by branch and bound (revenue.core.combine); on
boards whose routes are too many to enumerate at once, a heuristic run, an integer program and walks
within a memory cap come first (revenue.optimizer.search). A Cancel stops the searches given it.
"""
from .solver import solve
from ..watchdog import Cancel

__all__ = ["Cancel", "solve"]
