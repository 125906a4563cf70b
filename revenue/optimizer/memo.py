"""What the optimizer derives from a problem alone, kept with the problem: a problem is remembered per
graph and company and never changes, so each of these is computed once, when first asked for, by the
function named beside it."""
from __future__ import annotations

from ..problem import Problem


class Memo:
    """One problem's derived values, each None (or an empty dict) until its function first computes it."""

    __slots__ = ("reachable", "route_parents", "kernel_arguments", "walk_arguments", "sorted_adjacency",
                 "detour_arrays", "type_bounds", "shared_bounds", "joint_bound", "exit_counts", "passable")

    def __init__(self) -> None:
        self.reachable = None           # adjacency.reachable
        self.route_parents = None       # trains.route_parents
        self.kernel_arguments: dict = {}    # trains.kernel_arguments, by (train, weights)
        self.walk_arguments: dict = {}      # the same, by (TrainSpec.walk, weights): shared by types that walk alike
        self.sorted_adjacency: dict = {}    # adjacency.sorted_adjacency, by train
        self.detour_arrays: dict = {}       # moves.detour_arrays, by train
        self.type_bounds: dict = {}         # relax.type_bounds, by (weights, ends_apart)
        self.shared_bounds: dict = {}       # relax.shared_bounds, by weights
        self.joint_bound: dict = {}         # relax.joint_bound, by weights
        self.exit_counts = None         # relax.exit_counts
        self.passable = None            # relax.passable


def memo(problem: Problem) -> Memo:
    """The problem's Memo, made when first asked for."""
    out = problem.memo
    if out is None:
        out = problem.memo = Memo()
    return out
