"""A Steam delivery request checked and turned into arrays (parse, with the last boards remembered:
parse_cached), its limits, and the memory a call on it takes (check_memory)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

from revenue.bounds import MAX_NAME_CHARS
from revenue.cache import STEAM_CACHE_BYTES, ByteLRU
from revenue.errors import InputError, Interrupted

from .kernel import colour_distances

COLOURS = ("red", "blue", "yellow", "purple", "black", "gray")
KINDS = ("city", "town")
RULESETS = ("steam", "age_of_steam")
# ruleset -> (own_majority, require_own_link) defaults; Steam's own-link rule is an open point (rule note §6).
RULE_DEFAULTS = {"steam": (True, True), "age_of_steam": (False, False)}
DEFAULT_MAX_LEVEL = 6
DEFAULT_TOP_K = 10
# Limits that keep one request's compute bounded (the search is exponential in the level).
MAX_LEVEL_CAP = 12
MAX_STOPS = 5000
MAX_LINKS = 50000
MAX_PLAYERS = 64
MAX_TOP_K = 1000
MAX_CUBES = 10000

# The memory cap of one call (MB, as revenue.optimizer.search's MEMORY_MB), held to an estimate from the request's
# sizes: the board is what grows (the request as a dict, its parse, the adjacency, the reasons' walks),
# while the search keeps a few entries per cube group and listed delivery (tests/test_memory.py).
MEMORY_MB = 256
LINK_BYTES, STOP_BYTES, CUBE_BYTES, LISTED_BYTES = 1100, 600, 300, 16 * (MAX_LEVEL_CAP + 1) * 2

_FIELDS = {
    "": {"stops", "links", "cubes", "players", "player", "ruleset", "own_majority", "require_own_link",
         "max_level", "top_k", "round"},
    "stops": {"id", "kind", "colour", "hex"},
    "links": {"id", "a", "b", "owner", "complete"},
    "cubes": {"stop", "colour", "count"},
    "players": {"id", "level", "upgraded"},
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


@dataclass
class Problem:
    """A validated request, as indices and arrays."""
    stop_ids: list[str]
    stop_colour: np.ndarray          # int8 per stop: colour index of a city, -1 for a town
    link_ids: list[str]
    link_owner: np.ndarray           # int32 per link: player index, -1 unowned
    player_ids: list[str]
    levels: list[int]
    upgraded: list[bool]
    player: int
    ruleset: str
    own_majority: bool
    require_own_link: bool
    max_level: int
    top_k: int
    round: int
    adj_ptr: np.ndarray
    adj_to: np.ndarray
    adj_link: np.ndarray
    adj_owner: np.ndarray
    groups: list[tuple[int, int, int]] = field(default_factory=list)  # (stop, colour, count)
    edges: tuple = ()                # (src, dst, link) of each complete link, both ways, unsorted
    dist: np.ndarray | None = None   # colour_distances, once per board


def _for_player(pb: Problem, player: int) -> Problem:
    """The problem seen by `player`: per stop, the player's own links first, so that good deliveries are
    found early and the kernel's bounds cut more."""
    src, dst, lnk = pb.edges
    owner = pb.link_owner
    order = np.lexsort((owner[lnk] != player, src)) if len(lnk) else np.zeros(0, np.int64)
    return replace(pb, player=player, adj_to=dst[order], adj_link=lnk[order],
                   adj_owner=owner[lnk[order]] if len(lnk) else np.zeros(0, np.int32))


