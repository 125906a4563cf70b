"""Titles that answer a per-node hook for every node at once (Title.end_allowed_all and the like, read by
revenue.problem without node objects) must give what the per-node hook gives, node by node: checked on
the boards of the game-server scenario (benchmarks.scenarios: every title's games grown tile by tile),
for every train of each title, owned and, in 1860, leased, under 1860's insolvency options too."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.scenarios import game_sequences
from revenue.company import build_company
from revenue.errors import InputError
from revenue.graph_cache import graph_for

BOARDS_PER_TITLE = 40


def boards(title: str) -> list[dict]:
    sequence = game_sequences(seed=3)[title]
    step = max(1, len(sequence) // BOARDS_PER_TITLE)
    return [b.request for b in sequence[::step]]


def trains(graph) -> list:
    board, title = graph.board, graph.board.title
    out = []
    for train in board.data.trains.values():
        for leased in (False, True):
            typed = title.company_train(train, board, leased)
            if typed is not None:
                out.append(typed)
    return out


def check_hooks(graph, company_id: str) -> int:
    """Compare every array hook the title answers with its per-node hook; the number of comparisons."""
    board, title = graph.board, graph.board.title
    nodes = graph.nodes
    compared = 0
    for train in trains(graph):
        end = title.end_allowed_all(train, graph)
        if end is not None:
            assert end.tolist() == [title.end_allowed(train, nd) for nd in nodes], train
            compared += 1
        visit = title.visit_allowed_all(train, graph)
        if visit is not None:
            assert visit.tolist() == [title.visit_allowed(train, nd) for nd in nodes], train
            compared += 1
        groups = title.node_groups_all(train, graph)
        if groups is not None:
            one_by_one = [(nd.id, tuple(title.node_groups(train, nd))) for nd in nodes]
            assert [(v, tuple(g)) for v, g in groups] == [(v, g) for v, g in one_by_one if g], train
            compared += 1
        try:
            values = title.node_value_all(train, graph, board)
        except InputError as exc:
            with pytest.raises(InputError) as raised:
                for nd in nodes:
                    title.node_value(train, nd, board)
            assert raised.value.violations == exc.violations
            compared += 1
            continue
        if values is not None:
            assert values.tolist() == [title.node_value(train, nd, board) for nd in nodes], train
            compared += 1
    return compared


@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "18rhl", "1860"])
def test_array_hooks_agree_with_the_per_node_hooks(title):
    compared = 0
    for request in boards(title):
        graph = graph_for(request["board"])
        compared += check_hooks(graph, request["company"]["id"])
    if title != "1830":     # (1830 has no per-node hooks of its own)
        assert compared > 0


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"original_insolvency": "true"}, {"southern_formed": "true"},
                                     {"nationalization": "true"}, {"original_game": "true"}])
def test_1860_array_hooks_under_insolvency_and_late_game_options(options):
    compared = 0
    for request in boards("1860")[::4]:
        board = dict(request["board"], options=options)
        try:
            graph = graph_for(board)
        except InputError:      # (the two-player map of original_game lacks some hexes of the full map)
            continue
        compared += check_hooks(graph, request["company"]["id"])
    assert compared > 0


def test_1860_route_rules_subsidy_and_home_flag_match_the_nodes():
    from revenue.titles.g1860 import HALT_SUBSIDY, HOME_FLAG

    checked = 0
    for request in boards("1860"):
        graph = graph_for(request["board"])
        company = build_company(request["company"], graph.board)
        title = graph.board.title
        home = title._home(company.id)
        for train in company.trains:
            rules = title.route_rules(train, company, graph.board, graph)
            halts = {n.id: HALT_SUBSIDY for n in graph.nodes if n.kind == "halt"}
            assert rules.subsidy in (halts, {})
            assert rules.flags == {n.id: HOME_FLAG for n in graph.nodes
                                   if n.hex == home and n.kind == "city" and company.id in n.tokens}
            checked += bool(rules.flags)
    assert checked > 0


def test_1860_cheap_towns_read_from_the_track_match_every_hexs_tiles():
    """G1860._cheap_towns reads the board's track (Board.least_town_revenue): the same answer as the walk
    over every hex's tile, on the scenario's boards, for owned and halved (leased) values, in every phase."""
    from revenue.board import _TOWN_KIND
    from revenue.geometry import NODE_KINDS
    from revenue.titles.g1860 import HALT_SUBSIDY, G1860

    assert NODE_KINDS.index("town") == _TOWN_KIND
    read = 0
    for request in boards("1860"):
        for phase in ("2", "4", "6", "8"):
            board = graph_for(dict(request["board"], phase=phase)).board
            colours = board.phase.colours
            for half in (False, True):
                walked = any(r.value(colours) // (2 if half else 1) < HALT_SUBSIDY
                             for bh in board.hexes.values() for r in bh.tile.town_revenues)
                assert G1860._cheap_towns(board, half) == walked, (phase, half)
                read += board.track is not None
    assert read > 0


def test_in_hexes_and_kind_is_read_the_nodes():
    for title in ("18rhl", "1860"):
        graph = graph_for(boards(title)[-1]["board"])
        hexes = tuple(sorted({nd.hex for nd in graph.nodes})[:3])
        assert graph.in_hexes(hexes).tolist() == [nd.hex in hexes for nd in graph.nodes]
        for kind in ("city", "town", "halt", "offboard"):
            assert graph.kind_is(kind).tolist() == [nd.kind == kind for nd in graph.nodes]
        assert np.any(graph.in_hexes(hexes))


def test_18rhl_node_blocks_all_agrees_with_node_blocks():
    from revenue.problem import compile_problem

    compared = 0
    for request in boards("18rhl"):
        graph = graph_for(request["board"])
        board, title = graph.board, graph.board.title
        companies = sorted({c for cs in board.tokens.values() for c in cs})
        for company_id in companies:
            company = build_company({"id": company_id, "trains": [{"name": "2"}]}, board)
            blocks = compile_problem(graph, company).blocks
            assert blocks.tolist() == [title.node_blocks(nd, company_id, board) for nd in graph.nodes]
            compared += 1
    assert compared > 0


def rhl_rules_by_node(title, train, company, board, graph):
    """18Rhl's route rules read node by node (as the title read them before it read arrays)."""
    from revenue.titles import g18rhl as R

    nodes = graph.nodes
    rge = R._is_rge(train)
    metro = {n.id: R.METROPOLISES.index(n.hex) for n in nodes if n.hex in R.METROPOLISES}
    merge = {n.id: R.METROPOLISES.index(n.hex) for n in nodes if n.hex in R.METROPOLISES
             and board.hexes[n.hex].color != "yellow" and not (rge and n.kind == "town")}
    if rge:
        ends = {n.id for n in nodes if n.hex in R.RGE_HEXES}
        return metro, merge, ends, {n.id: 2 for n in nodes if n.hex in R.METROPOLISES}, []
    out = {n.id for n in nodes if n.hex in R.OUT_TOKENED and n.city_index == 0
           and any(c != company.id for c in n.tokens)}
    ends = {n.id for n in nodes} - out if out else set()
    coal_hexes = {h for h, bh in board.hexes.items() if "K" in bh.icons}
    steel_hexes = {h for h, bh in board.hexes.items() if "S" in bh.icons}
    coal_hexes |= {board.options["coal"]} if board.options.get("coal") else set()
    steel_hexes |= {board.options["steel"]} if board.options.get("steel") else set()
    hex_class = {h: i for i, h in enumerate(sorted(coal_hexes | steel_hexes))}
    coal = {n.id: hex_class[n.hex] for n in nodes if n.hex in coal_hexes}
    steel = {n.id: hex_class[n.hex] for n in nodes if n.hex in steel_hexes}
    for n in nodes:
        if n.hex in R.EASTERN_RUHR:
            if n.part == R.COAL_SIDE[n.hex]:
                coal[n.id] = len(hex_class)
            if n.part == R.STEEL_SIDE[n.hex]:
                steel[n.id] = len(hex_class)
    return metro, merge, ends, {}, [list(coal.items()), list(steel.items())]


