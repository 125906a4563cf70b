"""Train types as the route kernels take them: each type's arrays and flags (kernel_arguments, made once
per problem and weights), and which types are not walked but refitted from a looser type's routes
(route_parents)."""
from __future__ import annotations

import operator

import numpy as np

from ..core.probe import WALK_FIELDS
from ..core.pricing import SPEC_FIELDS
from ..problem import Problem, TrainSpec, kernel_values
from .memo import memo

_SPEC_FIELDS_OF = operator.attrgetter(*SPEC_FIELDS)     # (one call for the 25 fields)
# the kernel arrays a train sets itself (revenue.problem._spec), not its rules or limits
_TRAIN_FIELDS = ("row", "base", "bonus", "end_ok", "groups")
_TRAIN_FIELDS_OF = operator.attrgetter(*_TRAIN_FIELDS)
_SCALAR_FIELDS = [i for i, f in enumerate(SPEC_FIELDS) if f in (
    "need_ends", "merge_penalty", "bypass", "spill_from", "spill_to", "no_reentry", "spill_next", "token_paid")]
_SCALARS_OF = operator.itemgetter(*_SCALAR_FIELDS)


def spec_arrays(spec: TrainSpec, weights: tuple[int, int] = (1, 0)) -> tuple:
    """The train's arrays as the kernels take them (core.pricing.SPEC_FIELDS), its values scored with
    `weights` (revenue.problem.kernel_values)."""
    scored = kernel_values(spec, weights) if weights != (1, 0) else None     # (kernel_values: {} for (1, 0))
    values = [scored.get(f, getattr(spec, f)) for f in SPEC_FIELDS] if scored else list(_SPEC_FIELDS_OF(spec))
    for i, x in zip(_SCALAR_FIELDS, _int64s(_SCALARS_OF(values))):
        values[i] = x
    return tuple(values)


_INT64: dict[tuple, tuple[np.int64, ...]] = {}


def _int64s(xs: tuple) -> tuple[np.int64, ...]:
    """np.int64 of each of the spec's scalars (so the kernels' signature is one whatever their Python
    types), made once per tuple of values."""
    out = _INT64.get(xs)
    if out is None:
        if len(_INT64) >= 1024:
            _INT64.clear()
        out = _INT64[xs] = tuple(np.int64(x) for x in xs)
    return out


def sums_node_values(spec: TrainSpec) -> bool:
    """A route's revenue is the plain sum of its node values (no route-level rule applies)."""
    return spec.simple and spec.need_ends == 0 and len(spec.rule_amount) == 0 \
        and not (spec.rules.metro and (spec.metro >= 0).any())


def walks_from_ends(problem: Problem, spec: TrainSpec) -> bool:
    """Whether to walk routes from their required ends rather than from the token cities: when a route must begin
    or end at one of a few nodes, few walks start there, and each needs one arm instead of two."""
    # (count_nonzero: the sum of these bool arrays, without ndarray.sum's Python wrapper)
    return spec.need_ends > 0 and np.count_nonzero(spec.need) <= max(8, 2 * np.count_nonzero(problem.token))


_VISIT_AT = SPEC_FIELDS.index("row_visit")     # (row_pay follows it)
assert SPEC_FIELDS[_VISIT_AT + 1] == "row_pay"


def kernel_arguments(problem: Problem, train: str, weights: tuple[int, int] = (1, 0)) -> tuple:
    """(spec arrays, sums_node_values, walks_from_ends) of a train type, built once per problem and weights.
    Types that share a TrainSpec.walk (copied from one spec for other rows' limits) share every array but
    those limits: a second such type takes the first one's arrays with its own limits."""
    derived = memo(problem)
    out = derived.kernel_arguments.get((train, weights))
    if out is None:
        spec = problem.specs[train]
        first = derived.walk_arguments.get((spec.walk, weights))
        if first is None:
            out = derived.walk_arguments[(spec.walk, weights)] = (
                spec_arrays(spec, weights), sums_node_values(spec), walks_from_ends(problem, spec))
        else:
            arrays = first[0]
            out = (arrays[:_VISIT_AT] + (spec.row_visit, spec.row_pay) + arrays[_VISIT_AT + 2:],
                   sums_node_values(spec), first[2])
        derived.kernel_arguments[(train, weights)] = out
    return out


