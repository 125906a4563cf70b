"""The played runs of a game, each evaluated once: the replay's `played` run (revenue.game.analysis) and
1860's payout, whose share price move depends on the run's revenue (revenue.game.operating_order), read
one evaluation, kept by the run_routes action's id. The route kernels load only when a run is evaluated."""
from __future__ import annotations

from ..errors import InputError


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
        result = self.evaluations.evaluate(self.request, self.run_routes)
        return None if result is None else result["revenue"]
