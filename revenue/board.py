"""A board: a title's printed map with tile lays and tokens, in one phase (rules/base.md sections 1-2).

`build_board(request)` takes the proto3-JSON shape of `revenue.v1.Board` as a dict and checks every field,
raising InputError with the field path (`board.tiles[3].rotation: 7 is not in 0..5`).
"""
from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter, methodcaller

import numpy as np

from . import hexgrid
from .bounds import (MAX_DISTANCE, MAX_LIST, MAX_MULTIPLIER, MAX_NAME_CHARS, MAX_PHASE_COLOURS, MAX_STOP_REVENUE,
                     size_violations)
from .core.track import NO_TOWN, least_town, place_board, place_tokens
from .errors import InputError, short_repr
from .tiles import Tile, icon_name, parse_tile
from .titles import get_title
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
        """(the tile at its rotation as the track walk reads it (revenue.graph.TileGeometry), the
        impassable map edges as bits), made once."""
        if self._track is None:
            from .graph import geometry
            self._track = (geometry(self.tile, self.rotation), sum(1 << e for e in self.impassable))
        return self._track

    def forget_track(self) -> None:
        self._track = None

    def map_edge(self, local: int) -> int:
        return (local + self.rotation) % 6

    def local_edge(self, edge: int) -> int:
        return (edge - self.rotation) % 6


class Board:
    """A board: the title and its map variant's data, the phase, the hexes with the tiles now on them, the
    tokens. A board built from lays checked before (_build_known) makes its hexes dict when first read."""

    # (slots: a game server makes and lets go of a board per call)
    __slots__ = ("title", "data", "phase", "neighbours", "_hexes", "_tokens", "options", "stop_total", "code_chars",
                 "key", "track", "token_node", "_laid", "_placed", "remember")

    def __init__(self, title: Title, data: TitleData, phase: Phase, hexes: dict[str, BoardHex] | None,
                 neighbours: dict[str, dict[int, str]], tokens: dict[tuple[str, int], list[str]] | None = None,
                 options: dict[str, str] | None = None, stop_total: int = 0, code_chars: int = 0):
        self.title, self.data, self.phase, self.neighbours = title, data, phase, neighbours
        self._hexes = hexes
        self._tokens = {} if tokens is None else tokens
        self.options = {} if options is None else options
        self.stop_total = stop_total    # the most every stop of the board pays together (revenue.company's bound)
        self.code_chars = code_chars    # the length of the tile codes of all hexes (revenue.cache.graph_bytes)
        # A board built from lays and tokens checked before (_build_known) also has: `key`, what it is among
        # the boards of every title (revenue.graph.graph_for's cache key; also set by the full check when
        # all its lays and tokens have keys, so the board asked again hits the same graph), `track`, its revenue.graph.Track
        # (made by the same kernel call that placed the lays and tokens, or shared with a recent board of
        # the same lays), and `token_node`, the track's node of each token's city (-1: none), in request order.
        self.key: tuple | None = None
        self.track = None
        self.token_node: np.ndarray | None = None
        self._laid: tuple | None = None     # (_Known, lay ids as an int64 array): what `hexes` is made of
        self._placed: tuple | None = None   # (_Known, token ids): what `tokens` is made of
        # a board checked in full whose lays all have ids in _Known: (_Known, lay ids as bytes, stop total and
        # code length changes), for revenue.graph.build_graph to find or remember its track by its lays
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


def _int(value, where: str) -> int:
    if value is None or value == "":
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(where, f"{short_repr(value)} is not an integer")
    try:
        number = int(value)
    except ValueError:
        raise InputError(where, f"{short_repr(value)} is not an integer") from None
    if number != float(value):
        raise InputError(where, f"{short_repr(value)} is not an integer")
    return number


def _bounded(value, where: str, low: int, high: int) -> int:
    """An integer field within low..high (0 or absent reads as 0)."""
    number = _int(value, where)
    if not low <= number <= high:
        raise InputError(where, f"{number} is not in {low}..{high}")
    return number


def _check_revenues(tile: Tile, where: str) -> None:
    """A tile code from the request pays 0..MAX_STOP_REVENUE at each stop: no negative revenue, and none
    so large that a run's total would not fit a response."""
    for node in tile.node_parts:
        for _, value in node.revenue.by_colour:
            if not 0 <= value <= MAX_STOP_REVENUE:
                raise InputError(where, f"part {node.part} ({node.kind}) pays {value}; a stop pays "
                                        f"0..{MAX_STOP_REVENUE}")


