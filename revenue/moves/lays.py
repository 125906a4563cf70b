"""Every legal tile lay of a company, as the 18xx.games engine's track step offers and accepts it
(Engine::Step::Tracker): a tile of a colour the phase allows, one colour on from the hex's tile, that keeps
every old path, town and label, at a rotation whose exits all lead on, at least one of them where the
company's track reaches, within the title's track restriction, with a copy left, at a terrain cost the
company can pay.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..board_request import build_board
from ..errors import InputError
from ..tiles import Tile, parse_tile
from .network import company_reach, hex_neighbours, reaches_any
from .shapes import COLOUR_ORDER, Shape, ct_edges_within, path_within, paths_kept, shape
from .title_rules import PERMISSIVE, LayRules, lay_rules
from .train_reach import TrainReach, biggest_train


@dataclass(frozen=True)
class Candidate:
    name: str
    colour: str
    tile: Tile


def legal_lays(request: dict, player_privates=None, second: bool = False) -> list[dict]:
    """Every legal single tile lay of the request's company: [{hex, tile, rotation, cost}], in map order,
    then manifest order, then rotation. Without `company.cash` in the request, cost is no limit.
    `player_privates`: the privates players own now, which block their hexes (a request does not say who
    owns the privates of other companies); None: every private open in the phase that the company does
    not own. `second`: the turn's second lay, where the title has one (1860: after a yellow tile without a
    city, another; none elsewhere)."""
    board, company, cash = read_request(request)
    spec = request.get("company") or {}
    return list(lays_on(board, company, cash, spec.get("privates") or (), player_privates, spec.get("trains") or (),
                        second))


def read_request(request: dict):
    """(board, company id, cash or None) of a SolveRequest dict."""
    board = build_board((request or {}).get("board") or {})
    company = (request.get("company") or {}).get("id") or ""
    if not company:
        raise InputError("company.id", "name the company that lays track")
    cash = (request.get("company") or {}).get("cash")
    if cash in (None, ""):
        return board, company, None
    try:
        return board, company, int(cash)
    except (TypeError, ValueError):
        raise InputError("company.cash", f"{cash!r} is not an integer") from None


def board_tiles(board) -> dict:
    return {name: (bh.tile, bh.rotation) for name, bh in board.hexes.items()}


def lays_on(board, company: str, cash: int | None, privates=(), player_privates=None, company_trains=(),
            second: bool = False, hexes=None):
    """The legal lays (legal_lays) on a board read before; `privates` the company's own, `company_trains` its
    trains as the request gives them (1860 reads its biggest); `second`: the turn's second lay; `hexes`: only
    on these (1860's home track, laid as the company floats)."""
    rules = lay_rules(board.title.name)
    if second and not rules.second_lay:
        return
    privates = set(privates)
    tiles = board_tiles(board)
    tokens = rules.blocking_tokens(board, company)
    neighbours = hex_neighbours(board)
    reach = company_reach(tiles, tokens, neighbours, company)
    blocked = _blocked(rules, board.phase.name, privates, player_privates)
    candidates = _candidates(board)
    if second:
        candidates = [c for c in candidates if c.colour == "yellow" and not c.tile.cities]
    trains = TrainReach(tiles, tokens, neighbours, company, reach, biggest_train(board, company_trains)) \
        if rules.train_reach else None
    for name, bh in board.hexes.items():
        edges = reach.edges.get(name)
        if not edges or name in blocked or bh.color not in COLOUR_ORDER or (
                hexes is not None and name not in hexes):
            continue
        if trains is not None and bh.color != "white" and not trains.hex_available(name):
            continue
        old = shape(bh.tile, bh.rotation)
        cost = upgrade_cost(bh.tile, rules, privates)
        if cash is not None and cost > cash:
            continue
        unrotated = name in rules.unrotated_hexes
        for cand in candidates:
            ruled = rules.upgrade_rule(board, bh, cand.name) if rules.upgrade_rule else None
            if not (upgrades_to(bh, cand) if ruled is None else ruled):
                continue
            for rotation in range(6):
                if rotation and (cand.name in rules.no_rotation or unrotated):
                    continue
                new = shape(cand.tile, rotation)
                if not unrotated:
                    if rules.stub_rule and not rules.stub_rule(bh, new.exits, cand.name):
                        continue
                    if not rotation_legal(old, new, edges, neighbours[name]):
                        continue
                if trains is not None:
                    if bh.color != "white" and not trains.restriction_met(name, old, cand.tile, rotation):
                        continue
                elif cand.name not in rules.unrestricted_tiles and (
                        not keeps_towns(old, new) or
                        not _restriction_met(rules, tiles, tokens, neighbours, company, name, old, new, cand.tile,
                                             rotation)):
                    continue
                yield {"hex": name, "tile": cand.name, "rotation": rotation, "cost": cost}


def _blocked(rules: LayRules, phase: str, privates: set, player_privates) -> set[str]:
    """The hexes a private blocks: one a player owns, open in the phase (Ability blocks_hexes, owner_type
    player)."""
    if phase in rules.privates_close:
        return set()
    owners = (set(rules.blocks) if player_privates is None else set(player_privates)) - privates
    return {h for private, hexes in rules.blocks.items() if private in owners for h in hexes}


def _candidates(board) -> list[Candidate]:
    """The manifest tiles of the phase's colours with a copy left (manifest count less copies on the board)."""
    on_board: dict[str, int] = {}
    for bh in board.hexes.values():
        on_board[bh.tile_name] = on_board.get(bh.tile_name, 0) + 1
    colours = board.phase.colours
    out = []
    for name, entry in board.data.manifest.items():
        count = entry.get("count")
        left = None if count in (None, "unlimited") else int(count) - on_board.get(name, 0)
        if entry["color"] in colours and (left is None or left > 0):
            tile = parse_tile(entry["code"], f"tile {name}")
            # a tile with a blocks_lay icon is laid only by a private's ability (1889's port)
            if not any(kind == "icon" and params.get("blocks_lay") for kind, params in tile.parts):
                out.append(Candidate(name, entry["color"], tile))
    return out


def upgrades_to(bh, cand: Candidate) -> bool:
    """Game#upgrades_to?: the next colour, old track kept at some rotation, the same label, the same towns
    and (unless labelled) cities."""
    if bh.color not in COLOUR_ORDER or cand.colour not in COLOUR_ORDER:
        return False
    if COLOUR_ORDER.index(cand.colour) != COLOUR_ORDER.index(bh.color) + 1:
        return False
    old, new = shape(bh.tile, bh.rotation), shape(cand.tile, 0)
    if not any(paths_kept(shape(bh.tile, r), new) for r in range(6)):
        return False
    if old.label != new.label:
        return False
    if old.towns != new.towns:
        return False
    if old.label is None and old.cities != new.cities:
        return False
    if old.cities > 1 and new.cities > 1 and not ct_edges_within(old, new):
        return False
    if old.label is not None and old.cities and not new.cities:
        return False
    if bh.color == "white" and old.label == "OO" and old.cities != new.cities:
        return False
    return True


def rotation_legal(old: Shape, new: Shape, reached: set[int], leads_on: dict[int, str]) -> bool:
    """Tracker#legal_tile_rotation?: every exit leads to a hex, one is where the company reaches, the old
    paths stay, no city appears apart from the old ones beyond the added count, and every old city of a
    multi-city tile lies within exactly one new one."""
    exits = new.exits
    if any(e not in leads_on for e in exits) or not (exits & reached):
        return False
    if not paths_kept(old, new):
        return False
    extra = max(0, len(new.ct_edges) - len(old.ct_edges))
    if extra < sum(all(not set(n) & set(o) for o in old.ct_edges) for n in new.ct_edges):
        return False
    if new.cities > 1 and old.cities > 1:
        for o in old.ct_edges:
            if sum(set(o) <= set(n) for n in new.ct_edges) != 1:
                return False
    return True


def keeps_towns(old: Shape, new: Shape) -> bool:
    """No old city or town loses an exit (the engine's ALLOW_REMOVING_TOWNS off)."""
    return all(any(o <= n for n in new.node_exits) for o in old.node_exits)


def _restriction_met(rules, tiles, tokens, neighbours, company, name, old, new, tile, rotation) -> bool:
    """semi_restrictive: some new path the company reaches after the lay is new track, or changes the value
    of the nodes on an old one."""
    if rules.track_restriction == PERMISSIVE or not old.paths:
        return True
    changed = set()
    for i, np in enumerate(new.paths):
        op = next((j for j, p in enumerate(old.paths) if path_within(np, p)), None)
        if op is None or old.path_revenues[op] != new.path_revenues[i]:
            changed.add((name, i))
    if not changed:
        return False
    after = dict(tiles)
    after[name] = (tile, rotation)
    return reaches_any(after, tokens, neighbours, company, changed)


def upgrade_cost(tile, rules: LayRules, privates: set) -> int:
    """The terrain cost of laying on `tile` (its upgrade parts), less a private's discount for terrain of
    that one kind."""
    total = 0
    for kind, params in tile.parts:
        if kind != "upgrade":
            continue
        cost = int(params.get("cost", "0") or 0)
        terrains = set(t for t in params.get("terrain", "").replace("+", "|").split("|") if t)
        for private, (terrain, discount) in rules.discounts.items():
            if private in privates and terrains == {terrain}:
                cost = max(0, cost - discount)
        total += cost
    return total
