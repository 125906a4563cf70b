"""The played runs of a game, each evaluated once: the replay's `played` run (revenue.game.analysis) and
1860's payout, whose share price move depends on the run's revenue (revenue.game.operating_order), read
one evaluation, kept by the run_routes action's id. The route kernels load only when a run is evaluated.

The process also keeps the revenues of the runs it priced, by a digest of the request and the action
(they decide the evaluation): a game asked again with more actions (`suggest` on each move of a game in
progress) prices only its new runs.
"""
from __future__ import annotations

import hashlib
import json

from ..cache import RUN_CACHE_BYTES, ByteLRU
from ..errors import InputError

ENTRY_BYTES = 300               # a digest and a revenue in the cache (tracemalloc: about 260)
_REVENUES: ByteLRU[tuple[int | None]] = ByteLRU(RUN_CACHE_BYTES)


class RunEvaluations:
    """The evaluations of one game's runs, by the id of their run_routes action."""

    def __init__(self):
        self._by_id: dict[int, dict | None] = {}

    def evaluate(self, request: dict, run_routes: dict) -> dict | None:
        """The EvaluateResponse of `run_routes` on `request` (None when its routes do not read: InputError)."""
        key = run_routes.get("id")
        memo = isinstance(key, int) and not isinstance(key, bool)
        if memo and key in self._by_id:
            return self._by_id[key]
        from ..evaluation import evaluate     # the route kernels: loaded only when a run is evaluated
        try:
            result = evaluate({**request, "run_routes": run_routes})
        except InputError:
            result = None
        if memo:
            self._by_id[key] = result
        return result


class Run:
    """A turn's run on the request of its moment, priced when its revenue is first asked."""

    def __init__(self, request: dict, run_routes: dict, evaluations: RunEvaluations):
        self.request, self.run_routes, self.evaluations = request, run_routes, evaluations

    def revenue(self) -> int | None:
        """The run's revenue (None when it cannot be priced)."""
        key = hashlib.blake2b(json.dumps([self.request, self.run_routes], sort_keys=True, default=str).encode(),
                              digest_size=16).digest()
        known = _REVENUES.get(key)
        if known is not None:
            return known[0]
        result = self.evaluations.evaluate(self.request, self.run_routes)
        revenue = None if result is None else result["revenue"]
        _REVENUES.put(key, (revenue,), ENTRY_BYTES)
        return revenue