def _check_train(t: dict, where: str) -> None:
    """The numbers of a custom train: distance, multipliers, rows' pay and visit within their ranges."""
    _bounded(t.get("distance"), f"{where}.distance", 0, MAX_DISTANCE)
    _bounded(t.get("multiplier"), f"{where}.multiplier", 0, MAX_MULTIPLIER)
    for j, row in enumerate(t.get("rows") or ()):
        if not isinstance(row, dict):
            continue
        for key, high in (("pay", MAX_DISTANCE), ("visit", MAX_DISTANCE), ("multiplier", MAX_MULTIPLIER)):
            _bounded(row.get(key), f"{where}.rows[{j}].{key}", 0, high)


def _printed_totals(data: TitleData, printed: dict[str, "BoardHex"]) -> tuple[int, int]:
    """(stop_total, code_chars) of the printed map, once per title data; a board adds its lays' changes."""
    totals = data.derived.get("printed totals")
    if totals is None:
        totals = data.derived["printed totals"] = (sum(h.tile.stop_maximum for h in printed.values()),
                                                   sum(len(h.tile.code) for h in printed.values()))
    return totals


def _custom_data(custom: dict) -> TitleData:
    from .titles.base import MapHex, train_from_dict

    layout = custom.get("layout") or "pointy"
    if layout not in hexgrid.LAYOUTS:
        raise InputError("board.custom.layout", f"{short_repr(layout)} is not pointy or flat")
    hexes = {}
    for i, h in enumerate(custom.get("hexes") or ()):
        name = h.get("hex", "")
        try:
            hexgrid.parse_name(name)
        except ValueError as exc:
            raise InputError(f"board.custom.hexes[{i}].hex", str(exc)) from None
        if name in hexes:
            raise InputError(f"board.custom.hexes[{i}].hex", f"{name} is listed twice")
        _check_revenues(parse_tile(h.get("code") or "", f"board.custom.hexes[{i}].code"),
                        f"board.custom.hexes[{i}].code")
        hexes[name] = MapHex(name, h.get("code") or "", h.get("color") or "white", h.get("location") or "")
    if not hexes:
        raise InputError("board.custom.hexes", "a custom map needs at least one hex")
    trains = {}
    for i, t in enumerate(custom.get("trains") or ()):
        _check_train(t, f"board.custom.trains[{i}]")
        spec = {"name": t.get("name"), "multiplier": t.get("multiplier")}
        spec["distance"] = t["rows"] if t.get("rows") else t.get("distance")
        try:
            train = train_from_dict(spec, f"board.custom.trains[{i}]")
        except InputError as exc:
            if not t.get("rows"):
                raise
            # The request gives rows in `rows`, not in 18xx.games' `distance`: name the field it has.
            old, new = f"board.custom.trains[{i}].distance", f"board.custom.trains[{i}].rows"
            moved = [(new + f[len(old):] if f.startswith(old) else f, d) for f, d in exc.violations]
            raise InputError(moved[0][0], moved[0][1], moved[1:]) from None
        if train.name in trains:
            raise InputError(f"board.custom.trains[{i}].name", f"{short_repr(train.name)} is defined twice")
        trains[train.name] = train
    phases = []
    for i, p in enumerate(custom.get("phases") or ()):
        colours = tuple(p.get("tiles") or ("yellow",))
        if len(colours) > MAX_PHASE_COLOURS:
            raise InputError(f"board.custom.phases[{i}].tiles",
                             f"{len(colours)} colours; a phase has at most {MAX_PHASE_COLOURS}")
        phases.append(Phase(str(p.get("name")), colours))
    phases = phases or [Phase("1", ("yellow", "green", "brown", "gray"))]
    return TitleData(layout, hexes, {}, trains, phases)


def neighbour_map(data: TitleData) -> dict[str, dict[int, str]]:
    """Hex name -> {edge: neighbouring hex on the map}; computed once per title data."""
    if data.neighbours is None:
        data.neighbours = {name: {edge: other for edge in range(6)
                                  if (other := hexgrid.neighbour_name(name, edge, data.layout)) in data.hexes}
                           for name in data.hexes}
    return data.neighbours


