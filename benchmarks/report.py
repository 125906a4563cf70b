"""The `bench` command (revenue bench, python -m benchmarks): runs the benchmarks, prints tables."""
from __future__ import annotations

import json
import pathlib

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table


@click.command()
@click.option("--repeats", default=20, show_default=True, help="Warm runs per scenario (fewer if slow).")
@click.option("--only", default="", help="Only scenarios whose name contains this text.")
@click.option("--steam/--no-steam", default=True, show_default=True, help="Also time Steam deliveries.")
@click.option("--cold/--no-cold", default=True, show_default=True,
              help="Also time the cold start: the first solves and the warm-up of a fresh install, and a new "
                   "process's first solve with the kernels cached (benchmarks.cold).")
@click.option("--game/--no-game", default=True, show_default=True,
              help="Also time the game-server scenario: every call a board not seen before.")
@click.option("--games", "games_folder", type=click.Path(file_okay=False), default=None,
              help="Also time whole games replayed from the 18xx.games exports in this folder (default: the "
                   "repository's tests/data/games/exports, when there).")
@click.option("--replay/--no-replay", default=True, show_default=True, help="Also time the games replayed.")
@click.option("--moves/--no-moves", default=True, show_default=True,
              help="Also time every legal lay and token listed and valued on real late-game boards "
                   "(python -m benchmarks.moves).")
@click.option("--cluster", is_flag=True,
              help="Also time an archive of those games replayed in one process and on Dask local clusters "
                   "of 1 and 2 workers (python -m benchmarks.replay_cluster).")
@click.option("--load", "load_seconds", type=int, default=0,
              help="Also run the gRPC load test for this many seconds (8 clients).")
@click.option("--fresh-boards", "fresh", is_flag=True,
              help="With --load: every call a board the server has not seen.")
@click.option("--stress", is_flag=True,
              help="Run the stress family instead (python -m benchmarks.stress: dense maps of 36 to 144 hexes).")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON instead of tables.")
@click.pass_context
def bench(ctx, repeats: int, only: str, steam: bool, cold: bool, game: bool, games_folder: str | None,
          replay: bool, moves: bool, cluster: bool, load_seconds: int, fresh: bool, stress: bool, as_json: bool) -> None:
    """Time the optimizer on every scenario and print a table (medians, maxima, proof, memory)."""
    from revenue.compiling import announce, compile_ahead

    from . import solver

    if stress:
        from .stress import stress as stress_command
        ctx.invoke(stress_command, as_json=as_json)
        return

    out = Console(highlight=False, width=max(Console().width, 120))
    report: dict = {}
    # (a fresh install's kernels compiled before anything is timed, as `revenue warmup` does)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    announce(lambda text: err.print(text, markup=False))
    compile_ahead()
    names = [sc.name for sc in solver.scenarios() if only.lower() in sc.name.lower()]
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("solving scenarios", total=len(names))
        report["solver"] = solver.run(repeats, only, progress=lambda name: bar.advance(task))
    if game:
        from . import gameserver
        report["game_server"] = gameserver.run()
    if steam:
        from . import steam as steam_bench
        report["steam"] = steam_bench.run(repeats)
    if replay:
        from . import replay as replay_bench
        folder = pathlib.Path(games_folder) if games_folder else replay_bench.GAMES
        replay = folder.is_dir()
        if replay:
            report["replay"] = replay_bench.run(folder, max(1, min(repeats, 5)))
    if moves:
        from . import moves as moves_bench
        report["moves"] = moves_bench.run(max(1, min(repeats, 5)))
    if cluster:
        from . import replay as replay_bench
        from . import replay_cluster
        report["replay_cluster"] = replay_cluster.run(pathlib.Path(games_folder) if games_folder
                                                      else replay_bench.GAMES)
    if cold:
        from . import cold as cold_start
        report["cold_start"] = cold_start.run()
    if load_seconds:
        from . import load
        report["load"] = load.run(clients=8, seconds=load_seconds, fresh=fresh)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return

    table = Table(title="Optimizer (warm, whole library call)")
    for col in ("scenario", "trains", "revenue", "routes", "proved", "median ms", "max ms", "runs", "peak MB"):
        table.add_column(col, justify="left" if col in ("scenario", "trains") else "right")
    for r in report["solver"]:
        table.add_row(r["scenario"], r["trains"], str(r["revenue"]), f"{r['candidate_routes']:,}",
                      "yes" if r["optimal"] else "[red]no[/red]", f"{r['median_ms']:.2f}", f"{r['max_ms']:.2f}",
                      str(r["runs"]), f"{r['peak_mb']:.1f}")
    out.print(table)
    if game:
        from . import gameserver
        gameserver.print_table(report["game_server"], out)
    if steam:
        t = Table(title="Steam deliveries")
        rows = report["steam"]
        for col in rows[0] if rows else ():
            t.add_column(col.replace("_", " "), justify="right")
        for r in rows:
            t.add_row(*[f"{v:.2f}" if isinstance(v, float) else str(v) for v in r.values()])
        out.print(t)
    if replay:
        from . import replay as replay_bench
        replay_bench.print_table(report["replay"], out)
    if moves:
        from . import moves as moves_bench
        moves_bench.print_table(report["moves"], out)
    if cluster:
        from . import replay_cluster
        replay_cluster.print_table(report["replay_cluster"], out)
    if cold:
        from . import cold as cold_start
        out.print(cold_start.describe(report["cold_start"]))
    if load_seconds:
        from . import load

        load.print_report(report["load"], out)
