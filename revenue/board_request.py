"""A board request read and checked: `build_board(request)` takes the proto3-JSON shape of
`revenue.v1.Board` as a dict and checks every field, raising InputError with the field path
(`board.tiles[3].rotation: 7 is not in 0..5`). A board whose every lay and token was checked before is
read by revenue.known instead.
"""
from __future__ import annotations

import numpy as np

from .hexgrid import LAYOUTS, parse_name
from .board import Board, BoardHex, neighbour_map, printed_hexes, printed_totals
from .bounds import MAX_DISTANCE, MAX_MULTIPLIER, MAX_NAME_CHARS, MAX_PHASE_COLOURS, MAX_STOP_REVENUE, size_violations
from .errors import InputError, short_repr
from .known import LAY_CHARS, LAY_FIELDS, LAY_STOPS, TOKEN_FIELDS, build_known, known_for, request_key, request_keys
from .tiles import Tile, icon_name, parse_tile
from .titles import get_title
from .titles.base import MapHex, Phase, TitleData, train_from_dict


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


def _build(req: dict) -> Board:
    board = build_known(req)
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

    printed = printed_hexes(title, data)
    hexes = dict(printed)

    laid: set[str] = set()
    # A lay of a manifest tile is checked once per map variant and request dict (Known); the board hex it
    # makes is shared by every board that has it (board hexes are never changed).
    known = known_for(data) if title.name != "custom" else None
    # What the lays change of the printed map's stop total and code length (each replaces a printed hex).
    more_stops = more_chars = 0
    lay_ids: list[int] | None = [] if known is not None else None    # each lay's id in known, while all have one
    for i, lay in enumerate(req.get("tiles") or ()):
        key = request_key(lay, LAY_FIELDS) if known is not None else None
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
    flipped = set()
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
        if tok.get("flipped") not in (None, False, True):
            raise InputError(f"board.tokens[{i}].flipped", f"{tok.get('flipped')!r} is not true or false")
        if tok.get("flipped"):
            flipped.add((name, company))        # (never remembered by revenue.known: its boards know no flips)
        elif known is not None and (key := request_key(tok, TOKEN_FIELDS)) is not None:
            known.add_token(key, name, city, company)
    board.flipped = frozenset(flipped)
    title.check_board(board)
    stops, chars = printed_totals(data)
    board.stop_total, board.code_chars = stops + more_stops, chars + more_chars
    if lay_ids is not None and None not in lay_ids:
        # its track is remembered by its lay ids, for the boards of the same lays that build_known reads
        lay_bytes = np.array(lay_ids, dtype=np.int64).tobytes()
        board.remember = (known, lay_bytes, more_stops, more_chars)
        # the key build_known gives this board when it is asked again, so that graph_for finds it then
        token_keys = request_keys(req.get("tokens") or (), TOKEN_FIELDS)
        token_ids = [known.token_ids.get(k) for k in token_keys] if token_keys is not None else [None]
        if None not in token_ids:
            board.key = (known.serial, title.name, tuple(options.items()), phase.name, lay_bytes,
                         np.array(token_ids, dtype=np.int64).tobytes())
    return board


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


def _custom_data(custom: dict) -> TitleData:
    layout = custom.get("layout") or "pointy"
    if layout not in LAYOUTS:
        raise InputError("board.custom.layout", f"{short_repr(layout)} is not pointy or flat")
    hexes = {}
    for i, h in enumerate(custom.get("hexes") or ()):
        name = h.get("hex", "")
        try:
            parse_name(name)
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