def _printed_hexes(title: Title, data: TitleData) -> dict[str, BoardHex]:
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


def build_board(request: dict, where: str = "board") -> Board:
    """Assemble and check a board from its request dict. Errors name fields under `where`."""
    try:
        return _build(request or {})
    except InputError as exc:
        if where == "board":
            raise
        raise InputError(*_moved(exc, where)) from None


def _moved(exc: InputError, where: str):
    v = [(where + f[len("board"):], d) for f, d in exc.violations]
    return v[0][0], v[0][1], v[1:]


BOARD_FIELDS = frozenset({"title", "phase", "tiles", "tokens", "options", "custom"})
_PLAIN_VALUES = frozenset({str, int, float, type(None)})     # bool apart: True == 1 as a dict key
_THIRD = itemgetter(2)


class _Known:
    """What earlier boards of one map variant had checked, for one tile geometry registry: tile lays and
    tokens by their request dicts (_key: the values of their usual fields, or all their items; values of
    plain types, so a key names one dict's content exactly), each as _build made it.

    A lay has an id: lay_names[id] and lay_hexes[id] are its hex and BoardHex, table[id] its hex index,
    geometry id, impassable edge bits, and what it changes of the stop total and code length (columns
    LAY_*), so a board reads its lays' rows in one compiled call. A token too: token_rows[id] is (hex, city
    index, company), token_table[id] (hex index, city index, company number); it is checked against the map
    alone (the city's existence and room depend on the board's tiles: revenue.core.track.place_tokens).
    `tracks` remembers the tracks of recent boards by their lay ids (boards that differ in tokens or phase
    share one)."""

    LAYS = 1 << 16          # lays remembered (hexes x manifest tiles x rotations x request spellings)
    TOKENS = 1 << 14

    def __init__(self, data: TitleData, registry):
        self.registry = registry
        self.lay_ids: dict[tuple, int] = {}
        self.lay_names: list[str] = []
        self.lay_hexes: list[BoardHex] = []
        self.table = np.zeros((256, 5), dtype=np.int64)
        self.token_ids: dict[tuple, int] = {}
        self.token_rows: list[tuple[str, int, str]] = []
        self.token_table = np.zeros((64, 3), dtype=np.int64)
        self.companies: dict[str, int] = {}
        self.tracks: OrderedDict[bytes, tuple] = OrderedDict()
        self.sides = _graph().printed_sides(data, neighbour_map(data))
        self.index = {name: i for i, name in enumerate(data.printed)}
        self.phases = {p.name: p for p in data.phases}
        self.serial = next(_SERIALS)     # names it in keys (a number never reused, unlike an id())
        for bh in data.printed.values():
            if bh.track()[0].registry is not registry:
                bh.forget_track()       # made in an earlier registry
        tracks = [bh.track() for bh in data.printed.values()]
        self.complete = all(geo.registry is registry for geo, _ in tracks)     # else never used
        self.gids = np.array([geo.gid for geo, _ in tracks], dtype=np.int64)
        self.masks = np.array([mask for _, mask in tracks], dtype=np.int64)
        self._lock = threading.Lock()

    def add_lay(self, key: tuple, name: str, board_hex: BoardHex, stops: int, chars: int) -> None:
        geo, mask = board_hex.track()
        if geo.registry is not self.registry or len(self.lay_names) >= self.LAYS:
            return
        with self._lock:
            if key in self.lay_ids:
                return
            lay = len(self.lay_names)
            if lay >= len(self.table):
                grown = np.zeros((2 * len(self.table), 5), dtype=np.int64)
                grown[:lay] = self.table[:lay]
                self.table = grown
            self.table[lay] = (self.index[name], geo.gid, mask, stops, chars)
            self.lay_names.append(name)
            self.lay_hexes.append(board_hex)
            self.lay_ids[key] = lay      # published last: a reader that finds the id finds its row

    def add_token(self, key: tuple, name: str, city: int, company: str) -> None:
        if len(self.token_rows) >= self.TOKENS:
            return
        with self._lock:
            if key in self.token_ids:
                return
            token = len(self.token_rows)
            if token >= len(self.token_table):
                grown = np.zeros((2 * len(self.token_table), 3), dtype=np.int64)
                grown[:token] = self.token_table[:token]
                self.token_table = grown
            number = self.companies.setdefault(company, len(self.companies))
            self.token_table[token] = (self.index[name], city, number)
            self.token_rows.append((name, city, company))
            self.token_ids[key] = token      # published last, as a lay's

    def remember_track(self, lay_bytes: bytes, entry: tuple) -> None:
        # (each step one atomic OrderedDict call: readers never lock; two threads past the bound at once
        # may each let one go)
        tracks = self.tracks
        tracks[lay_bytes] = entry
        if len(tracks) > TRACKS_PER_MAP:
            try:
                tracks.popitem(last=False)
            except KeyError:
                pass