LIMITS = ("row_visit", "row_pay")
walk_fields_of = operator.attrgetter(*WALK_FIELDS)     # a spec's walk arrays, unscored (core.probe)
type_scalars_of = operator.attrgetter("need_ends", "merge_penalty", "bypass", "spill_from", "spill_to", "no_reentry",
                                       "spill_next", "token_paid")
assert [f for f in SPEC_FIELDS if f not in WALK_FIELDS and f not in LIMITS] == list(type_scalars_of.__reduce__()[1])


def walk_arrays(spec: TrainSpec, weights: tuple[int, int]) -> tuple:
    """The train's walk arrays as core.probe takes them (WALK_FIELDS), its values scored with `weights`
    (revenue.problem.kernel_values), as spec_arrays gives them."""
    arrays = walk_fields_of(spec)
    if weights == (1, 0):
        return arrays
    scored = kernel_values(spec, weights)
    return tuple([scored.get(f, x) for f, x in zip(WALK_FIELDS, arrays)])


def route_parents(problem: Problem) -> dict[str, str]:
    """Train types whose routes are found among another type's: the two differ only in their rows'
    visit and pay limits, the other's being no lower (1860's 6+3 and 7+4, 1830's 5 and D). Such a type
    is not walked; its routes are the other's that fit it, priced for it (RouteSet.refit). Types with
    merged stops are left out: there the better direction of a route can differ between types."""
    derived = memo(problem)
    parents = derived.route_parents
    if parents is None:
        specs = problem.specs
        parents = derived.route_parents = _route_parents(specs) if len(specs) > 1 else {}
    return parents


def _route_parents(specs: dict[str, TrainSpec]) -> dict[str, str]:
    parents: dict[str, str] = {}
    roots: list[str] = []
    for name in sorted(specs, key=lambda name: _looseness(specs[name], name)):
        spec = specs[name]
        if not (spec.rules.merge and (spec.merge >= 0).any()):
            for root in roots:
                if _covers(specs[root], spec) and _same_walk(spec, specs[root]):
                    parents[name] = root
                    break
            else:
                roots.append(name)
        else:
            roots.append(name)
    return parents


def _looseness(spec: TrainSpec, name: str) -> tuple[int, int, str]:
    """The loosest trains first: the most visits, then the most paid stops, over the rows (the spec's
    row_visit and row_pay)."""
    visit = pay = 0
    for row in spec.train.rows:
        visit += row.visit
        pay += row.pay
    return -visit, -pay, name


def _covers(parent: TrainSpec, spec: TrainSpec) -> bool:
    """The parent's limits are no lower, row by row."""
    parent_rows, rows = parent.train.rows, spec.train.rows
    if len(parent_rows) == len(rows):
        for p, r in zip(parent_rows, rows):
            if p.visit < r.visit or p.pay < r.pay:
                return False
        return True
    return all((getattr(parent, f) >= getattr(spec, f)).all() for f in LIMITS)


def _same_walk(spec_a: TrainSpec, spec_b: TrainSpec) -> bool:
    """The two trains' kernel arrays but their limits are equal (compared as bytes, to the first that
    differs; the same array object, as trains the title treats alike share, is equal). Read from the
    specs: the kernels' own arguments are scored with the search's weights, made later."""
    if spec_a.walk is spec_b.walk:      # (copied from one spec for other limits: alike)
        return True
    if spec_a.rules is spec_b.rules:
        # (the fields but a train's own are its rules' over the problem's nodes, revenue.problem._rule_fields:
        # equal for one rules object)
        for x, y in zip(_TRAIN_FIELDS_OF(spec_a), _TRAIN_FIELDS_OF(spec_b)):
            if x is not y and (x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes()):
                return False
        return True
    for f, x, y in zip(SPEC_FIELDS, _SPEC_FIELDS_OF(spec_a), _SPEC_FIELDS_OF(spec_b)):
        if x is y or f in LIMITS:
            continue
        if not isinstance(x, np.ndarray):     # (the scalar fields)
            if x != y:
                return False
            continue
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            return False
    return True
