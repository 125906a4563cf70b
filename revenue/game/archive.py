"""Archives of games replayed: many 18xx.games exports, each replayed as `replay_game` does, one game at a
time in this process or each game a task on a Dask cluster (`distributed`), the games' turns coming back
as the games finish.

    for line in replay_many(["archive/", "more/*.json"], client=Client("tcp://scheduler:8786")):
        print(line["game"], line.get("error") or line["left"])

A game's turns are `replay_game`'s dicts with the game's id first (`game`: the file's name without
.json, or the `id` of an export read from standard input); a game that cannot be replayed gives one line {game, error} and the others go
on. Dask is imported only here, when a client or a local cluster is asked for.
"""
from __future__ import annotations

import glob
import json
import logging
import os
import pathlib
import statistics
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

from ..errors import InputError

@dataclass(frozen=True)
class Game:
    """One export to replay: its id and either its file or the export itself (read from standard input)."""
    id: str
    path: str | None = None
    export: dict | None = None


@dataclass(frozen=True)
class Replayed:
    """A game replayed: its id, its title, its turns as JSON lines (or the one error line), and for the
    summary the revenue each turn left (None where the played run is unread)."""
    game: str
    title: str
    lines: tuple[str, ...]
    left: tuple[int | None, ...] = ()
    error: bool = False


def games(sources: Iterable) -> Iterator[Game]:
    """The games of `sources`: files, directories (their *.json files, by name), glob patterns, exports
    already read (dicts) and Games; each file once. A file's game id is its name without .json (known
    without reading it, so that --resume skips it unread); an export read already has its own `id`."""
    seen: set[str] = set()
    for source in sources:
        for game in _expand(source):
            # a Game given as it is stays itself (an archive may hold one file under several ids)
            key = f"id:{game.id}" if game.path is None or isinstance(source, Game) else os.path.realpath(game.path)
            if key not in seen:
                seen.add(key)
                yield game


def _expand(source) -> Iterator[Game]:
    if isinstance(source, Game):
        yield source
        return
    if isinstance(source, dict):
        yield Game(_game_id(source, "export"), export=source)
        return
    path = pathlib.Path(source)
    if path.is_dir():
        paths = sorted(path.glob("*.json"))
    elif path.exists():
        paths = [path]
    else:
        paths = [pathlib.Path(p) for p in sorted(glob.glob(str(source), recursive=True))]
        if not paths:
            raise InputError("", f"{source}: no such file, directory or pattern")
    for p in paths:
        if p.is_file():
            yield Game(p.stem, path=str(p))


def _game_id(export, fallback: str) -> str:
    value = export.get("id") if isinstance(export, dict) else None
    return fallback if value is None or value == "" else str(value)


def read_lines(stream: IO[str]) -> list[dict]:
    """The exports of a stream: one export (pretty-printed or not), a JSON list of them, or JSON lines."""
    text = stream.read()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    exports = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                exports.append(json.loads(line))
            except ValueError as exc:
                raise InputError("", f"standard input, line {number}: not JSON ({exc.msg})") from None
    return exports


def replay_one(game: Game, deadline_ms: int | None = None) -> Replayed:
    """Replay one game: its turns as JSON lines (those of `revenue replay --json` with `game` first), or
    its error line. This is the task each Dask worker runs."""
    from .analysis import replay_game

    title = ""
    try:
        export = game.export
        if export is None:
            with open(game.path) as fh:
                export = json.load(fh)
        if not isinstance(export, dict):
            raise InputError("", "not a game export (a JSON object with an action log)")
        title = str(export.get("title") or "")
        warm_up(export)
        lines, left = [], []
        for turn in replay_game(export, deadline_ms):
            lines.append(json.dumps({"game": game.id, **turn}, separators=(",", ":")))
            left.append(turn["left"])
    except Exception as exc:       # one game's fault is its line; the archive goes on
        return Replayed(game.id, title, (json.dumps({"game": game.id, "error": _describe(exc)}),), error=True)
    return Replayed(game.id, title, tuple(lines), tuple(left))


_warm = False


def warm_up(export: dict) -> None:
    """Once per process (each Dask worker is one): the game's first turn solved without a deadline, so
    that loading the kernels from Numba's cache (or compiling them) is not paid inside a turn's
    deadline, where a busy machine could leave that turn unproved."""
    global _warm
    if _warm:
        return
    from ..optimizer import solve
    from .replay import turns

    _warm = True
    for turn in turns(export):
        solve(turn.request)
        break


def _describe(exc: Exception) -> str:
    if isinstance(exc, InputError):
        return "; ".join(f"{f}: {d}" if f else d for f, d in exc.violations)
    return f"{type(exc).__name__}: {exc}"