LAY_HEX, LAY_GID, LAY_MASK, LAY_STOPS, LAY_CHARS = range(5)     # the columns of _Known.table
_SERIALS = itertools.count()
# tracks remembered per map variant (boards of a game differing in tokens or phase): by lay ids (_Known.tracks),
# and by geometry ids for boards with tile codes in the request (revenue.graph.build_graph)
TRACKS_PER_MAP = 16
_NO_TOKENS = np.zeros(0, dtype=np.int64)
_TOWN_KIND = 2      # revenue.graph.NODE_KINDS.index("town") (the track's node kind column)


def _known(data: TitleData) -> _Known:
    """The _Known of the map variant for the registry geometries go to now (a new one after it changed)."""
    registry = _current_registry()
    known = data.derived.get("known")
    if known is None or known.registry is not registry:
        known = data.derived["known"] = _Known(data, registry)
    return known


_LAY_FIELDS = ("hex", "tile", "rotation")
_TOKEN_FIELDS = ("hex", "company", "city")
_NUMBER_TYPES = frozenset({int, float, str})    # what a rotation or city index may be read in bulk as
_GETTERS = {names: itemgetter(*names) for names in (_LAY_FIELDS, _TOKEN_FIELDS)}
_NUMBERS = {names: itemgetter(names[2]) for names in (_LAY_FIELDS, _TOKEN_FIELDS)}   # the rotation, the city


def _key(fields, names: tuple[str, str, str]) -> tuple | None:
    """What _Known remembers one lay or token dict by: the values of its usual fields `names`, the last
    (rotation, city index) 0 when left out or null (as the full check reads it, and as a proto message
    leaves a default out), or all its items when it has other fields; None for a dict with values other
    than plain ones (or not a dict)."""
    if type(fields) is not dict or not _PLAIN_VALUES.issuperset(map(type, fields.values())):
        return None
    if fields.keys() <= set(names):
        first, second, number = map(fields.get, names)
        return first, second, 0 if number is None else number
    return tuple(fields.items())


def _keys(dicts, names: tuple[str, str, str]) -> list[tuple] | None:
    """_key of every dict of a list; read in bulk (a few C passes) when the dicts have the usual fields
    only and the number field is absent or of a plain type."""
    first, second, number = names
    try:
        # the usual case, every dict holding exactly the three fields: one C call per dict
        keys = list(map(_GETTERS[names], dicts))
        if max(map(len, dicts), default=3) == 3 and _NUMBER_TYPES.issuperset(map(type, map(_THIRD, keys))):
            return keys
    except (KeyError, TypeError):
        pass
    try:
        if set(chain.from_iterable(dicts)) <= set(names):
            keys = list(zip(map(itemgetter(first), dicts), map(itemgetter(second), dicts),
                            map(methodcaller("get", number, 0), dicts)))
            if _NUMBER_TYPES.issuperset(map(type, map(_THIRD, keys))):
                return keys
    except (KeyError, TypeError, AttributeError):
        pass
    keys = [_key(d, names) for d in dicts]
    return None if None in keys else keys


