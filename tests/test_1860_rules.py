"""1860's distinctive rules where they decide the optimum: random boards of the real map aimed at the town
allowance's spill (unused city allowance pays towns), the no-re-entry rule, the one tokened-out city a route
may pass, the route through the home token city, runs whose routes must meet, halts (counted in the allowance,
each a subsidy of 10: the revenue-then-subsidy objective and their sum), no_skip_towns, leased trains (40 + 20
per stop; half revenue with original_insolvency), nationalization (no second allowance) and the Southern
formed (halts ignored); the optimizer against the reference on them, (revenue, subsidy) compared, and for each
rule its hit rate (the share of boards where taking the rule out of the reference changes the optimum
(revenue, subsidy)), asserted and printed. Runs priced as a player chose them (a route's `halts`) are read
by the evaluator and the reference alike: the optimizer's runs with random requests, and legal routes
through towns and halts drawn where the towns fill the town allowance, with and without no_skip_towns
(where a halt asked for must not take a town's place).

Each aim lays the line of a hand-checked board of tests/test_1860.py (copied here: the facts of the map)
over the random lays of lay_tiles, each tile with probability 0.9, and gives the company its tokens there,
the options the rule needs, and for some rules one leased train and either objective."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from benchmarks.scenarios import lay_tiles, place_tokens
from revenue.evaluation import evaluate
from revenue.optimizer import solve

from . import hits
from .profiles import examples
from .ref_board import ref_board, train_defs
from .reference import (G1860Rules, answer_of, best_run, blocks, node_name, pair, read_run, route_shapes,
                        route_value)

TRAIN_DEFS = train_defs("1860")

# Merstone G7 (761) -0- Godshill G9 (762 rot 3) -0- Whitwell G11 (747 rot 3: town) -4- Wroxall H10 (766 rot 5:
# town) -5- Ventnor I11: two cities and two towns, NGStL home G9 (brown: phase 5 and later).
SPILL = [("G7", "761", 0), ("G9", "762", 3), ("G11", "747", 3), ("H10", "766", 5)]
# Godshill G9 - Whitwell G11 - Wroxall H10 turned away from Ventnor (747: town on edges 0, 1, towards H12):
# a city and two towns on a spur, where a 2+1 is paid for both towns only by the spill.
SPUR = [("G9", "762", 3), ("G11", "747", 3), ("H10", "747", 0)]
# Newport G5 (763: city 50 G5-0, city 30 G5-1) -0- Merstone G7 (761) -4- H6 (8 rot 1) -3- Wooton H4 (754 rot 4)
# -1- back into G5: a loop that leaves Newport and comes back. IWNJ home G7.
LOOP = [("G5", "763", 0), ("G7", "761", 0), ("H6", "8", 1), ("H4", "754", 4)]
# Wooton H4 -0- H6 (17: a crossing met twice) -1- Merstone G7 -5- Horringford H8 (747 rot 2) -3- H6 -4- Ashey I5.
CROSSING = [("H4", "754", 4), ("H6", "17", 0), ("G7", "761", 0), ("H8", "747", 2), ("I5", "747", 1)]
# Merstone G7 -0- Godshill G9 (full of NGStL) -5- Wroxall H10 (748 rot 2) -4- Shanklin I9 (57 rot 1) -4- Sandown
# J8 (115 rot 1). IWNJ at G7 (home) and J8.
SOUTH = [("G7", "761", 0), ("G9", "762", 3), ("H10", "748", 2), ("I9", "57", 1), ("J8", "115", 1)]

# Cowes F2 (787: city 20 - town 10 - halt, C&N home) -0- Cement Mills F4 (742 rot 3: halt) -5- Newport G5:
# one city, a town and two halts between two cities.
COWES = [("F2", "787", 0), ("F4", "742", 3)]
# Merstone G7 (761: city 20 and its halt) -4- H6 -3- Wooton H4 (754 rot 4: town and halt) -1- Newport G5 (763):
# LOOP without the tile that joins Newport to Merstone directly.
WOOTON = [("G5", "763", 0), ("G7", "761", 0), ("H6", "8", 1), ("H4", "754", 4)]
# Ryde Esp I3 (758: city 50 towards Ryde Pier J2 and Ryde J4), IOW home, far from Merstone G7 -4- H6 -3- Wooton
# H4 -1- Newport G5-0 (city 50): two places worth a route each, which only random track may link.
APART = [("I3", "758", 0), ("G5", "763", 0), ("G7", "761", 0), ("H6", "8", 1), ("H4", "754", 4)]

# aim -> [(tiles, company, its tokens, other companies' tokens, phases, options)]
AIMED = {
    "spill": [(SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"no_skip_towns": "true"}),
              (SPUR, "NGStL", [("G9", 0)], [], ["3", "4"], {}),
              (SPUR, "NGStL", [("G9", 0)], [], ["3", "4"], {"no_skip_towns": "true"})],
    # the A+B allowance itself: towns beyond X on the spur and the southern line
    "town_allowance": [(SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {}),
                       (SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {}),
                       (SPUR, "NGStL", [("G9", 0)], [], ["3", "4"], {})],
    "no_reentry": [(LOOP, "IWNJ", [("G7", 0)], [], ["3", "4"], {}),
                   (CROSSING, "IWNJ", [("G7", 0)], [], ["3", "4"], {})],
    "bypass": [(SOUTH, "IWNJ", [("G7", 0), ("J8", 0)], [("G9", 0, "NGStL")], ["3", "4"], {}),
               (SOUTH, "IWNJ", [("G7", 0), ("J8", 0)], [("G9", 0, "NGStL"), ("I9", 0, "S&C")], ["3", "4"], {})],
    # NGStL's home Godshill G9 off the line (unlaid or barely linked), or IWNJ's Merstone G7 at the poor end
    # of it: the company's other tokens on the rich part
    "home": [(WOOTON, "NGStL", [("G5", 0), ("G7", 0)], [], ["3", "4"], {}),
             (SPILL, "IWNJ", [("G7", 0), ("G9", 0)], [], ["5", "6", "7"], {}),
             (SPILL, "IWNJ", [("G7", 0), ("G9", 0)], [], ["5", "6", "7"], {})],
    "connected": [(APART, "IOW", [("I3", 0), ("G7", 0)], [], ["3", "4"], {}),
                  (APART, "IOW", [("I3", 0), ("G5", 0)], [], ["3", "4"], {})],
    "halts": [(COWES, "C&N", [("F2", 0)], [], ["2"], {}),
              (LOOP, "IWNJ", [("G7", 0)], [], ["3", "4"], {"re_enter_hexes": "true"}),
              (WOOTON, "IWNJ", [("G7", 0)], [], ["3", "4"], {})],
    "no_skip_towns": [(SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"no_skip_towns": "true"}),
                      (SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"original_game": "true"}),
                      (CROSSING, "IWNJ", [("G7", 0)], [], ["3", "4"],
                       {"no_skip_towns": "true", "re_enter_hexes": "true"})],
    "leased": [(COWES, "C&N", [("F2", 0)], [], ["2"], {}),
               (SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"simplified_insolvency": "true"}),
               (LOOP, "IWNJ", [("G7", 0)], [], ["3", "4"], {})],
    "leased_original": [(COWES, "C&N", [("F2", 0)], [], ["2"], {"original_insolvency": "true"}),
                        (SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"original_insolvency": "true"}),
                        (LOOP, "IWNJ", [("G7", 0)], [], ["3", "4"], {"original_insolvency": "true"}),
                        # every town counted: at half value a town earns less than a halt's subsidy, yet
                        # no halt may take its place
                        (COWES, "C&N", [("F2", 0)], [], ["2"], {"original_game": "true"})],
    "nationalization": [(SPILL, "NGStL", [("G9", 0)], [], ["5", "6", "7"], {"nationalization": "true"}),
                        (SPUR, "NGStL", [("G9", 0)], [], ["3", "4"], {"nationalization": "true"}),
                        (COWES, "C&N", [("F2", 0)], [], ["2"], {"nationalization": "true"})],
    "southern_formed": [(COWES, "C&N", [("F2", 0)], [], ["2"], {"southern_formed": "true"}),    # twice: weight
                        (LOOP, "IWNJ", [("G7", 0)], [], ["3", "4"],
                         {"southern_formed": "true", "re_enter_hexes": "true"}),
                        (COWES, "C&N", [("F2", 0)], [], ["2"], {"southern_formed": "true"})],
}
# the trains an aim draws from (default: all small ones), and how much random track it lays (default 0.4-0.8)
# (measured on 100 seeds: a 3+2 beside a 2+1 takes the towns within its own allowance, so the spill and X
# rarely decide; a 2+1 is too short to loop, and a second train takes the loop's other half)
TRAINS = {"spill": ["2+1", "2+1"], "town_allowance": ["2+1", "2+1"],
          "home": ["2+1", "2+1", "3+2", "4+2"],
          "no_reentry": ["3+2", "3+2", "4+2"], "no_skip_towns": ["2+1", "2+1", "3+2"],
          "nationalization": ["2+1", "3+2", "4+2"],
          "connected": ["2+1", "2+1", "3+2"], "halts": ["2+1", "3+2", "4+2"], "southern_formed": ["3+2", "4+2"]}
FRACTION = {"spill": (0.05, 0.3), "town_allowance": (0.05, 0.3), "no_reentry": (0.05, 0.4),
            "no_skip_towns": (0.05, 0.3),
            "nationalization": (0.05, 0.3), "connected": (0.0, 0.15), "home": (0.05, 0.3), "halts": (0.05, 0.3),
            "southern_formed": (0.05, 0.3), "leased": (0.05, 0.3), "leased_original": (0.05, 0.3)}
ONE_TRAIN = {"no_reentry"}      # aims run by one train
# the aims run by one leased train (leased: the share of their boards), and the objectives they draw from
LEASED = {"leased": 1.0, "leased_original": 1.0, "southern_formed": 0.3, "nationalization": 0.2}
OBJECTIVES = {aim: ("revenue", "revenue_and_subsidy")
              for aim in ("halts", "southern_formed", "leased", "leased_original", "nationalization")}
COLOURS = {"2": ("yellow",), "3": ("yellow", "green"), "4": ("yellow", "green"), "5": ("yellow", "green", "brown"),
           "6": ("yellow", "green", "brown"), "7": ("yellow", "green", "brown")}


def case_1860(seed: int, aim: str):
    """(board request, company id, trains, leased, objective) of a random 1860 board aimed at `aim`."""
    rng = random.Random(seed)
    tiles, corp, ours, others, phases, options = rng.choice(AIMED[aim])
    phase = rng.choice(phases)
    lays = lay_tiles("1860", COLOURS[phase], rng.uniform(*FRACTION.get(aim, (0.4, 0.8))), seed, options)
    keep = [(h, t, r) for h, t, r in tiles if rng.random() < 0.9]
    kept = {h for h, _, _ in keep}
    lays = [lay for lay in lays if lay["hex"] not in kept] + \
        [{"hex": h, "tile": t, "rotation": r} for h, t, r in keep]
    laid = {lay["hex"] for lay in lays}
    tokens = place_tokens("1860", lays, corp, rng.randint(0, 1), rng.randint(0, 6), seed, options)
    fixed = [(h, c, corp) for h, c in ours] + list(others)
    fixed = [(h, c, who) for h, c, who in fixed if h in kept or h not in laid]
    taken = {(h, c) for h, c, _ in fixed}
    tokens = [t for t in tokens if (t["hex"], t["city"]) not in taken and
              not (t["company"] == corp and t["hex"] in {h for h, _, _ in fixed})]
    tokens += [{"hex": h, "city": c, "company": who} for h, c, who in fixed]
    small = TRAINS.get(aim) or ["2+1", "3+2", "4+2"] + (["5+3"] if phase in ("3", "4") else [])
    trains = sorted(rng.sample(small, rng.randint(1, 2)))
    leased = rng.random() < LEASED.get(aim, 0)
    if leased or aim in ONE_TRAIN:
        trains = trains[:1]                 # an insolvent company runs one leased train
    objective = rng.choice(OBJECTIVES.get(aim, ("revenue",)))
    b = {"title": "1860", "phase": phase, "options": options, "tiles": lays, "tokens": tokens}
    return b, corp, trains, leased, objective


class Without(G1860Rules):
    """The reference's 1860 rules with some taken out: "spill" (towns and halts share only the second
    allowance B), "town_allowance" (every town and halt counted, X unbounded), "no_reentry" (as with the
    re_enter_hexes option), "bypass" (no tokened-out city may be passed), "home" (no route need visit the
    home token city), "connected" (the routes need not meet), "halts" (no halt is ever a stop: no subsidy),
    "no_skip_towns" (towns may be skipped), "leased" and "leased_original" (a leased train priced as an owned
    one), "nationalization" (the second allowance kept), "southern_formed" (halts counted as before the
    Southern)."""

    RULES = ("spill", "town_allowance", "no_reentry", "bypass", "home", "connected", "halts", "no_skip_towns",
             "leased", "leased_original", "nationalization", "southern_formed")

    def __init__(self, board, company, objective="revenue", off=()):
        super().__init__(board, company, objective)
        self.off = set(off)
        assert self.off <= set(self.RULES), self.off
        if "no_reentry" in self.off:
            self.re_enter = True
        if "halts" in self.off:
            self.southern = True               # the reference's switch for "no halt is a stop"
        if "southern_formed" in self.off:
            self.southern = False
        if "no_skip_towns" in self.off:
            self.no_skip = False
        if "nationalization" in self.off:
            self.nationalization = False

    def bypass(self, train) -> int:
        return 0 if "bypass" in self.off else super().bypass(train)

    def allowance(self, train, a, b, c) -> int:
        if "town_allowance" in self.off:
            return 99
        # without the spill the unused city allowance is lost: X as if every city of it were used
        return super().allowance(self.owned(train), a, b, a if "spill" in self.off else c)

    def owned(self, train):
        """The train, as an owned one when the leasing rules are taken out."""
        if {"leased", "leased_original"} & self.off:
            return {k: v for k, v in train.items() if k != "leased"}
        return train

    def new_lease(self, train) -> bool:
        return super().new_lease(self.owned(train))

    def train_revenue(self, train, values, kinds, tokened, rows):
        return super().train_revenue(self.owned(train), values, kinds, tokened, rows)

    def visits_home(self, routes) -> bool:
        return "home" in self.off or super().visits_home(routes)

    def linked(self, routes) -> bool:
        return "connected" in self.off or super().linked(routes)


def optimum_1860(b, corp, trains, leased=False, objective="revenue", off=(), answer=None):
    """The reference's best (revenue, subsidy) without the rules `off`; with `answer`, also its reading of
    that run: ((revenue, subsidy), per-route (revenue, subsidy)) or None."""
    built = ref_board(b)
    defs = [{**TRAIN_DEFS[t], **({"leased": True} if leased else {})} for t in trains]
    out = best_run(built, corp, defs, Without(built, corp, objective, off), answer=answer)
    if answer is None:
        return pair(out[0])
    reading = out[2] and (pair(out[2][0]), [pair(v) for v in out[2][1]])
    return pair(out[0]), reading


def company(corp, trains, leased=False):
    return {"id": corp, "trains": [{"name": t, **({"leased": True} if leased else {})} for t in trains]}


def check_1860(b, corp, trains, leased=False, objective="revenue"):
    """The optimizer's (revenue, subsidy) on the board, checked against the reference's."""
    result = solve({"board": b, "company": company(corp, trains, leased), "objective": objective})
    got = (result["revenue"], result["subsidy"])
    expected, reading = optimum_1860(b, corp, trains, leased, objective, answer=answer_of(result))
    assert result["optimal"] and got == expected, (got, expected)
    # The reference reads the answer too: a legal run, each route worth what the optimizer says.
    assert reading == (expected, [(r["revenue"], r["subsidy"]) for r in result["routes"]]), reading
    check = evaluate({"board": b, "company": company(corp, trains, leased),
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections", "halts")}
                                 for r in result["routes"]]})
    assert check["legal"] and (check["revenue"], check["subsidy"]) == expected, check
    return expected


def check_reading(b, corp, trains, leased, run, asked):
    """The run [(train, nodes)] with the halts a player asks for (`asked`: train name -> a count, or None for
    the engine's default) read by the evaluator and by the reference: the same legality, and the same
    revenue and subsidy route by route."""
    built = ref_board(b)
    defs = [{**TRAIN_DEFS[t], "halts": asked[t], **({"leased": True} if leased else {})} for t in trains]
    routes = [{"train": t, "nodes": nodes, **({} if asked[t] is None else {"halts": asked[t]})} for t, nodes in run]
    got = evaluate({"board": b, "company": company(corp, trains, leased), "routes": routes})
    reading = read_run(built, corp, defs, G1860Rules(built, corp), run)
    assert got["legal"] == (reading is not None), (run, asked, got, reading)
    if reading is not None:
        assert ((got["revenue"], got["subsidy"]), [(r["revenue"], r["subsidy"]) for r in got["routes"]]) == \
            (pair(reading[0]), [pair(v) for v in reading[1]]), (run, asked, got, reading)


SMALL = ("2+1", "3+2", "4+2", "5+3")


def halt_request(b, corp, leased, pick: int):
    """(train, nodes, halts asked for) of a legal route on board `b`, drawn (seeded by `pick`) from every
    trail through a halt, preferring trails with towns that fill the town allowance X of the train drawn:
    where a halt asked for competes with the towns (and, when every town counts, must not take a town's
    place). The count asked for: none, 0, or 1 to one more than the route's halts, 1 to X weighted
    twice. None when no such route is legal."""
    built = ref_board(b)
    rules, rng = G1860Rules(built, corp), random.Random(pick)
    defs = {t: {**TRAIN_DEFS[t], **({"leased": True} if leased else {})} for t in SMALL}
    g, shapes = route_shapes(built, corp, list(defs.values()), rules)

    def allowance(train, kinds):
        a, b_ = rules.allowances(rules.train_rows(defs[train]))
        return rules.allowance(defs[train], a, b_, sum(k in rules.C for k in kinds))

    def tier(train, kinds):
        """0: towns fill X; 1: towns and halts; 2: halts only."""
        x = allowance(train, kinds)
        return 0 if kinds.count("town") >= x >= 1 else 1 if "town" in kinds else 2

    def legal(train, nodes, seq):        # a legal run by itself
        names = [node_name(g, v) for v in nodes]
        passes = any(blocks(built, g, v, corp) for v in nodes[1:-1])
        return route_value(built, g, corp, defs[train], nodes, seq, rules) is not None and \
            rules.run_ok([(names, rules.route_flags(names, passes))])

    candidates = []
    for nodes, _, _, seq in shapes:
        kinds = [g.nodes[v]["part"].kind for v in nodes]
        if "halt" in kinds:
            candidates += [(tier(t, kinds), rng.random(), t, nodes, seq, kinds) for t in SMALL]
    for _, _, train, nodes, seq, kinds in sorted(candidates, key=lambda c: c[:2]):
        if legal(train, nodes, seq):
            h, x = kinds.count("halt"), allowance(train, kinds)
            asked = rng.choice([None, 0, *range(1, h + 2), *range(1, min(h, x) + 1)])
            return train, [node_name(g, v) for v in (nodes if pick % 2 else nodes[::-1])], asked
    return None


REQUESTS = st.one_of(st.none(), st.integers(0, 3))


@settings(max_examples=examples(50))
@given(st.integers(0, 2**31 - 1), st.sampled_from(sorted(AIMED)), st.lists(REQUESTS, min_size=2, max_size=2))
def test_optimizer_matches_reference_where_the_rules_matter(seed, aim, requests):
    b, corp, trains, leased, objective = case_1860(seed, aim)
    check_1860(b, corp, trains, leased, objective)
    # the optimizer's run with halts a player might ask for
    run = answer_of(solve({"board": b, "company": company(corp, trains, leased)}))
    check_reading(b, corp, trains, leased, run, dict(zip(sorted(set(trains)), requests)))


# Aims whose lines hold halts (Cowes, Wooton, Merstone), drawn with and without every town counted
# (no_skip_towns): where a request for more halts than the towns leave must be dropped.
REQUEST_AIMS = ("halts", "halts", "leased_original", "no_skip_towns", "nationalization", "southern_formed")


@settings(max_examples=examples(60))
@given(st.integers(0, 2**31 - 1), st.sampled_from(REQUEST_AIMS), st.sampled_from([True, True, False]))
def test_a_players_halts_are_read_as_the_reference_reads_them(seed, aim, every_town):
    b, corp, _, leased, _ = case_1860(seed, aim)
    if every_town:
        b["options"] = {**b["options"], "no_skip_towns": "true"}
    drawn = halt_request(b, corp, leased, seed)
    if drawn is not None:
        train, nodes, asked = drawn
        check_reading(b, corp, [train], leased, [(train, nodes)], {train: asked})


HIT_BOARDS = examples(25)


@pytest.mark.slow
@pytest.mark.parametrize("rule", sorted(AIMED))
def test_each_rule_decides_the_optimum_often(rule):
    decided = 0
    for seed in range(HIT_BOARDS):
        case = case_1860(seed, rule)
        decided += check_1860(*case) != optimum_1860(*case, off=[rule])
    rate = hits.record(f"1860: {rule}", decided, HIT_BOARDS)
    assert rate >= hits.FLOOR, f"{rule} decides the optimum on {decided} of {HIT_BOARDS} boards"
