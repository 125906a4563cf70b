"""Boards read from tile lays and tokens checked before on their map variant (a game's boards differ by a
lay or a token from earlier ones): no check is repeated, and one compiled call places the lays and tokens
and walks the track (revenue.core.track.place_board). Anything new or wrong leaves the board to the full
check (revenue.board_request), which names what is wrong and remembers what it checked here (Known).
"""
from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from itertools import chain
from operator import itemgetter, methodcaller

import numpy as np

from .budget import current as current_budget
from .board import Board, BoardHex, neighbour_map, printed_totals
from .bounds import MAX_LIST, MAX_NAME_CHARS, size_violations
from .core.track import place_board, place_tokens
from .errors import InputError
from .geometry import TRACKS_PER_MAP, Track, current_registry, printed_sides
from .titles import get_title
from .titles.base import TitleData

BOARD_FIELDS = frozenset({"title", "phase", "tiles", "tokens", "options", "custom"})
_PLAIN_VALUES = frozenset({str, int, float, type(None)})     # bool apart: True == 1 as a dict key
_THIRD = itemgetter(2)


class Known:
    """What earlier boards of one map variant had checked, for one tile geometry registry: tile lays and
    tokens by their request dicts (request_key: the values of their usual fields, or all their items; values
    of plain types, so a key names one dict's content exactly), each as the full check made it
    (revenue.board_request).

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
        self.sides = printed_sides(data, neighbour_map(data))
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


LAY_HEX, LAY_GID, LAY_MASK, LAY_STOPS, LAY_CHARS = range(5)     # the columns of Known.table
_SERIALS = itertools.count()
_NO_TOKENS = np.zeros(0, dtype=np.int64)


def known_for(data: TitleData) -> Known:
    """The Known of the map variant for the registry geometries go to now (a new one after it changed)."""
    registry = current_registry()
    known = data.known
    if known is None or known.registry is not registry:
        known = data.known = Known(data, registry)
    return known


LAY_FIELDS = ("hex", "tile", "rotation")
TOKEN_FIELDS = ("hex", "company", "city")
_NUMBER_TYPES = frozenset({int, float, str})    # what a rotation or city index may be read in bulk as
_GETTERS = {names: itemgetter(*names) for names in (LAY_FIELDS, TOKEN_FIELDS)}
_NUMBERS = {names: itemgetter(names[2]) for names in (LAY_FIELDS, TOKEN_FIELDS)}   # the rotation, the city


def request_key(fields, names: tuple[str, str, str]) -> tuple | None:
    """What Known remembers one lay or token dict by: the values of its usual fields `names`, the last
    (rotation, city index) 0 when left out or null (as the full check reads it, and as a proto message
    leaves a default out), or all its items when it has other fields; None for a dict with values other
    than plain ones (or not a dict)."""
    if type(fields) is not dict or not _PLAIN_VALUES.issuperset(map(type, fields.values())):
        return None
    if fields.keys() <= set(names):
        first, second, number = map(fields.get, names)
        return first, second, 0 if number is None else number
    return tuple(fields.items())


def request_keys(dicts, names: tuple[str, str, str]) -> list[tuple] | None:
    """request_key of every dict of a list; read in bulk (a few C passes) when the dicts have the usual fields
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
    keys = [request_key(d, names) for d in dicts]
    return None if None in keys else keys


def _ids(dicts, names: tuple[str, str, str], ids: dict[tuple, int]) -> np.ndarray | None:
    """The ids in `ids` (a Known's lay_ids or token_ids) of the request_key of every dict of a list, as an int64
    array; None when one has none (never checked, or a value that cannot be a key). In the usual case,
    every dict holding exactly the three fields and the number of a plain type, the keys are made and
    looked up in one C pass and let go at once; else they are read by request_keys first."""
    count = len(dicts)
    try:
        # (a dict missing a field fails the getter, so a total of 3 a dict means exactly 3 each)
        if sum(map(len, dicts)) == 3 * count and _NUMBER_TYPES.issuperset(map(type, map(_NUMBERS[names], dicts))):
            try:
                return np.fromiter(map(ids.get, map(_GETTERS[names], dicts)), dtype=np.int64, count=count)
            except TypeError:   # a key never checked before (None, which np.fromiter refuses), or unhashable
                return None
    except (KeyError, TypeError):   # (a dict without one of the fields: request_keys reads it)
        pass
    keys = request_keys(dicts, names)
    if keys is None:
        return None
    try:
        return np.fromiter(map(ids.get, keys), dtype=np.int64, count=count)
    except TypeError:   # a value that cannot be a key (a list), or one never checked before
        return None


def build_known(req) -> Board | None:
    """The board, when every lay and token of `req` was checked before on its map (a game's boards differ
    by a lay or a token from earlier ones): no check is repeated, the hexes come from the lays' entries in
    one pass. None when anything is new or wrong: the full check (revenue.board_request) then checks
    everything and names what is wrong."""
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
    lays, placed = _ids(tiles, LAY_FIELDS, known.lay_ids), _ids(tokens, TOKEN_FIELDS, known.token_ids)
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
        budget = current_budget()
        track = Track(registry, sides, place_board(
            lays, known.table, known.gids, known.masks, placed, known.token_table, registry.path_start,
            registry.node_start, registry.table, registry.node_table, registry.city_start, registry.city_table,
            sides.neighbour, sides.side, sides.n_sides, *budget.walk_args()))
        budget.check_walk(track.status)
        if track.status:
            return None     # a hex laid twice, or a token that does not fit: the full check names it
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
    """(title, title data, Known, phase, options, the board key's first fields, the printed map's
    printed_totals) of a board request's title, phase and options, all checked (the lays and tokens were
    within the size bounds when first checked; the rest is checked here), remembered by their values: a
    game's boards share them. None for anything wrong or a map variant without a complete Known (the full
    check then reads the board)."""
    phase_name, options_request = req.get("phase"), req.get("options")
    key = None
    # remembered when the phase and options are strings (no True == 1 as a key), the options a dict
    if (phase_name is None or type(phase_name) is str) and (
            not options_request or type(options_request) is dict and _STRINGS.issuperset(
                map(type, chain(options_request, options_request.values())))):
        key = (title_name, phase_name, tuple(options_request.items()) if options_request else ())
        opened = _OPENED.get(key)
        if opened is not None and opened[2].registry is current_registry() and opened[1].known is opened[2]:
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
    known = known_for(data)
    if not known.complete:
        return None
    phase_name = phase_name or ""
    phase = known.phases.get(phase_name) if phase_name else data.phases[0]
    if phase is None:
        return None
    opened = (title, data, known, phase, options, (known.serial, title.name, tuple(options.items()), phase.name),
              printed_totals(data))
    neighbour_map(data)     # (a board reads data.neighbours)
    if key is not None:
        if len(_OPENED) >= 1024:
            _OPENED.clear()
        _OPENED[key] = opened
    return opened


_OPENED: dict[tuple, tuple] = {}    # _opened's answers by the request's title, phase and options
_STRINGS = frozenset({str})