def _ids(dicts, names: tuple[str, str, str], ids: dict[tuple, int]) -> np.ndarray | None:
    """The ids in `ids` (a _Known's lay_ids or token_ids) of the _key of every dict of a list, as an int64
    array; None when one has none (never checked, or a value that cannot be a key). In the usual case,
    every dict holding exactly the three fields and the number of a plain type, the keys are made and
    looked up in one C pass and let go at once; else they are read by _keys first."""
    count = len(dicts)
    try:
        # (a dict missing a field fails the getter, so a total of 3 a dict means exactly 3 each)
        if sum(map(len, dicts)) == 3 * count and _NUMBER_TYPES.issuperset(map(type, map(_NUMBERS[names], dicts))):
            try:
                return np.fromiter(map(ids.get, map(_GETTERS[names], dicts)), dtype=np.int64, count=count)
            except TypeError:   # a key never checked before (None, which np.fromiter refuses), or unhashable
                return None
    except (KeyError, TypeError):   # (a dict without one of the fields: _keys reads it)
        pass
    keys = _keys(dicts, names)
    if keys is None:
        return None
    try:
        return np.fromiter(map(ids.get, keys), dtype=np.int64, count=count)
    except TypeError:   # a value that cannot be a key (a list), or one never checked before
        return None


def _build_known(req) -> Board | None:
    """The board, when every lay and token of `req` was checked before on its map (a game's boards differ
    by a lay or a token from earlier ones): no check is repeated, the hexes come from the lays' entries in
    one pass. None when anything is new or wrong: _build then checks everything and names what is wrong."""
    title_name = req.get("title")
    if type(title_name) is not str or title_name == "custom" or req.get("custom") or not BOARD_FIELDS.issuperset(req):
        return None
    tiles, tokens = req.get("tiles") or (), req.get("tokens") or ()
    if type(tiles) not in (list, tuple) or type(tokens) not in (list, tuple) or len(tiles) > MAX_LIST \
            or len(tokens) > MAX_LIST:
        return None
    opened = _opened(req, title_name)
    if opened is None:
        return None
    title, data, known, phase, options, prefix, totals = opened
    lays, placed = _ids(tiles, _LAY_FIELDS, known.lay_ids), _ids(tokens, _TOKEN_FIELDS, known.token_ids)
    if lays is None or placed is None:
        return None
    options = dict(options)
    lay_bytes = lays.tobytes()
    registry = known.registry
    # One compiled call places the lays and the tokens and walks the track (revenue.core.track.place_board),
    # or only places the tokens on the track of a recent board with the same lays.
    remembered = known.tracks.get(lay_bytes)
    if remembered is not None:
        track, more_stops, more_chars = remembered
        token_node = place_tokens(placed, known.token_table, track.gids, track.node_base, registry.city_start,
                                  registry.city_table) if len(placed) else _NO_TOKENS
        if len(token_node) < len(placed):
            return None
    else:
        sides = known.sides
        track = _graph().Track(registry, sides, place_board(
            lays, known.table, known.gids, known.masks, placed, known.token_table, registry.path_start,
            registry.node_start, registry.table, registry.node_table, registry.city_start, registry.city_table,
            sides.neighbour, sides.side, sides.n_sides))
        if track.status:
            return None     # a hex laid twice, or a token that does not fit: _build names it
        token_node, more_stops, more_chars = track.token_node, track.more_stops, track.more_chars
        known.remember_track(lay_bytes, (track, more_stops, more_chars))
    stops, chars = totals
    board = Board(title, data, phase, None, data.neighbours, None, options, stops + more_stops, chars + more_chars)
    board._laid = (known, lays)
    board._placed = (known, placed)
    board._tokens = None
    try:
        title.check_board(board)
    except InputError:
        return None
    # (the tokens by their ids' bytes: the graph cache hashes the key a few times, and a bytes object
    # keeps its hash, a tuple of tuples does not)
    board.key = prefix + (lay_bytes, placed.tobytes())
    board.track, board.token_node = track, token_node
    return board