class _Checker:
    """Collects every violation of a request, then raises them together."""

    def __init__(self):
        self.errors: list[tuple[str, str]] = []

    def add(self, path: str, description: str) -> None:
        self.errors.append((path, description))

    def obj(self, value, path: str, kind: str) -> dict:
        if not isinstance(value, dict):
            self.add(path, f"must be an object, not {type(value).__name__}")
            return {}
        out = {}
        allowed = _FIELDS[kind]
        for key, item in value.items():
            name = key if key in allowed or not isinstance(key, str) else _snake(key)
            if name not in allowed:
                self.add(f"{path}.{key}" if path else str(key), "unknown field")
            else:
                out[name] = item
        return out

    def string(self, d: dict, key: str, path: str, required: bool = False) -> str:
        value = d.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            self.add(path, f"must be a string, not {type(value).__name__}")
            return ""
        if len(value) > MAX_NAME_CHARS:
            self.add(path, f"{len(value)} characters; at most {MAX_NAME_CHARS} are allowed")
            return ""
        if required and not value:
            self.add(path, "is required")
        return value

    def integer(self, d: dict, key: str, path: str, default, low: int, high: int):
        value = d.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"must be an integer, not {value!r}")
            return default
        if value < low:
            self.add(path, f"{value} is not >= {low}")
            return default
        if value > high:
            self.add(path, f"{value} is not <= {high}")
            return default
        return value

    def boolean(self, d: dict, key: str, path: str, default):
        value = d.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"must be true or false, not {value!r}")
            return default
        return value

    def unique_id(self, d: dict, path: str, section: str, ids: list[str], index: dict[str, int]) -> None:
        """d's required "id", appended to ids, the ids of `section` so far; index: the position of each
        id's first entry (a later one duplicates it)."""
        value = self.string(d, "id", f"{path}.id", required=True)
        if value in index:
            self.add(f"{path}.id", f"{value!r} duplicates {section}[{index[value]}].id")
        elif value:
            index[value] = len(ids)
        ids.append(value)

    def items(self, d: dict, key: str, path: str, limit: int) -> list:
        value = d.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(path, "must be a list")
            return []
        if len(value) > limit:
            self.add(path, f"{len(value)} entries; at most {limit} are allowed")
            return []
        return value


NO_STOP = np.zeros(1, np.int64)


def _poll(i: int, stop: np.ndarray) -> None:
    """Every 1024 entries of a long list, whether the deadline or a cancel has stopped the call."""
    if i % 1024 == 1023 and stop[0]:
        raise Interrupted("stopped while reading the request")