def test_18rhl_route_rules_read_from_arrays_match_the_nodes():
    compared = 0
    for request in boards("18rhl"):
        graph = graph_for(request["board"])
        board, title = graph.board, graph.board.title
        company = build_company(request["company"], board)
        for train in trains(graph):
            rules = title.route_rules(train, company, board, graph)
            metro, merge, ends, alt, montan = rhl_rules_by_node(title, train, company, board, graph)
            assert list(rules.metro.items()) == list(metro.items())
            assert list(rules.merge.items()) == list(merge.items())
            assert rules.end_nodes == ends and rules.alt_multiplier == alt
            if montan:
                assert [list(classes.items()) for classes, _ in rules.bonuses[0].clauses] == montan
            compared += 1
    assert compared > 0


def spec_fields(spec) -> dict:
    """A TrainSpec's arrays and scalars (its rules object aside), for comparing two compilations."""
    from dataclasses import fields

    out = {}
    for f in fields(spec):
        value = getattr(spec, f.name)
        if f.name in ("rules", "train", "walk"):
            continue
        out[f.name] = (value.dtype.str, value.shape, value.tolist()) if isinstance(value, np.ndarray) else value
    return out


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "18rhl", "1860", "1889"])
def test_trains_compiled_together_match_each_compiled_alone(title):
    """revenue.problem compiles the trains that Title.train_rules_key calls alike once, then gives each
    its own rows' limits: every train's arrays must be what compiling it by itself gives."""
    from revenue.problem import _spec, compile_problem

    shared = 0
    sequence = boards(title) if title != "1889" else [
        {"board": {"title": "1889", "tiles": [], "tokens": [{"hex": "F3", "city": 0, "company": "AR"}]},
         "company": {"id": "AR"}}]
    for request in sequence:
        graph = graph_for(request["board"])
        names = sorted({t.name for t in trains(graph)})
        leased = [{"name": n, "leased": True} for n in names] if title == "1860" else []
        for train_request in ([{"name": n} for n in names], leased):
            if not train_request:
                continue
            try:
                company = build_company({"id": request["company"]["id"], "trains": train_request}, graph.board)
            except InputError:      # (1860's leased trains under options that forbid them, say)
                continue
            problem = compile_problem(graph, company)
            for train in company.trains:
                together = problem.specs[train.name]
                alone = _spec(train, company, graph)
                assert together.train is train
                assert spec_fields(together) == spec_fields(alone), (title, train.name)
                assert together.rules == alone.rules
                shared += together.base is problem.specs[company.trains[0].name].base
    assert shared > 0