def _opened(req, title_name: str) -> tuple | None:
    """(title, title data, _Known, phase, options, the board key's first fields, the printed map's
    _printed_totals) of a board request's title, phase and options, all
    checked (the lays and tokens were within the size bounds when first checked; the rest is checked
    here), remembered by their values: a game's boards share them. None for anything wrong or a map
    variant without _Known (the full check then reads the board)."""
    phase_name, options_request = req.get("phase"), req.get("options")
    key = None
    # remembered when the phase and options are strings (no True == 1 as a key), the options a dict
    if (phase_name is None or type(phase_name) is str) and (
            not options_request or type(options_request) is dict and _STRINGS.issuperset(
                map(type, chain(options_request, options_request.values())))):
        key = (title_name, phase_name, tuple(options_request.items()) if options_request else ())
        opened = _OPENED.get(key)
        if opened is not None and opened[2].registry is _graph()._REGISTRY and \
                opened[1].derived.get("known") is opened[2]:
            return opened
    rest = {k: v for k, v in req.items() if k != "tiles" and k != "tokens"}
    if size_violations(rest, "board", [], name=MAX_NAME_CHARS):
        return None
    try:
        title = get_title(title_name, "board.title")
        options = {str(k): str(v) for k, v in (options_request or {}).items()}
        title.check_options(options)
        data = title.data(options)
    except InputError:
        return None
    if data.printed is None:
        return None
    known = _known(data)
    if not known.complete:
        return None
    phase_name = phase_name or ""
    phase = known.phases.get(phase_name) if phase_name else data.phases[0]
    if phase is None:
        return None
    opened = (title, data, known, phase, options, (known.serial, title.name, tuple(options.items()), phase.name),
              _printed_totals(data, data.printed))
    neighbour_map(data)     # (a board reads data.neighbours)
    if key is not None:
        if len(_OPENED) >= 1024:
            _OPENED.clear()
        _OPENED[key] = opened
    return opened


_OPENED: dict[tuple, tuple] = {}    # _opened's answers by the request's title, phase and options
_STRINGS = frozenset({str})


_graph_module = None


def _graph():
    """revenue.graph (imported late: it imports this module)."""
    global _graph_module
    if _graph_module is None:
        from . import graph as _graph_module
    return _graph_module


def _current_registry():
    """revenue.graph's tile geometry registry now."""
    return _graph().current_registry()


