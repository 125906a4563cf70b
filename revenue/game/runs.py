"""The played runs of a game, each evaluated once: the replay's `played` run (revenue.game.analysis), 1860's
payout, whose share price move depends on the run's revenue (revenue.game.operating_order), and what each
run pays its corporation's treasury (revenue.game.treasury) read one evaluation, kept by the run_routes
action's id. The route kernels load only when a run is evaluated.

The process also keeps the revenues (and subsidies) of the runs it priced, by a digest of the request and
the action (they decide the evaluation): a game asked again with more actions (`suggest` on each move of a
game in progress) prices only its new runs.
"""
from __future__ import annotations

import hashlib

from ..cache import RUN_CACHE_BYTES, ByteLRU
from ..errors import InputError

ENTRY_BYTES = 300               # a digest and a revenue in the cache (tracemalloc: about 260)
_REVENUES: ByteLRU[tuple[int | None, int | None]] = ByteLRU(RUN_CACHE_BYTES)


class RunEvaluations:
    """The evaluations of one game's runs, by the id of their run_routes action."""

    def __init__(self):
        self._by_id: dict[int, dict | None] = {}

    def evaluate(self, request: dict, run_routes: dict) -> dict | None:
        """The EvaluateResponse of `run_routes` on `request` (None when its routes do not read: InputError,
        or name only hexes)."""
        if any(not (r.get("nodes") or r.get("connections")) for r in run_routes.get("routes") or ()):
            return None                       # routes stored by their hexes alone (exports of 2020)
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
        self._priced: tuple[int | None, int | None] | None = None

    def revenue(self) -> int | None:
        """The run's revenue (None when it cannot be priced)."""
        return self.priced()[0]

    def subsidy(self) -> int | None:
        """What the run's halts pay the treasury beside its revenue (1860; None when it cannot be priced)."""
        return self.priced()[1]

    def priced(self) -> tuple[int | None, int | None]:
        """(revenue, subsidy), or (None, None) when the run cannot be priced."""
        if self._priced is not None:
            return self._priced
        # (repr: the request is built in one order, the action read as its export stores it)
        key = hashlib.blake2b(repr((self.request, self.run_routes)).encode(), digest_size=16).digest()
        known = _REVENUES.get(key)
        if known is not None:
            self._priced = known
            return known
        result = self.evaluations.evaluate(self.request, self.run_routes)
        priced = _stored(self.run_routes) if result is None else (result["revenue"], int(result.get("subsidy") or 0))
        _REVENUES.put(key, priced, ENTRY_BYTES)
        self._priced = priced
        return priced


def _stored(run_routes: dict) -> tuple[int | None, int | None]:
    """A run that does not read priced by the revenue its routes store, as exports of 2020 do beside their
    hexes (the revenue the engine paid then); (None, None) without it."""
    revenues = [r.get("revenue") for r in run_routes.get("routes") or ()]
    if not revenues or not all(isinstance(r, int) and not isinstance(r, bool) for r in revenues):
        return None, None
    return sum(revenues), 0
