"""The board of a game in play: which tile lies on each hex with its rotation, the station tokens in each
city, and the home cities still reserved, as the 18xx.games engine keeps them (its Hex#lay).

A tile is named by its manifest name and copy (`57-0`); a city by the tile it is on and its index among
that tile's cities (`57-0-1`), or for a printed tile by the printed tile's id (`G5-0-0`: tiles defined by
code are named after their hex). Laying a tile moves the old tile's tokens and reservations to the new
one's cities: by index when no old city has track, else each old city to the first new city whose exits
include all of its exits (the engine's rule, so that track stays connected), and the old tile goes back to
the supply.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..tiles import Tile, parse_tile


class BoardError(ValueError):
    """A lay or token the board cannot take (the replay names the action)."""


@dataclass
class HexState:
    tile: Tile
    name: str                      # the tile's name (a manifest name, or the printed tile's)
    rotation: int
    colour: str
    tile_id: str | None            # the laid copy ("57-0"); None while the printed tile lies there
    tokens: list[list[str]] = field(default_factory=list)         # per city, the companies in it
    reservations: list[list[str]] = field(default_factory=list)   # per city, whose home it still is


def city_exits(tile: Tile, rotation: int) -> list[set[int]]:
    """The map edges each city of `tile` (in city order) has track to, laid at `rotation`."""
    out = []
    for city in tile.cities:
        edges = set()
        for path in tile.paths:
            for end, other in ((path.a, path.b), (path.b, path.a)):
                if end.node == city.ordinal and other.edge is not None:
                    edges.add((other.edge + rotation) % 6)
        out.append(edges)
    return out


def city_map(old: Tile, old_rotation: int, new: Tile, new_rotation: int) -> list[int]:
    """For each city of `old`, the index of the city of `new` its tokens move to (Hex#lay)."""
    old_exits = city_exits(old, old_rotation)
    if not any(old_exits) and len(old.cities) == len(new.cities):
        return list(range(len(old.cities)))
    new_exits = city_exits(new, new_rotation)
    out = []
    for index, exits in enumerate(old_exits):
        target = next((j for j, e in enumerate(new_exits) if exits <= e), None)
        if target is None:
            if index >= len(new_exits):
                raise BoardError(f"city {index} of the old tile has no city to go to on the new one")
            target = index
        out.append(target)
    return out


class BoardState:
    """Tiles, tokens and home reservations of a game's board, by hex; hexes nobody touched keep their
    printed tile and are not stored."""

    def __init__(self, data, raw_hexes: list[dict]):
        self.data = data
        self.manifest = data.manifest
        self.hexes: dict[str, HexState] = {}
        self.laid: dict[str, str] = {}        # laid tile id -> hex
        # printed tiles named by the library (`city`, `town`, `57`): copy n of a name in a colour is the
        # n-th such hex in map order; a printed tile defined by code is named after its hex
        self._library: dict[str, str] = {}
        counts: dict[tuple[str, str], int] = {}
        for h in raw_hexes:
            name = h.get("tile") or h["name"]
            if name != h["name"]:
                key = (name, h.get("color", "white"))
                self._library.setdefault(f"{name}-{counts.get(key, 0)}", h["name"])
                counts[key] = counts.get(key, 0) + 1

    # ---- hexes -------------------------------------------------------------------------------------
    def hex(self, name: str) -> HexState:
        state = self.hexes.get(name)
        if state is None:
            printed = self.data.hexes.get(name)
            if printed is None:
                raise BoardError(f"{name} is no hex of the map")
            tile = parse_tile(printed.code, f"map hex {name}")
            n = len(tile.cities)
            reservations = [list(r) for r in printed.reservations][:n]
            reservations += [[] for _ in range(n - len(reservations))]
            state = HexState(tile, name, printed.rotation, printed.color, None, [[] for _ in range(n)],
                             reservations)
            self.hexes[name] = state
        return state

    def lay(self, hex_name: str, tile_id: str, rotation: int) -> None:
        name, _, copy = tile_id.rpartition("-")
        spec = self.manifest.get(name)
        if spec is None or not copy.isdigit():
            raise BoardError(f"tile {tile_id!r} is no copy of a tile of the title's manifest")
        if not isinstance(rotation, int) or not 0 <= rotation <= 5:
            raise BoardError(f"rotation {rotation!r} is not in 0..5")
        where = self.laid.get(tile_id)
        if where is not None:
            raise BoardError(f"tile {tile_id} already lies on {where}")
        count = spec.get("count")
        if isinstance(count, int) and int(copy) >= count:
            raise BoardError(f"tile {name} has only {count} copies")
        state = self.hex(hex_name)
        tile = parse_tile(spec["code"], f"tile {name}")
        moves = city_map(state.tile, state.rotation, tile, rotation) if state.tile.cities else []
        tokens = [[] for _ in tile.cities]
        reservations = [[] for _ in tile.cities]
        for old, new in enumerate(moves):
            reservations[new].extend(state.reservations[old])
            tokens[new].extend(state.tokens[old])
        if state.tile_id is not None:
            del self.laid[state.tile_id]
        state.tile, state.name, state.rotation, state.tile_id = tile, name, rotation, tile_id
        state.colour = spec.get("color", "")
        state.tokens, state.reservations = tokens, reservations
        self.laid[tile_id] = hex_name

    # ---- tokens ------------------------------------------------------------------------------------
    def city_of(self, city_id: str) -> tuple[str, int]:
        """(hex, city index) of a city id of a `place_token` action."""
        tile_id, _, index = str(city_id).rpartition("-")
        if not index.isdigit() or not tile_id:
            raise BoardError(f"city {city_id!r} is not <tile>-<copy>-<city>")
        hex_name = self.laid.get(tile_id)
        if hex_name is None:
            name = tile_id.rpartition("-")[0]
            hex_name = name if name in self.data.hexes else self._library.get(tile_id)
            if hex_name is None or self.hex(hex_name).tile_id is not None:
                raise BoardError(f"no tile {tile_id} lies on the board")
        if int(index) >= len(self.hex(hex_name).tile.cities):
            raise BoardError(f"the tile on {hex_name} has no city {index}")
        return hex_name, int(index)

    def place_token(self, hex_name: str, city: int, company: str) -> None:
        state = self.hex(hex_name)
        if company in state.tokens[city]:
            raise BoardError(f"{company} already has a token in {hex_name} city {city}")
        slots = state.tile.cities[city].slots
        if len(state.tokens[city]) >= slots:
            raise BoardError(f"{hex_name} city {city} has no free slot")
        for reserved in state.reservations:
            if company in reserved:
                reserved.remove(company)
        state.tokens[city].append(company)

    def home_city(self, hex_name: str, company: str, city: int | None) -> int | None:
        """Where `company`'s home token goes in `hex_name`: the city reserved for it, else the city its
        data names, else the only city; None when the company must choose (several cities, none named)."""
        state = self.hex(hex_name)
        for index, reserved in enumerate(state.reservations):
            if company in reserved:
                return index
        if city is not None and city < len(state.tile.cities):
            return city
        return 0 if len(state.tile.cities) == 1 else None

    def has_token(self, hex_name: str, company: str) -> bool:
        state = self.hexes.get(hex_name)
        return state is not None and any(company in cs for cs in state.tokens)

    def token_count(self, company: str) -> int:
        """How many of its tokens `company` has on the board."""
        return sum(company in cs for s in self.hexes.values() for cs in s.tokens)

    def remove_token(self, hex_name: str, company: str) -> None:
        for cs in self.hex(hex_name).tokens:
            if company in cs:
                cs.remove(company)

    # ---- as a request ------------------------------------------------------------------------------
    def tiles_request(self) -> list[dict]:
        return [{"hex": h, "tile": s.name, "rotation": s.rotation}
                for h, s in self.hexes.items() if s.tile_id is not None]

    def tokens_request(self) -> list[dict]:
        return [{"hex": h, "city": i, "company": c}
                for h, s in self.hexes.items() for i, cs in enumerate(s.tokens) for c in cs]