def _build(req: dict) -> Board:
    board = _build_known(req)
    if board is not None:
        return board
    too_long = size_violations(req, "board", [], name=MAX_NAME_CHARS)
    if too_long:
        raise InputError(too_long[0][0], too_long[0][1], too_long[1:])
    title_name = req.get("title") or ""
    title = get_title(title_name, "board.title")
    options = {str(k): str(v) for k, v in (req.get("options") or {}).items()}
    title.check_options(options)
    if title.name == "custom":
        data = _custom_data(req.get("custom") or {})
    else:
        if req.get("custom"):
            raise InputError("board.custom", f"only the custom title takes a map in the request, not {title.name}")
        data = title.data(options)

    phase_name = str(req.get("phase") or "")
    phases = {p.name: p for p in data.phases}
    if not phase_name:
        phase = data.phases[0]
    elif phase_name in phases:
        phase = phases[phase_name]
    else:
        raise InputError("board.phase", f"unknown phase {short_repr(phase_name)} (known: {', '.join(phases)})")

    printed = _printed_hexes(title, data)
    hexes = dict(printed)

    laid: set[str] = set()
    # A lay of a manifest tile is checked once per map variant and request dict (_Known); the board hex it
    # makes is shared by every board that has it (board hexes are never changed).
    known = _known(data) if title.name != "custom" else None
    # What the lays change of the printed map's stop total and code length (each replaces a printed hex).
    more_stops = more_chars = 0
    lay_ids: list[int] | None = [] if known is not None else None    # each lay's id in known, while all have one
    for i, lay in enumerate(req.get("tiles") or ()):
        key = _key(lay, _LAY_FIELDS) if known is not None else None
        lay_id = known.lay_ids.get(key) if key is not None else None
        if lay_ids is not None:
            lay_ids.append(lay_id)
        if lay_id is not None:
            name = known.lay_names[lay_id]
            if name in laid:
                raise InputError(f"board.tiles[{i}].hex", f"{name} already has a tile laid by an earlier entry")
            laid.add(name)
            hexes[name] = known.lay_hexes[lay_id]
            more_stops += int(known.table[lay_id, LAY_STOPS])
            more_chars += int(known.table[lay_id, LAY_CHARS])
            continue
        name = lay.get("hex") or ""
        where = f"board.tiles[{i}]"
        if name not in hexes:
            raise InputError(f"{where}.hex", f"{name!r} is not a hex of the {title.name} map")
        if name in laid:
            raise InputError(f"{where}.hex", f"{name} already has a tile laid by an earlier entry")
        laid.add(name)
        rotation = _int(lay.get("rotation"), f"{where}.rotation")
        if not 0 <= rotation <= 5:
            raise InputError(f"{where}.rotation", f"{rotation} is not in 0..5")
        tile_name, code = lay.get("tile") or "", lay.get("code") or ""
        if tile_name and code:
            raise InputError(f"{where}", "give either tile (a manifest name) or code (tile DSL), not both")
        if tile_name:
            if tile_name not in data.manifest:
                raise InputError(f"{where}.tile", f"{tile_name!r} is not in the {title.name} tile manifest")
            entry = data.manifest[tile_name]
            tile, colour = parse_tile(entry["code"], f"{where}.tile"), entry["color"]
        elif code:
            tile, colour, tile_name = parse_tile(code, f"{where}.code"), lay.get("color") or "yellow", name
            _check_revenues(tile, f"{where}.code")
        else:
            raise InputError(f"{where}.tile", "a tile lay needs tile (a manifest name) or code (tile DSL)")
        old = hexes[name]
        if old.color in ("red", "gray", "blue") and title.name != "custom":
            raise InputError(f"{where}.hex", f"{name} is a {old.color} hex; no tile can be laid there")
        # Printed borders and sticky icons (18Rhl's coal and steel) stay with the hex.
        icons = tuple(dict.fromkeys(old.icons + tuple(icon_name(x) for x in tile.icons)))
        hexes[name] = BoardHex(name, old.location, colour, tile, rotation, tile_name,
                               old.impassable | frozenset((e + rotation) % 6 for e, t in tile.borders
                                                          if t == "impassable"), icons)
        stops, chars = tile.stop_maximum - old.tile.stop_maximum, len(tile.code) - len(old.tile.code)
        more_stops += stops
        more_chars += chars
        if key is not None and not code:
            known.add_lay(key, name, hexes[name], stops, chars)
            if lay_ids is not None:
                lay_ids[-1] = known.lay_ids.get(key)

    neighbours = neighbour_map(data)

    board = Board(title, data, phase, hexes, neighbours, {}, options)
    for i, tok in enumerate(req.get("tokens") or ()):
        name = tok.get("hex") or ""
        if name not in hexes:
            raise InputError(f"board.tokens[{i}].hex", f"{name!r} is not a hex of the {title.name} map")
        company = tok.get("company") or ""
        if not company:
            raise InputError(f"board.tokens[{i}].company", "a token needs the company that owns it")
        city = tok.get("city")
        if type(city) is not int:
            city = _int(city, f"board.tokens[{i}].city")
        cities = hexes[name].tile.cities
        if not 0 <= city < len(cities):
            raise InputError(f"board.tokens[{i}].city",
                             f"{name} has {len(cities)} cit{'y' if len(cities) == 1 else 'ies'}, so city {city} "
                             "does not exist")
        placed = board.tokens.setdefault((name, city), [])
        if company in placed:
            raise InputError(f"board.tokens[{i}].company", f"{company} already has a token in {name} city {city}")
        if len(placed) >= cities[city].slots:
            raise InputError(f"board.tokens[{i}]", f"{name} city {city} is full ({cities[city].slots} slot"
                                                    f"{'s' if cities[city].slots != 1 else ''})")
        placed.append(company)
        if known is not None and (key := _key(tok, _TOKEN_FIELDS)) is not None:
            known.add_token(key, name, city, company)
    title.check_board(board)
    stops, chars = _printed_totals(data, printed)
    board.stop_total, board.code_chars = stops + more_stops, chars + more_chars
    if lay_ids is not None and None not in lay_ids:
        # its track is remembered by its lay ids, for the boards of the same lays that _build_known reads
        lay_bytes = np.array(lay_ids, dtype=np.int64).tobytes()
        board.remember = (known, lay_bytes, more_stops, more_chars)
        # the key _build_known gives this board when it is asked again, so that graph_for finds it then
        token_keys = _keys(req.get("tokens") or (), _TOKEN_FIELDS)
        token_ids = [known.token_ids.get(k) for k in token_keys] if token_keys is not None else [None]
        if None not in token_ids:
            board.key = (known.serial, title.name, tuple(options.items()), phase.name, lay_bytes,
                         np.array(token_ids, dtype=np.int64).tobytes())
    return board
