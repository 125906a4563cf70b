"""Compile a board, a company and the title's rules into flat arrays: what the kernels (and the Python
evaluator) read. Nothing here knows a title by name; titles answer through their hooks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .company import Company
from .graph import Graph
from .titles.base import TrainType


@dataclass
class TrainSpec:
    """How one train type treats each node."""
    train: TrainType
    row: np.ndarray          # int64 [nodes]: distance row of the node's kind, -1 = may not visit
    base: np.ndarray         # int64 [nodes]: paid value (revenue x multiplier)
    bonus: np.ndarray        # int64 [nodes]: per-stop bonus, added when paid, not multiplied
    end_ok: np.ndarray       # bool [nodes]: a route may begin/end here
    row_visit: np.ndarray    # int64 [rows]
    row_pay: np.ndarray      # int64 [rows]
    bonus_names: dict[int, list[tuple[str, int]]] = field(default_factory=dict)

    @property
    def value(self) -> np.ndarray:
        return self.base + self.bonus


@dataclass
class Problem:
    graph: Graph
    company: Company
    token: np.ndarray        # bool [nodes]: a city holding the company's token
    blocks: np.ndarray       # bool [nodes]: the company may not pass through
    cost: np.ndarray         # int64 [nodes]: visit cost
    groups: np.ndarray       # int64 [nodes]: bitmask of the node's groups
    specs: dict[str, TrainSpec]
    chain_a: np.ndarray      # int64 [chains]
    chain_b: np.ndarray
    chain_keys: np.ndarray   # uint64 [chains, words]: track-key bitsets
    chain_term: np.ndarray   # int64 [chains]: bit0 path at a terminal, bit1 at b, bit2 inside

    @property
    def words(self) -> int:
        return self.chain_keys.shape[1]


def compile_problem(graph: Graph, company: Company) -> Problem:
    board, title = graph.board, graph.board.title
    nodes = graph.nodes
    n = len(nodes)
    token = np.array([company.id in nd.tokens for nd in nodes], dtype=np.bool_)
    blocks = np.array([title.node_blocks(nd, company.id, board) for nd in nodes], dtype=np.bool_)
    cost = np.array([nd.visit_cost for nd in nodes], dtype=np.int64)
    group_ids: dict[str, int] = {}
    groups = np.zeros(n, dtype=np.int64)
    for nd in nodes:
        for g in nd.groups:
            groups[nd.id] |= 1 << group_ids.setdefault(g, len(group_ids))
    if len(group_ids) > 62:
        raise ValueError("more than 62 node groups")

    specs = {}
    for train in company.trains:
        if train.name in specs:
            continue
        row = np.array([train.row_of(nd.kind) for nd in nodes], dtype=np.int64)
        base = np.array([nd.value * train.multiplier_of(nd.kind) for nd in nodes], dtype=np.int64)
        bonus = np.zeros(n, dtype=np.int64)
        names: dict[int, list[tuple[str, int]]] = {}
        for name, node_ids, amount in title.stop_bonuses(train, company, board, graph):
            for i in node_ids:
                bonus[i] += amount
                names.setdefault(i, []).append((name, amount))
        end_ok = np.array([title.end_allowed(train, nd) for nd in nodes], dtype=np.bool_)
        specs[train.name] = TrainSpec(train, row, base, bonus, end_ok,
                                      np.array([r.visit for r in train.rows], dtype=np.int64),
                                      np.array([r.pay for r in train.rows], dtype=np.int64), names)

    chains = graph.chains
    words = max(1, (len(graph.key_names) + 63) // 64)
    chain_keys = np.zeros((len(chains), words), dtype=np.uint64)
    for c in chains:
        for k in c.keys:
            chain_keys[c.id, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    chain_term = np.array([int(c.terminal_a) | int(c.terminal_b) << 1 | int(c.terminal_inner) << 2
                           for c in chains], dtype=np.int64)
    return Problem(graph, company, token, blocks, cost, groups, specs,
                   np.array([c.a for c in chains], dtype=np.int64),
                   np.array([c.b for c in chains], dtype=np.int64), chain_keys, chain_term)


def select_stops(spec: TrainSpec, token: np.ndarray, visited: list[int]) -> tuple[int, set[int]]:
    """The engine's stop choice (rules/base.md section 5): per distance row the best `pay` visited nodes
    are paid, and at least one paid node must be a city with the company's token. Returns (revenue, paid)."""
    value = spec.value
    by_row: dict[int, list[int]] = {}
    for v in visited:
        by_row.setdefault(int(spec.row[v]), []).append(v)
    paid: set[int] = set()
    for r, members in by_row.items():
        members.sort(key=lambda v: -value[v])
        paid.update(members[: int(spec.row_pay[r])])
    if any(token[v] for v in paid):
        return int(sum(value[v] for v in paid)), paid
    best, best_paid = 0, set()
    for t in visited:      # force one tokened city in, in place of the weakest paid node of its row
        r = int(spec.row[t])
        if not token[t] or spec.row_pay[r] == 0:
            continue
        row_paid = [v for v in paid if spec.row[v] == r]
        weakest = min(row_paid, key=lambda v: value[v])
        choice = (paid - {weakest}) | {t}
        total = int(sum(value[v] for v in choice))
        if total > best or not best_paid:
            best, best_paid = total, choice
    return best, best_paid
