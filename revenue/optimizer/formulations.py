"""The integer program's two formulations (revenue.optimizer.program): over the chains (PathProgram) and,
where plain track branches and the chains between two nodes are many, over the track's tile paths
(TrackProgram); new_program chooses. Both apply when the routes' worth is a plain sum (applies).
"""
from __future__ import annotations

import numpy as np

from ..core.track import END_EDGE, END_NODE, TERM_INNER
from ..problem import Problem
from .program import Program

# HiGHS's presolve, which no time limit interrupts, takes longer than the solve itself on programs of
# more nonzeros than this (each key row holding hundreds of chains)
PRESOLVE_MOST_NONZEROS = 100_000
# Beyond this many nonzeros the program over the chains gives way to the one over the track: where chains
# are few, the program over them is the faster, its bound without cuts the tighter
TRACK_FROM_NONZEROS = 100_000


def applies(problem: Problem, allowed: np.ndarray, weights: tuple[int, int]) -> bool:
    """Whether the program models every legal run: the routes' worth is a plain sum (every type simple,
    revenue.problem.TrainSpec.simple), one distance row holds every reachable node, each visit costs one,
    the objective is revenue alone (weights (1, 0)), and no run rule needs the routes connected."""
    if weights != (1, 0) or problem.run.connected:
        return False
    for t in problem.company.trains:
        spec = problem.specs[t.name]
        if len(spec.row_visit) != 1 or not spec.simple or (spec.row[allowed] != 0).any():
            return False
    return bool((problem.cost[allowed] == 1).all())


class PathProgram(Program):
    """The program over the chains: per train a column x[t, c] for each chain c between reachable nodes
    that no other chain between its nodes dominates (undominated); per track key, the chains holding it
    are taken once among all trains (and within a route). A cycle's cut (_cut): a route's chains among
    its nodes number at most its visits there less one; the cuts of node pairs joined by several chains
    and of triangles are there from the start."""

    def __init__(self, problem: Problem, allowed: np.ndarray, adj):
        super().__init__(problem, allowed)
        self.adj = adj
        self.ends = ends = usable_chains(problem, allowed, adj)
        self.chains = undominated(problem.chain_keys, ends)
        self.x = self.track = []
        for name in self.trains:
            x = self._columns([0.0] * len(self.chains))
            self.x.append(x)
            incident: list[list[int]] = [[] for _ in self.nodes]
            for i, c in enumerate(self.chains):
                a, b = ends[c]
                incident[self.position[a]].append(int(x[i]))
                incident[self.position[b]].append(int(x[i]))
            self._node_rows(name, incident)
        keys = problem.chain_keys[self.chains] if self.chains else np.zeros((0, problem.words), np.uint64)
        bits = np.unpackbits(keys.view(np.uint8), axis=1, bitorder="little").astype(bool)
        for k in np.nonzero(bits.any(axis=0))[0]:
            holders = np.nonzero(bits[:, k])[0]
            index = [int(self.x[t][i]) for t in range(len(self.trains)) for i in holders]
            if len(index) > 1:
                self._row(index, [1.0] * len(index), -self.inf, 1.0)
        # the cuts of the shortest cycles from the start: two nodes joined by several chains, triangles
        neighbours: dict[int, set[int]] = {}
        pairs: dict[tuple[int, int], int] = {}
        for c in self.chains:
            a, b = ends[c]
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
        for (a, b), count in pairs.items():
            if count > 1:
                self._cut({a, b})
        for a, b in pairs:
            for c in neighbours[a] & neighbours[b]:
                if c > b:
                    self._cut({a, b, c})
        self._symmetry_rows()
        if self.h.getNumNz() > PRESOLVE_MOST_NONZEROS:
            self.h.setOptionValue("presolve", "off")

    def _cut(self, nodes: set[int]) -> None:
        """For every train: its chains among `nodes` number at most its visits there less one, whichever
        node w of them is left out (x(S) <= z(S) - z(w): a route is a path, so its chains in S form a
        forest on the nodes it visits there)."""
        inside = [i for i, c in enumerate(self.chains) if self.ends[c][0] in nodes and self.ends[c][1] in nodes]
        places = [self.position[v] for v in nodes]
        for t in range(len(self.trains)):
            for w in places:
                index = [int(self.x[t][i]) for i in inside] + [int(self.z[t][i]) for i in places if i != w]
                self._row(index, [1.0] * len(inside) + [-1.0] * (len(places) - 1), -self.inf, 0.0)

    def _clashing(self, taken: np.ndarray) -> np.ndarray:
        """Per chain column: whether the chain shares a track key with `taken`."""
        keys = self.problem.chain_keys[self.chains] if self.chains else np.zeros((0, self.problem.words), np.uint64)
        return (keys & taken).any(axis=1)

    def _read(self, values: np.ndarray) -> tuple[list[set[int]], list[tuple[list[int], list[int]]]]:
        """The node sets of the solution's cycles, and per train its path from one end (nodes, chains)."""
        cycles, paths = [], []
        for t in range(len(self.trains)):
            taken = [c for i, c in enumerate(self.chains) if values[self.x[t][i]] > 0.5]
            ends = [v for i, v in enumerate(self.nodes) if values[self.e[t][i]] > 0.5]
            at: dict[int, list[int]] = {}
            for c in taken:
                for v in self.ends[c]:
                    at.setdefault(v, []).append(c)
            left = set(taken)
            nodes, chains = [], []
            if ends:
                v = ends[0]
                nodes.append(v)
                while True:
                    nxt = [c for c in at.get(v, []) if c in left]
                    if not nxt:
                        break
                    left.discard(nxt[0])
                    a, b = self.ends[nxt[0]]
                    v = b if v == a else a
                    chains.append(nxt[0])
                    nodes.append(v)
            paths.append((nodes, chains))
            while left:         # what is left are cycles
                c = left.pop()
                seen, todo = set(self.ends[c]), list(self.ends[c])
                while todo:
                    v = todo.pop()
                    for d in at.get(v, []):
                        if d in left:
                            left.discard(d)
                            for w in self.ends[d]:
                                if w not in seen:
                                    seen.add(w)
                                    todo.append(w)
                cycles.append(seen)
        return cycles, paths