@pytest.mark.slow
@pytest.mark.parametrize("merge, classes, refused", [
    ({}, {}, False), ({0: 61}, {1: 0, 2: 61}, False), ({0: 62}, {}, True), ({0: -1}, {}, True),
    ({}, {1: 62}, True), ({}, {1: 0, 2: -1}, True)])
def test_merge_groups_and_bonus_classes_out_of_the_kernels_bits_are_refused(merge, classes, refused):
    """The kernels keep merge groups and bonus classes as bits of one int64: numbers outside 0..61 are
    refused when the problem is compiled."""
    from revenue.problem import _compile
    from revenue.titles.base import RouteBonus, RouteRules

    request = boards("1830")[5]
    graph = graph_for(request["board"])
    company = build_company(request["company"], graph.board)
    title = graph.board.title

    def route_rules(train, company, board, graph):
        return RouteRules(merge=dict(merge), bonuses=[RouteBonus("b", 10, [(dict(classes), 1)])] if classes else [])

    title.route_rules = route_rules      # (on the shared title instance: removed below)
    try:
        if refused:
            with pytest.raises(ValueError, match="numbered 0..61"):
                _compile(graph, company)
        else:
            assert _compile(graph, company).specs
    finally:
        del title.route_rules


def compiled_afresh(graph, company, memos):
    """revenue.problem._compile with these memos empty (and put back after), and no 18Rhl track facts."""
    from revenue import problem as P

    kept = [dict(m) for m in memos]
    facts = graph.track.shared.pop("18rhl facts", None)
    for m in memos:
        m.clear()
    try:
        return P._compile(graph, company)
    finally:
        for m, saved in zip(memos, kept):
            m.clear()
            m.update(saved)
        if facts is not None:
            graph.track.shared["18rhl facts"] = facts


def remembered_matches_afresh(graph, company, memos, seen: dict) -> tuple[int, int]:
    """Compile with the memos and with them empty; every array and rule must agree. Returns (specs whose
    rules object was seen before, specs compared); `seen` keeps every rules object alive (an id stays its
    own)."""
    from revenue import problem as P

    remembered = P._compile(graph, company)
    reused = sum(id(s.rules) in seen for s in remembered.specs.values())
    fresh = compiled_afresh(graph, company, memos)
    assert remembered.blocks.tolist() == fresh.blocks.tolist()
    for name, spec in remembered.specs.items():
        assert spec_fields(spec) == spec_fields(fresh.specs[name]), (company.id, name)
        assert spec.rules == fresh.specs[name].rules, (company.id, name)
    seen.update((id(s.rules), s.rules) for p in (remembered, fresh) for s in p.specs.values())
    return reused, len(remembered.specs)