def parse(request, stop: np.ndarray = NO_STOP) -> Problem:
    """The request checked and as arrays; `stop` set (a deadline or a cancel) interrupts it."""
    ck = _Checker()
    if not isinstance(request, dict):
        raise InputError("", "the request must be a JSON object")
    req = ck.obj(request, "", "")

    ruleset = ck.string(req, "ruleset", "ruleset") or "steam"
    if ruleset not in RULESETS:
        ck.add("ruleset", f"{ruleset!r} is not one of {', '.join(RULESETS)}")
        ruleset = "steam"
    majority_default, own_link_default = RULE_DEFAULTS[ruleset]
    own_majority = ck.boolean(req, "own_majority", "own_majority", majority_default)
    require_own_link = ck.boolean(req, "require_own_link", "require_own_link", own_link_default)
    max_level = ck.integer(req, "max_level", "max_level", DEFAULT_MAX_LEVEL, 1, MAX_LEVEL_CAP)
    top_k = ck.integer(req, "top_k", "top_k", 0, 0, MAX_TOP_K) or DEFAULT_TOP_K
    rnd = ck.integer(req, "round", "round", 0, 0, 2) or 1

    # Players first: links name their owners.
    player_ids, levels, upgraded = [], [], []
    player_index: dict[str, int] = {}
    for i, raw in enumerate(ck.items(req, "players", "players", MAX_PLAYERS)):
        path = f"players[{i}]"
        p = ck.obj(raw, path, "players")
        ck.unique_id(p, path, "players", player_ids, player_index)
        if p.get("level") is None:
            ck.add(f"{path}.level", "is required")
            levels.append(1)
        else:
            levels.append(ck.integer(p, "level", f"{path}.level", 1, 1, max_level))
        upgraded.append(ck.boolean(p, "upgraded", f"{path}.upgraded", False))

    acting = ck.string(req, "player", "player", required=True)
    player = player_index.get(acting, -1)
    if acting and player < 0:
        ck.add("player", f"{acting!r} is not a players[].id")

    stop_ids: list[str] = []
    stop_index: dict[str, int] = {}
    colours: list[int] = []
    for i, raw in enumerate(ck.items(req, "stops", "stops", MAX_STOPS)):
        _poll(i, stop)
        path = f"stops[{i}]"
        s = ck.obj(raw, path, "stops")
        ck.unique_id(s, path, "stops", stop_ids, stop_index)
        kind = ck.string(s, "kind", f"{path}.kind")
        colour = ck.string(s, "colour", f"{path}.colour")
        ck.string(s, "hex", f"{path}.hex")
        if kind not in KINDS:
            ck.add(f"{path}.kind", f"{kind!r} is not city or town" if kind else "is required (city or town)")
            colours.append(-1)
        elif kind == "town":
            if colour:
                ck.add(f"{path}.colour", f"a town has no colour (got {colour!r}); a New City is a city")
            colours.append(-1)
        elif colour not in COLOURS:
            ck.add(f"{path}.colour", f"{colour!r} is not one of {', '.join(COLOURS)}"
                   if colour else f"a city needs a colour ({', '.join(COLOURS)})")
            colours.append(-1)
        else:
            colours.append(COLOURS.index(colour))

    link_ids: list[str] = []
    link_index: dict[str, int] = {}
    owners: list[int] = []
    edges: list[tuple[int, int, int]] = []  # complete links: (a, b, link index)
    # Parallel complete links of one owner are interchangeable (a delivery uses at most one link between
    # two stops, and they pay the same player): the first stands for them all, which keeps the search
    # linear in such links rather than quadratic.
    represented: set[tuple[int, int, int]] = set()
    for i, raw in enumerate(ck.items(req, "links", "links", MAX_LINKS)):
        _poll(i, stop)
        path = f"links[{i}]"
        lk = ck.obj(raw, path, "links")
        ck.unique_id(lk, path, "links", link_ids, link_index)
        ends = []
        for end in ("a", "b"):
            sid = ck.string(lk, end, f"{path}.{end}", required=True)
            if sid and sid not in stop_index:
                ck.add(f"{path}.{end}", f"{sid!r} is not a stops[].id")
            ends.append(stop_index.get(sid, -1))
        if ends[0] >= 0 and ends[0] == ends[1]:
            ck.add(f"{path}.b", "a link must join two different stops")
        owner = ck.string(lk, "owner", f"{path}.owner")
        if owner and owner not in player_index:
            ck.add(f"{path}.owner", f"{owner!r} is not a players[].id (leave it empty for an unowned link)")
        owners.append(player_index.get(owner, -1))
        complete = ck.boolean(lk, "complete", f"{path}.complete", True)
        if complete and ends[0] >= 0 and ends[1] >= 0 and ends[0] != ends[1]:
            pair = (min(ends), max(ends), owners[-1])
            if pair not in represented:
                represented.add(pair)
                edges.append((ends[0], ends[1], len(link_ids) - 1))

    counts: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(ck.items(req, "cubes", "cubes", MAX_CUBES)):
        _poll(i, stop)
        path = f"cubes[{i}]"
        c = ck.obj(raw, path, "cubes")
        sid = ck.string(c, "stop", f"{path}.stop", required=True)
        if sid and sid not in stop_index:
            ck.add(f"{path}.stop", f"{sid!r} is not a stops[].id")
        colour = ck.string(c, "colour", f"{path}.colour")
        if colour not in COLOURS:
            ck.add(f"{path}.colour", f"{colour!r} is not one of {', '.join(COLOURS)}"
                   if colour else "is required")
        n = ck.integer(c, "count", f"{path}.count", 1, 0, 1000)
        if sid in stop_index and colour in COLOURS and n > 0:
            key = (stop_index[sid], COLOURS.index(colour))
            counts[key] = counts.get(key, 0) + n

    if ck.errors:
        raise InputError(ck.errors[0][0], ck.errors[0][1], ck.errors[1:])

    n = len(stop_ids)
    src = np.array([e[0] for e in edges] + [e[1] for e in edges], np.int32)
    dst = np.array([e[1] for e in edges] + [e[0] for e in edges], np.int32)
    lnk = np.array([e[2] for e in edges] * 2, np.int32)
    link_owner = np.array(owners, np.int32).reshape(-1)
    adj_ptr = np.zeros(n + 1, np.int64)
    np.add.at(adj_ptr, src + 1, 1)
    stop_colour = np.array(colours, np.int8).reshape(-1)
    adj_ptr = np.cumsum(adj_ptr)
    order = np.lexsort((lnk, src)) if len(lnk) else np.zeros(0, np.int64)   # any order: distances only
    return _for_player(Problem(
        stop_ids=stop_ids, stop_colour=stop_colour, link_ids=link_ids, link_owner=link_owner,
        player_ids=player_ids, levels=levels, upgraded=upgraded, player=player,
        ruleset=ruleset, own_majority=own_majority, require_own_link=require_own_link,
        max_level=max_level, top_k=top_k, round=rnd, adj_ptr=adj_ptr, adj_to=dst, adj_link=lnk, adj_owner=lnk,
        groups=[(s, c, counts[(s, c)]) for s, c in sorted(counts)], edges=(src, dst, lnk),
        dist=colour_distances(adj_ptr, dst[order], stop_colour, len(COLOURS))), player)


