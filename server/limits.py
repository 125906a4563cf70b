"""The size limits of a request: `Limits`, and the checks against them. A request over a limit is
INVALID_ARGUMENT naming each field; `sizes_fit` tells from a message's encoded sizes when the walk over
every string and list (check_limits) can find nothing, so that most requests skip it."""
from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import FieldDescriptor

from revenue.bounds import TEXT_FIELDS, size_violations
from revenue.errors import InputError


@dataclass(frozen=True)
class Limits:
    """Largest request served; a bigger one is INVALID_ARGUMENT naming the field. Real games stay far
    below: an 1830 map has 93 hexes, a late game about 80 tiles and 40 tokens."""
    hexes: int = 400            # board.custom.hexes
    tiles: int = 200            # board.tiles
    tokens: int = 200           # board.tokens
    trains: int = 20            # company.trains, and routes of an Evaluate
    custom_trains: int = 50     # board.custom.trains
    rows: int = 10              # board.custom.trains[i].rows
    phases: int = 50            # board.custom.phases
    options: int = 50           # board.options
    privates: int = 50          # company.privates
    route_nodes: int = 200      # routes[i].nodes and routes[i].connections
    text: int = 4096            # a tile code or an option value
    name: int = 200             # any other string: names, ids, colours, locations, option keys
    entries: int = 1000         # any other list (phase colours, holders, connections...)
    actions: int = 20_000       # a game export's actions (Replay, Suggest): a long game has 2,000


# Message types whose dicts hold only what sizes_fit reasons about: strings, numbers, booleans, lists,
# maps and messages of the same kind (no bytes, whose base64 text is longer than they are; no enums,
# whose names are not in the message; no google.protobuf types); with the longest field name and the
# most fields of one message among them (the dicts' keys, which the walk checks too), or None.
_PLAIN: dict = {}


def key_sizes(desc) -> tuple[int, int] | None:
    """The longest field name and the most fields of one message in the message type `desc` and the
    types it holds, or None when its dicts may hold what sizes_fit does not reason about (see _PLAIN)."""
    if desc in _PLAIN:
        return _PLAIN[desc]
    _PLAIN[desc] = (0, 0)      # a type that holds itself: decided by its other fields
    sizes: tuple[int, int] | None = None
    if desc.file.package != "google.protobuf":
        sizes = (max((len(field.name) for field in desc.fields), default=0), len(desc.fields))
    for field in desc.fields:
        if sizes is None or field.type in (FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_ENUM):
            sizes = None
            break
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            inner = key_sizes(field.message_type)
            sizes = None if inner is None else (max(sizes[0], inner[0]), max(sizes[1], inner[1]))
    _PLAIN[desc] = sizes
    return sizes


def sizes_fit(message, limits: Limits, without: str | None = None) -> bool:
    """Whether the walk of check_limits (revenue.bounds.size_violations: each string within its length,
    each list and map within limits.entries) can find nothing in `message`'s dict. Conservative: False
    means "walk it". A message of at most `small` bytes holds no longer string nor a list or map of
    more entries, so a board's tile lays and tokens are passed on their encoded size alone; the rest
    is looked at field by field (`without`: a field left out)."""
    name, text, entries = limits.name, limits.text, limits.entries
    small = min(name, text, entries)
    keys = key_sizes(message.DESCRIPTOR)
    if keys is None or keys[0] > name or keys[1] > entries:
        return False
    for field, value in message.ListFields():
        if field.name == without:
            continue
        if field.type == FieldDescriptor.TYPE_STRING:
            limit = text if field.name in TEXT_FIELDS else name
            if not field.is_repeated:
                if len(value) > limit:
                    return False
            elif len(value) > entries or any(len(v) > limit for v in value):
                return False
        elif field.type != FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated and len(value) > entries:
                return False
        elif field.message_type.GetOptions().map_entry:
            # map<string, string> (a board's options: its values are text)
            limit = text if field.name.endswith("options") else name
            if len(value) > entries or any(type(k) is not str or len(k) > name for k in value) or \
                    any(type(v) is not str or len(v) > limit for v in value.values()):
                return False
        elif field.is_repeated:
            if len(value) > entries:
                return False
            if value:
                size = type(value[0]).ByteSize
                if max(map(size, value)) > small and not all(size(v) <= small or sizes_fit(v, limits)
                                                             for v in value):
                    return False
        elif value.ByteSize() > small and not sizes_fit(value, limits):
            return False
    return True


def check_limits(request: dict, limits: Limits, walk: bool = True) -> None:
    """INVALID_ARGUMENT (an InputError listing every field over its limit) for an oversized request.
    `walk=False` leaves out the walk over every string and list, for a request that sizes_fit passed
    (the walk would find nothing)."""
    violations: list[tuple[str, str]] = []

    def cap(path: str, items, most: int) -> None:
        if items is not None and len(items) > most:
            violations.append((path, f"{len(items)} entries; the service takes at most {most}"))

    def text(path: str, value) -> None:
        if isinstance(value, str) and len(value) > limits.text:
            violations.append((path, f"{len(value)} characters; the service takes at most {limits.text}"))

    board = request.get("board") or {}
    cap("board.tiles", board.get("tiles"), limits.tiles)
    cap("board.tokens", board.get("tokens"), limits.tokens)
    cap("board.options", board.get("options"), limits.options)
    for i, lay in enumerate(board.get("tiles") or []):
        if "code" in lay:        # the field's path is spelled out only when it is needed
            text(f"board.tiles[{i}].code", lay["code"])
    for key, value in (board.get("options") or {}).items():
        text(f"board.options[{key}]", value)
    custom = board.get("custom") or {}
    cap("board.custom.hexes", custom.get("hexes"), limits.hexes)
    cap("board.custom.trains", custom.get("trains"), limits.custom_trains)
    cap("board.custom.phases", custom.get("phases"), limits.phases)
    for i, h in enumerate(custom.get("hexes") or []):
        text(f"board.custom.hexes[{i}].code", h.get("code"))
    for i, t in enumerate(custom.get("trains") or []):
        cap(f"board.custom.trains[{i}].rows", t.get("rows"), limits.rows)
    company = request.get("company") or {}
    cap("company.trains", company.get("trains"), limits.trains)
    cap("company.privates", company.get("privates"), limits.privates)
    action = request.get("run_routes") or {}
    for where, routes in (("routes", request.get("routes")), ("run_routes.routes", action.get("routes"))):
        cap(where, routes, limits.trains)
        for i, r in enumerate(routes or []):
            halts = r.get("halts")
            if isinstance(halts, int) and not 0 <= halts <= limits.route_nodes:
                violations.append((f"{where}[{i}].halts", f"{halts} is not in 0..{limits.route_nodes}"))
            cap(f"{where}[{i}].nodes", r.get("nodes"), limits.route_nodes)
            cap(f"{where}[{i}].connections", r.get("connections"), limits.route_nodes)
            for j, entry in enumerate(r.get("connections") or []):
                cap(f"{where}[{i}].connections[{j}]",
                    entry.get("hexes") if isinstance(entry, dict) else entry, limits.route_nodes)
    # Every string and every other list, wherever it is: nothing of unbounded size goes further.
    if walk:
        size_violations(request, "", violations, text=limits.text, name=limits.name, entries=limits.entries)
    if violations:
        seen: set[str] = set()
        unique = [(f, d) for f, d in violations if not (f in seen or seen.add(f))]   # one per field
        raise InputError(unique[0][0], unique[0][1], unique[1:])
