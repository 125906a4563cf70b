"""A board: a title's printed map with tile lays and tokens, in one phase (rules/base.md sections 1-2), and
the printed map as board hexes. Boards are read from requests by revenue.board_request.build_board (checked
in full) or revenue.known.build_known (made of lays and tokens checked before).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .hexgrid import neighbour_name
from .core.track import NO_TOWN, least_town
from .geometry import NODE_KINDS, tile_geometry
from .tiles import Tile, icon_name, parse_tile
from .titles.base import Phase, Title, TitleData


@dataclass
class BoardHex:
    name: str
    location: str
    color: str              # colour of the tile now on the hex
    tile: Tile
    rotation: int
    tile_name: str          # manifest name, or the hex name for a printed or raw-code tile
    impassable: frozenset[int] = frozenset()   # map edges with an impassable border
    icons: tuple[str, ...] = ()
    _track: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def track(self) -> tuple:
        """(the tile at its rotation as the track walk reads it (revenue.geometry.TileGeometry), the
        impassable map edges as bits), made once."""
        if self._track is None:
            self._track = (tile_geometry(self.tile, self.rotation), sum(1 << e for e in self.impassable))
        return self._track

    def forget_track(self) -> None:
        self._track = None

    def map_edge(self, local: int) -> int:
        return (local + self.rotation) % 6

    def local_edge(self, edge: int) -> int:
        return (edge - self.rotation) % 6


class Board:
    """A board: the title and its map variant's data, the phase, the hexes with the tiles now on them, the
    tokens. A board built from lays checked before (revenue.known.build_known) makes its hexes dict when
    first read."""

    # (slots: a game server makes and lets go of a board per call)
    __slots__ = ("title", "data", "phase", "neighbours", "_hexes", "_tokens", "options", "stop_total", "code_chars",
                 "key", "track", "token_node", "_laid", "_placed", "remember", "flipped")

    def __init__(self, title: Title, data: TitleData, phase: Phase, hexes: dict[str, BoardHex] | None,
                 neighbours: dict[str, dict[int, str]], tokens: dict[tuple[str, int], list[str]] | None = None,
                 options: dict[str, str] | None = None, stop_total: int = 0, code_chars: int = 0):
        self.title, self.data, self.phase, self.neighbours = title, data, phase, neighbours
        self._hexes = hexes
        self._tokens = {} if tokens is None else tokens
        self.options = {} if options is None else options
        self.stop_total = stop_total    # the most every stop of the board pays together (revenue.company's bound)
        self.flipped: frozenset[tuple[str, str]] = frozenset()    # (hex, company) of the flipped tokens (1860)
        self.code_chars = code_chars    # the length of the tile codes of all hexes (revenue.cache.graph_bytes)
        # A board built from lays and tokens checked before (revenue.known.build_known) also has: `key`, what
        # it is among the boards of every title (revenue.graph_cache.graph_for's cache key; also set by the
        # full check when all its lays and tokens have keys, so the board asked again hits the same graph),
        # `track`, its revenue.geometry.Track (made by the same kernel call that placed the lays and tokens,
        # or shared with a recent board of the same lays), and `token_node`, the track's node of each
        # token's city (-1: none), in request order.
        self.key: tuple | None = None
        self.track = None
        self.token_node: np.ndarray | None = None
        self._laid: tuple | None = None     # (Known, lay ids as an int64 array): what `hexes` is made of
        self._placed: tuple | None = None   # (Known, token ids): what `tokens` is made of
        # a board checked in full whose lays all have ids in its revenue.known.Known: (Known, lay ids as bytes,
        # stop total and code length changes), for revenue.graph.build_graph to find or remember its track by
        # its lays
        self.remember: tuple | None = None

    @property
    def tokens(self) -> dict[tuple[str, int], list[str]]:
        """(hex, city index) -> the companies with a token there, in request order."""
        if self._tokens is None:
            rows = self._placed[0].token_rows
            tokens: dict[tuple[str, int], list[str]] = {}
            for name, city, company in map(rows.__getitem__, self._placed[1].tolist()):
                tokens.setdefault((name, city), []).append(company)
            self._tokens = tokens
        return self._tokens

    def token_companies(self) -> list[str]:
        """The company of each token, in request order (a board of checked tokens, see token_node)."""
        rows = self._placed[0].token_rows
        return [rows[t][2] for t in self._placed[1].tolist()]

    @property
    def hexes(self) -> dict[str, BoardHex]:
        """Hex name -> the hex with the tile now on it, in map order."""
        if self._hexes is None:
            known, lays = self._laid
            ids = lays.tolist()
            hexes = dict(self.data.printed)
            hexes.update(zip(map(known.lay_names.__getitem__, ids), map(known.lay_hexes.__getitem__, ids)))
            self._hexes = hexes
        return self._hexes

    @property
    def layout(self) -> str:
        return self.data.layout

    def least_town_revenue(self) -> int | None:
        """The least any town on the board pays in its phase (None without towns): 1860's halt rows compare
        it with a halt's subsidy. Read from the track's node arrays when the board has them (a board of
        checked lays, one compiled call); else from every hex's tile."""
        colours = self.phase.colours
        track = self.track
        if track is None:
            values = [r.value(colours) for bh in self.hexes.values() for r in bh.tile.town_revenues]
            return min(values) if values else None
        registry = track.registry
        least = least_town(track.node_reg, registry.node_table, registry.node_values(colours), _TOWN_KIND)
        return None if least == NO_TOWN else int(least)

    def __repr__(self) -> str:
        return f"Board({self.title.name}, phase {self.phase.name}, {len(self.hexes)} hexes, {len(self.tokens)} tokens)"


_TOWN_KIND = NODE_KINDS.index("town")     # (the track's node kind column)


def neighbour_map(data: TitleData) -> dict[str, dict[int, str]]:
    """Hex name -> {edge: neighbouring hex on the map}; computed once per title data."""
    if data.neighbours is None:
        data.neighbours = {name: {edge: other for edge in range(6)
                                  if (other := neighbour_name(name, edge, data.layout)) in data.hexes}
                           for name in data.hexes}
    return data.neighbours


def printed_hexes(title: Title, data: TitleData) -> dict[str, BoardHex]:
    """The printed map as board hexes; computed once per title data (boards copy the dict)."""
    if data.printed is None:
        data.printed = {}
        for name, mh in data.hexes.items():
            tile = parse_tile(mh.code, f"title {title.name} hex {name}")
            data.printed[name] = BoardHex(name, mh.location, mh.color, tile, mh.rotation, name,
                                          frozenset((e + mh.rotation) % 6 for e, t in tile.borders
                                                    if t == "impassable"),
                                          tuple(icon_name(i) for i in tile.icons))
    return data.printed


def printed_totals(data: TitleData) -> tuple[int, int]:
    """(stop_total, code_chars) of the printed map (printed_hexes), once per title data; a board adds its
    lays' changes."""
    totals = data.printed_totals
    if totals is None:
        printed = data.printed
        totals = data.printed_totals = (sum(h.tile.stop_maximum for h in printed.values()),
                                        sum(len(h.tile.code) for h in printed.values()))
    return totals