def memory_bytes(stops: int, links: int, cubes: int, top_k: int) -> dict[str, int]:
    """The memory a call takes, estimated from the lengths of the request's lists, by what takes it."""
    return {"links": LINK_BYTES * links, "stops": STOP_BYTES * stops, "cubes": CUBE_BYTES * cubes,
            "top_k": LISTED_BYTES * (top_k or DEFAULT_TOP_K)}


def check_memory(stops: int, links: int, cubes: int, top_k: int, memory_mb: float) -> None:
    """InputError naming the request's largest part when a call on a request of these sizes would take
    more than `memory_mb` (memory_bytes): a delivery search has no smaller answer to fall back to.
    Sizes beyond the request limits count at the limit (the parse names those fields)."""
    parts = memory_bytes(min(stops, MAX_STOPS), min(links, MAX_LINKS), min(cubes, MAX_CUBES),
                         min(max(top_k, 0), MAX_TOP_K))
    need = sum(parts.values())
    if need > memory_mb * 2**20:
        largest = max(parts, key=parts.get)
        raise InputError(largest, f"a delivery search of this board takes about {need / 2**20:.1f} MB, over the "
                                  f"memory cap of {memory_mb:g} MB ({largest} take {parts[largest] / 2**20:.1f} MB)")


# At most 32 boards and STEAM_CACHE_BYTES by estimate (a parsed board takes about as much as its key).
_BOARDS: ByteLRU[Problem] = ByteLRU(STEAM_CACHE_BYTES, most=32)


def parse_cached(request, stop: np.ndarray = NO_STOP) -> Problem:
    """parse, remembering the last boards: a game asks about one board for each player in turn, so only
    the acting player differs between those requests (and an invalid request is never remembered)."""
    try:   # repr: a cheap exact key for JSON data (a reordered but equal request just misses)
        key = repr([(k, v) for k, v in request.items() if k != "player"])
    except (AttributeError, TypeError, ValueError):
        return parse(request, stop)
    board = _BOARDS.get(key)
    if board is None:
        problem = parse(request, stop)
        _BOARDS.put(key, problem, 10_000 + 2 * len(key))
        return problem
    acting = request.get("player")
    if isinstance(acting, str) and acting in board.player_ids:
        return _for_player(board, board.player_ids.index(acting))
    return parse(request, stop)    # the acting player is wrong: the full check names it