def replayed_games(sources: Iterable, client=None, deadline_ms: int | None = None,
                   skip: Iterable[str] = (), in_flight: int | None = None) -> Iterator[Replayed]:
    """Each game of `sources` (but those whose id is in `skip`) replayed, as they finish: in this process
    one after the other without `client`, else each a task of the `distributed.Client`. At most
    `in_flight` games are handed to the cluster at once (default: twice its worker threads), so that an
    archive of any size is read as it goes."""
    skip = set(skip)
    pending = (g for g in games(sources) if g.id not in skip)
    if client is None:
        for game in pending:
            yield replay_one(game, deadline_ms)
        return
    yield from _on_cluster(pending, client, deadline_ms, in_flight)


def _on_cluster(pending: Iterator[Game], client, deadline_ms: int | None,
                in_flight: int | None) -> Iterator[Replayed]:
    from distributed import as_completed

    limit = in_flight or max(2, 2 * sum(client.nthreads().values()))
    # pure=False: each submission its own task (a game asked again is replayed again)
    tasks = as_completed(loop=client.loop)
    games_of: dict[str, Game] = {}
    for game in pending:
        future = client.submit(replay_one, game, deadline_ms, pure=False)
        games_of[future.key] = game
        tasks.add(future)
        if tasks.count() >= limit:
            yield _result(next(tasks), games_of)
    for future in tasks:
        yield _result(future, games_of)


def _result(future, games_of: dict) -> Replayed:
    """The task's Replayed; a task the cluster lost (its worker died each time it ran it: KilledWorker,
    or the scheduler went away) is its game's error line."""
    game = games_of.pop(future.key)
    try:
        return future.result()
    except Exception as exc:
        return Replayed(game.id, "", (json.dumps({"game": game.id, "error": _describe(exc)}),), error=True)
    finally:
        future.release()


def replay_many(sources: Iterable, client=None, deadline_ms: int | None = None,
                skip: Iterable[str] = ()) -> Iterator[dict]:
    """Every turn of every game of `sources` (files, directories, glob patterns or exports as dicts),
    as `replay_game` gives them with the game's id first (`game`), game after game as they finish; a
    game that cannot be replayed gives {game, error}. With `client` (a `distributed.Client`: a
    LocalCluster's or a remote scheduler's) each game is a task of its cluster; the workers need the
    package installed and the files on their paths when `sources` names files."""
    for replayed in replayed_games(sources, client, deadline_ms, skip):
        for line in replayed.lines:
            yield json.loads(line)


def local_client(workers: int | None = None):
    """A distributed.Client of a new LocalCluster: one worker process of one thread per core (or
    `workers`). Close it (it is a context manager) to stop the cluster."""
    import dask
    from distributed import Client, LocalCluster

    # the workers' statistical profiler samples every thread's stack every 10 ms: CPU the games need
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=logging.ERROR)
    for name in ("distributed.scheduler", "distributed.nanny", "distributed.core"):   # their stop, at INFO
        logging.getLogger(name).setLevel(logging.ERROR)
    return Client(cluster, set_as_default=False)


# ---- the output file and its summary ------------------------------------------------------------------

def games_done(path: str | os.PathLike) -> set[str]:
    """The ids of the games in an output file of JSON lines, after cutting off the lines of the last game
    when the file ends mid-line (its writer stopped while writing it: that game is replayed again)."""
    path = pathlib.Path(path)
    if not path.exists():
        return set()
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:                                     # a torn last line: drop that game's lines
        lines.pop()
        last = _line_game(lines[-1]) if lines else None
        while lines and last is not None and _line_game(lines[-1]) == last:
            lines.pop()
        with open(path, "wb") as fh:
            fh.write(b"".join(line + b"\n" for line in lines))
    return {g for g in map(_line_game, lines) if g is not None}


def _line_game(line: bytes) -> str | None:
    try:
        value = json.loads(line).get("game")
    except (ValueError, AttributeError):
        return None
    return None if value is None else str(value)


class Summary:
    """Per title: games, turns, errors, the share of the turns (with a readable played run) played at the
    optimum, and the revenue each game left on the table (median and 90th percentile over the games, and
    the total)."""

    def __init__(self):
        self._titles: dict[str, dict] = {}

    def add(self, replayed: Replayed) -> None:
        row = self._titles.setdefault(replayed.title or "?", {"games": 0, "errors": 0, "turns": 0,
                                                               "read": 0, "optimal": 0, "left": []})
        row["games"] += 1
        if replayed.error:
            row["errors"] += 1
            return
        read = [left for left in replayed.left if left is not None]
        row["turns"] += len(replayed.left)
        row["read"] += len(read)
        row["optimal"] += sum(left <= 0 for left in read)
        row["left"].append(sum(read))

    def rows(self) -> list[dict]:
        out = []
        for title, row in sorted(self._titles.items()):
            left = sorted(row["left"])
            out.append({"title": title, "games": row["games"], "errors": row["errors"], "turns": row["turns"],
                        "optimal_share": row["optimal"] / row["read"] if row["read"] else None,
                        "left_median": statistics.median(left) if left else None,
                        "left_p90": _percentile(left, 0.9) if left else None,
                        "left_total": sum(left)})
        return out


def _percentile(values: list[int], q: float) -> float:
    """The q-quantile of sorted `values`, interpolated between the nearest ranks."""
    position = q * (len(values) - 1)
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)