class TrackProgram(Program):
    """The program over the track itself: per train a column for each tile path (y) of the chains, and
    for each junction its passes (w), instead of a column per chain. Where plain track branches, the
    chains between two nodes are many, the paths few. A route takes the paths of its chains: at a hex side
    as many of one hex's paths as of the other's, at a junction an even number, at a node 2 z - e; a
    side (or a path without one) is taken once among all trains. Every legal run is a solution, so the
    bound stands; a solution may join paths that no chain joins (gauges, terminal paths), so its routes
    are the chains made of a train's paths, walked by the route kernel.

    A solution's train may also take closed loops apart from its route; a loop through a node is cut
    (_cut), and the program solved again."""

    def __init__(self, problem: Problem, allowed: np.ndarray, adj):
        super().__init__(problem, allowed)
        graph = problem.graph
        self.adj = adj
        usable = usable_chains(problem, allowed, adj)
        kept = undominated(problem.chain_keys, usable)
        chain_start, chain_paths = graph.chain_start, graph.chain_paths
        self.paths = paths = np.unique(np.concatenate(
            [chain_paths[chain_start[c]:chain_start[c + 1]] for c in kept] or [np.zeros(0, np.int64)]))
        # the track's points: the nodes first (their positions), then hex sides and junctions
        point: dict[tuple, int] = {("node", v): i for i, v in enumerate(self.nodes)}
        kind0, val0, kind1, val1 = graph.ends
        side, path_hex = graph.sides.side, graph.path_hex
        sides: dict[int, dict[int, list[int]]] = {}       # side point -> hex -> its paths there
        junctions: dict[int, list[int]] = {}
        edgeless = []
        self.path_ends = []
        for i, p in enumerate(paths.tolist()):
            h = int(path_hex[p])
            pair = []
            for kind, val in ((int(kind0[p]), int(val0[p])), (int(kind1[p]), int(val1[p]))):
                if kind == END_NODE:
                    pair.append(point[("node", val)])
                elif kind == END_EDGE:
                    q = point.setdefault(("side", int(side[6 * h + val])), len(point))
                    sides.setdefault(q, {}).setdefault(h, []).append(i)
                    pair.append(q)
                else:
                    q = point.setdefault(("junction", h, val), len(point))
                    junctions.setdefault(q, []).append(i)
                    pair.append(q)
            if kind0[p] != END_EDGE and kind1[p] != END_EDGE:
                edgeless.append(i)
            self.path_ends.append(tuple(pair))
        self.y = self.track = []
        for name in self.trains:
            y = self._columns([0.0] * len(paths))
            self.y.append(y)
            incident: list[list[int]] = [[] for _ in self.nodes]
            for i, (a, b) in enumerate(self.path_ends):
                for q in (a, b):
                    if q < len(self.nodes):
                        incident[q].append(int(y[i]))
            self._node_rows(name, incident)
            for by_hex in sides.values():
                if len(by_hex) != 2:       # (a side with one hex's paths: no chain crosses it)
                    for members in by_hex.values():
                        for i in members:
                            self.h.changeColBounds(int(y[i]), 0.0, 0.0)
                    continue
                first, second = by_hex.values()
                self._row([int(y[i]) for i in first + second], [1.0] * len(first) + [-1.0] * len(second), 0.0, 0.0)
            for members in junctions.values():
                w = int(self._columns([0.0], [len(members) // 2])[0])
                self._row([int(y[i]) for i in members] + [w], [1.0] * len(members) + [-2.0], 0.0, 0.0)
        trains = range(len(self.trains))
        for by_hex in sides.values():
            members = next(iter(by_hex.values()))
            index = [int(self.y[t][i]) for t in trains for i in members]
            if len(index) > 1:
                self._row(index, [1.0] * len(index), -self.inf, 1.0)
        if len(self.trains) > 1:
            for i in edgeless:
                self._row([int(self.y[t][i]) for t in trains], [1.0] * len(self.trains), -self.inf, 1.0)
        self._symmetry_rows()
        # which chains (usable ones) are made of which program paths, to read a solution's routes
        chains = np.array(sorted(usable), dtype=np.int64)
        lengths = chain_start[chains + 1] - chain_start[chains]
        entries = np.concatenate([chain_paths[chain_start[c]:chain_start[c + 1]] for c in chains.tolist()]
                                 or [np.zeros(0, np.int64)])
        lookup = np.full(len(path_hex), -1, dtype=np.int64)
        lookup[paths] = np.arange(len(paths))
        self.chain_list, self.entry_chain, self.entry_column = chains, np.repeat(np.arange(len(chains)), lengths), \
            lookup[entries]

    def _cut(self, cycle: set[int]) -> None:
        """For every train and node v among the points `cycle`: the train's paths leaving the points and
        its ends among them number at least 2 z_v (a route through v with no end there enters and leaves
        the set, with one end there it leaves it)."""
        leaving = [i for i, (a, b) in enumerate(self.path_ends) if (a in cycle) != (b in cycle)]
        places = [q for q in cycle if q < len(self.nodes)]
        for t in range(len(self.trains)):
            base = [int(self.y[t][i]) for i in leaving] + [int(self.e[t][q]) for q in places]
            coef = [1.0] * (len(leaving) + len(places))
            for q in places:
                self._row(base + [int(self.z[t][q])], coef + [-2.0], 0.0, self.inf)

    def _clashing(self, taken: np.ndarray) -> np.ndarray:
        """Per path column: whether every chain made with the path shares a track key with `taken` (a
        path some other chain takes stays free)."""
        clash = (self.problem.chain_keys[self.chain_list] & taken).any(axis=1)
        free = (self.entry_column >= 0) & ~clash[self.entry_chain]
        return np.bincount(self.entry_column[free], minlength=len(self.paths)) == 0

    def _read(self, values: np.ndarray) -> tuple[list[set[int]], list[tuple[list[int], list[int]]]]:
        """The point sets of the solution's loops through a node apart from its routes, and per train
        the chains made of its paths (no node order: better() walks them)."""
        cycles, paths = [], []
        for t in range(len(self.trains)):
            used = values[self.y[t]] > 0.5
            at: dict[int, list[int]] = {}
            for i in np.nonzero(used)[0].tolist():
                a, b = self.path_ends[i]
                at.setdefault(a, []).append(b)
                at.setdefault(b, []).append(a)
            ends = {q for q in range(len(self.nodes)) if values[self.e[t][q]] > 0.5}
            seen: set[int] = set()
            for q in at:
                if q in seen:
                    continue
                part, todo = {q}, [q]
                while todo:
                    for r in at[todo.pop()]:
                        if r not in part:
                            part.add(r)
                            todo.append(r)
                seen |= part
                if not part & ends and any(r < len(self.nodes) for r in part):
                    cycles.append(part)
            missing = np.bincount(self.entry_chain, weights=(self.entry_column < 0) | ~used[self.entry_column],
                                  minlength=len(self.chain_list))
            chains = self.chain_list[missing == 0].tolist()
            paths.append(([], chains))
        return cycles, paths


def usable_chains(problem: Problem, allowed: np.ndarray, adj) -> dict[int, tuple[int, int]]:
    """chain -> its two nodes (the lower first), of the chains a route may take between reachable nodes
    (not those terminal inside)."""
    start, chain, other, flags = adj
    ends: dict[int, tuple[int, int]] = {}
    for v in np.nonzero(allowed)[0]:
        for e in range(start[v], start[v + 1]):
            o = int(other[e])
            if allowed[o] and o != v and not flags[e] & TERM_INNER:   # (no route takes the others)
                ends[int(chain[e])] = (min(int(v), o), max(int(v), o))
    return ends


# The test of undominated is quadratic in the chains between two nodes: past DOMINANCE_GROUP of them they
# are all kept (the program is larger, its optimum the same), and it holds DOMINANCE_BLOCK words at a time.
DOMINANCE_GROUP = 256
DOMINANCE_BLOCK = 1 << 21


def undominated(chain_keys: np.ndarray, ends: dict[int, tuple[int, int]]) -> list[int]:
    """The chains (of `ends`: chain -> its two nodes) that no other chain between the same two nodes
    dominates (its keys a subset of theirs; of equal ones, the first): a run taking a dominated chain
    may take the other instead, with the same stops and no key more, so the program's optimum stands."""
    by_pair: dict[tuple[int, int], list[int]] = {}
    for c in sorted(ends):
        by_pair.setdefault(ends[c], []).append(c)
    kept = []
    for group in by_pair.values():
        if len(group) == 1 or len(group) > DOMINANCE_GROUP:
            kept += group
            continue
        keys = chain_keys[group]
        # within[i, j]: chain j's keys are all chain i's (in blocks of rows: the test takes g * g * words)
        g = len(group)
        rows = max(1, DOMINANCE_BLOCK // (g * keys.shape[1]))
        within = np.empty((g, g), dtype=np.bool_)
        for r in range(0, g, rows):
            within[r:r + rows] = ((keys[None, :, :] & ~keys[r:r + rows, None, :]) == 0).all(axis=2)
        same = within & within.T
        # dominated by a chain of fewer keys, or by an earlier chain of the same keys
        dropped = (within & ~same).any(axis=1) | np.tril(same, -1).any(axis=1)
        kept += [c for c, out in zip(group, dropped.tolist()) if not out]
    return sorted(kept)



def chain_nonzeros(problem: Problem, allowed: np.ndarray, adj) -> int:
    """About the nonzeros of the program over the chains: its key rows hold each undominated chain once
    per track key and train (most of them on a board of many parallel chains)."""
    kept = undominated(problem.chain_keys, usable_chains(problem, allowed, adj))
    keys = problem.chain_keys[kept]
    bits = int(np.unpackbits(keys.view(np.uint8)).sum()) if len(kept) else 0
    return bits * len(problem.company.trains)


def new_program(problem: Problem, allowed: np.ndarray, adj) -> Program:
    """The program over the chains, or over the track when the chains' would pass
    TRACK_FROM_NONZEROS (see TrackProgram)."""
    if chain_nonzeros(problem, allowed, adj) > TRACK_FROM_NONZEROS:
        return TrackProgram(problem, allowed, adj)
    return PathProgram(problem, allowed, adj)