@pytest.mark.slow
def test_18rhl_rules_remembered_between_boards_match_rules_read_afresh():
    """18Rhl answers boards that read alike (node numbering, the tiles the rules read, tokens there, icons,
    options, phase) with the same RouteRules and groups objects, and revenue.problem compiles such an
    object once: along a whole game (each board after the one before, as a server sees them; phases and
    coal/steel options varied in turn), for every company with a token and every train, the problem's
    arrays and rules must be those compiled with nothing remembered."""
    from revenue import problem as P
    from revenue.titles import g18rhl as R

    reused = compared = 0
    seen: dict[int, object] = {}    # every rules object compiled, kept alive (so an id stays its own)
    variants = [({}, None), ({}, None), ({}, "5"), ({}, "3"), ({"coal": "D11", "steel": "D9"}, None),
                ({"coal": "J3", "steel": "E6"}, "6")]
    for k, game in enumerate(game_sequences(seed=3)["18rhl"]):
        request = game.request["board"]
        options, phase = variants[k % len(variants)]
        graph = graph_for(dict(request, options={**(request.get("options") or {}), **options},
                               phase=phase or request["phase"]))
        board = graph.board
        for company_id in sorted({c for cs in board.tokens.values() for c in cs} | {game.request["company"]["id"]}):
            names = sorted({t.name for t in trains(graph)})
            company = build_company({"id": company_id, "trains": [{"name": n} for n in names]}, board)
            r, c = remembered_matches_afresh(
                graph, company, (R._READINGS, R._LAYS, P._RULE_ARRAYS, P._GROUP_BITS, P._TILE_GROUP_BITS), seen)
            reused, compared = reused + r, compared + c
    assert compared > 0 and reused > compared // 2, (reused, compared)


@pytest.mark.slow
@pytest.mark.parametrize("options", [{}, {"nationalization": "true"}, {"southern_formed": "true"},
                                     {"re_enter_hexes": "true", "no_skip_towns": "true"}])
def test_1860_rules_remembered_between_boards_match_rules_read_afresh(options):
    """1860 answers boards that read alike (the options' rules, the train's rows, where the halts and the
    home city are, the home token) with the same RouteRules object: along a whole game, for every company
    with a token, owned and leased trains, the problem's arrays and rules must be those compiled with
    nothing remembered."""
    from revenue import problem as P
    from revenue.titles import g1860 as G

    reused = compared = 0
    seen: dict[int, object] = {}    # every rules object compiled, kept alive (so an id stays its own)
    for game in game_sequences(seed=3)["1860"]:
        request = game.request["board"]
        graph = graph_for(dict(request, options={**(request.get("options") or {}), **options}))
        board = graph.board
        names = sorted({t.name for t in trains(graph)})
        for company_id in sorted({c for cs in board.tokens.values() for c in cs}):
            for leased in (False, True):
                try:
                    company = build_company({"id": company_id, "trains": [{"name": n, "leased": leased}
                                                                          for n in names]}, board)
                except InputError:      # (leased trains of a company that may not lease, say)
                    continue
                r, c = remembered_matches_afresh(
                    graph, company, (G._RULES, G._HOME_CITIES, G._READ_OPTIONS, P._RULE_ARRAYS, P._GROUP_BITS, P._TILE_GROUP_BITS),
                    seen)
                reused, compared = reused + r, compared + c
    assert compared > 0 and reused > compared // 2, (reused, compared)


@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "1860"])
def test_base_blocks_read_from_the_tokened_nodes_match_node_blocks(title):
    """revenue.problem reads the base rule's blocked nodes from the few tokened nodes: off-boards, and
    cities full of other companies' tokens; the bypassable ones are the blocked cities. They must be what
    Title.node_blocks says node by node, for every company on the board and one with no token."""
    from revenue.problem import compile_problem

    blocked = 0
    for request in boards(title):
        graph = graph_for(request["board"])
        board, rules = graph.board, graph.board.title
        for company_id in sorted({c for cs in board.tokens.values() for c in cs}) + ["NONE"]:
            company = build_company({"id": company_id, "trains": [{"name": rules_train(graph)}]}, board)
            problem = compile_problem(graph, company)
            expected = [rules.node_blocks(nd, company_id, board) for nd in graph.nodes]
            assert problem.blocks.tolist() == expected
            assert problem.bypassable.tolist() == [b and nd.kind in ("city", "pass")
                                                   for b, nd in zip(expected, graph.nodes)]
            blocked += sum(b and nd.kind != "offboard" for b, nd in zip(expected, graph.nodes))
    assert blocked > 0


def rules_train(graph) -> str:
    return sorted(t.name for t in trains(graph) if not t.leased)[0]


def test_18rhl_map_facts_read_from_the_lays_match_every_hexs_tiles():
    """18Rhl reads the metropolises' colours, the coal and steel icons and the Eastern Ruhr links from a
    board's checked lays (Board._laid: only the lays it reads, remembered by their ids) instead of the
    board's hexes dict: along whole games, as a server sees them, the same facts as from every hex."""
    from revenue.titles import g18rhl as R

    fast = 0
    for seed in (0, 3):
        R._LAYS.clear()
        for game in game_sequences(seed=seed)["18rhl"]:
            board = graph_for(game.request["board"]).board
            laid = board._laid
            if laid is not None:
                fast += 1
                assert R._lay_facts(laid, board.data.printed) == R._lay_facts(laid, board.data.printed) \
                    == R._tile_facts(board.hexes)
    assert fast > 100
