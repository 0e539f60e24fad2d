"""The `hexsim` command: parse, call the Python API, print. No logic lives here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.errors import friendly
from sim.cli.workflows import register
from sim.errors import UserError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="hexsim: balance simulator for hex-tile board games.")


def run_dir_for(out: Path | None, name: str, several: bool) -> Path | None:
    if out is None:
        return None
    return out / name.replace("/", "-") if several else out


@app.command()
@friendly
def run(
    variants: Annotated[list[str], typer.Argument(help="Variant files or shipped game/name.")],
    games: Annotated[int, typer.Option(help="Games per variant (per seat rotation).")] = 10_000,
    seed: Annotated[int, typer.Option(help="Run seed: game i is seeded by (seed, i).")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Run folder (several variants: one sub-folder each). Default data/runs/<game>/<name>.")] = None,
    chunk_size: Annotated[int | None, typer.Option(help="Games per part file.")] = None,
    rotate_seats: Annotated[bool, typer.Option(
        help="Play every seed once per seat rotation (tells seat advantage from bot strength).")] = False,
    backend: Annotated[str, typer.Option(help="loky (local), dask, threading or sequential.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (tcp://HOST:PORT).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    replace_stale: Annotated[bool, typer.Option(
        help="A run folder made by another variant, rules code, seed or game count is emptied "
             "and played again instead of refused (a matching one still resumes).")] = False,
    check: Annotated[bool, typer.Option(
        help="For game authors: test every bot move against legal_moves and compile the kernels "
             "with bounds checking (cached apart); the first fault stops the run, naming the game, "
             "decision, seat and move. Same games, slower.")] = False,
):
    """Play games of one or more variants and write their outcome tables."""
    import sim
    from sim.runs.variants import load

    loaded = [load(v) for v in variants]  # every file checked before any game is played
    for line in warning_lines(loaded):
        typer.echo(line, err=True)
    for k, v in enumerate(loaded, 1):
        r = sim.run(v, games, seed=seed, jobs=jobs, out=run_dir_for(out, v.name, len(loaded) > 1),
                    chunk_size=chunk_size, rotate_seats=rotate_seats, backend=backend,
                    scheduler=scheduler, progress=progress, replace_stale=replace_stale, check=check)
        t = r.manifest["timings"]
        rate = f", {t['games_per_second']:,.0f} games/s" if t["games_per_second"] else ""
        of = f"[{k}/{len(loaded)}] " if len(loaded) > 1 else ""
        typer.echo(f"{of}{v.name}: {r.manifest['games'] * r.manifest['rotations']:,} games in "
                   f"{r.path} ({t['games_resumed']:,} resumed{rate})")


WARNING_WIDTH = 110  # a rule-text reading, shortened to one line before any game is played


def warning_lines(loaded) -> list[str]:
    """The variants' rule-text readings, one short line each, naming the game and how many of
    the variants it concerns; `hexsim rules GAME` prints them in full."""
    said: dict[tuple[str, str], list[str]] = {}
    for v in loaded:
        for w in v.warnings():
            said.setdefault((v.game.name, w), []).append(v.name)
    out = []
    for (game, w), names in said.items():
        who = names[0] if len(names) == 1 else f"{len(names)} {game} variants"
        text = " ".join(w.split())
        text = text if len(text) <= WARNING_WIDTH else text[:WARNING_WIDTH - 1].rstrip() + "…"
        out.append(f"reading ({who}): {text} [hexsim rules {game}]")
    return out


@app.command()
@friendly
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run folders.")],
    out: Annotated[Path, typer.Option(help="Report folder.")] = Path("reports/latest"),
    reference: Annotated[list[str] | None, typer.Option(
        help="The variant its mode's others are compared with (repeat: one per mode); "
             "default: the mode's base variant.")] = None,
    replays: Annotated[bool, typer.Option(
        help="Draw example games (the shortest, a typical one per common end reason).")] = True,
    partial: Annotated[bool, typer.Option(
        help="Report unfinished runs too (marked partial); without it they are refused.")] = False,
    ladders: Annotated[list[Path] | None, typer.Option(
        help="A `hexsim ladder` folder, or a folder of them (repeat): the verdict table's 'with "
             "stronger play' column and an index of the ladders.")] = None,
):
    """Balance report (report.md, report.html, summary.csv) of one or more runs: the verdict
    first, then why games end, outcome metrics and each mode's variants against its reference."""
    import sim

    res = sim.report(runs, out, references=reference or (), replays=replays, partial=partial,
                     ladders=ladders or ())
    for label, note in res.partial.items():
        typer.echo(f"{label}: {note} (its verdict is on these games only)")
    typer.echo(f"report: {res.html}")


@app.command()
@friendly
def games(
    run_dir: Annotated[Path, typer.Argument(help="Run folder.")],
    where: Annotated[str | None, typer.Option(
        help="Condition on the table's columns (pandas query), e.g. "
             "\"end_reason == 'blocked' and turns <= 5\"; winner_seat and first_seat_name hold "
             "seat names.")] = None,
    replay: Annotated[int, typer.Option(help="Re-play and draw the first K matching games.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Folder for the --replay pictures.")] = None,
    limit: Annotated[int, typer.Option(help="Rows to list.")] = 20,
):
    """List the games of a run's table that match a condition, and draw some of them."""
    from sim.runs.replay import SHOW_COLUMNS, find_games

    res = find_games(run_dir, where, replay, out)
    hit = res.matches
    share = f" ({len(hit) / res.total:.1%})" if res.total else ""
    typer.echo(f"{len(hit):,} of {res.total:,} games match{share}")
    cols = [c for c in SHOW_COLUMNS if c in hit] + ["winner_seat"]
    cols += [c for c in hit if c.startswith("score_")]
    if len(hit):
        typer.echo(hit[cols].head(max(limit, 0)).to_string(index=False))
    if len(hit) > limit:
        typer.echo(f"... {len(hit) - limit:,} more (--limit N to list more)")
    for path, cmd in zip(res.pictures, res.commands, strict=True):
        typer.echo(f"picture: {path}   ({cmd})")


@app.command("variants")
@friendly
def list_variants():
    """List the shipped variants (and those in HEXSIM_VARIANTS folders) with their descriptions,
    then the plug-in games of HEXSIM_GAMES."""
    from sim import games
    from sim.runs.variants import VARIANTS_DIR, list_shipped, load

    for name in list_shipped():
        v = load(name)
        where = "" if v.path.resolve().is_relative_to(VARIANTS_DIR) else f"  [{v.path.parent.parent}]"
        typer.echo(f"{name:32s} {v.description}{where}")
    for name, module in games.plugins().items():
        version = games.game_version(games.get(name))["version"]
        typer.echo(f"plug-in game {name} (HEXSIM_GAMES module {module}, version {version})")


@app.command()
@friendly
def rules(
    game: Annotated[str, typer.Argument(help="Game name.")],
    draw: Annotated[Path | None, typer.Option(help="Write pictures of the rule data here.")] = None,
):
    """A game's parameter table, its bots, and warnings where the rule text contradicts itself."""
    from sim import games

    g = games.get(game, "rules")
    typer.echo(f"{g.title or g.name}: {g.description}\n")
    typer.echo(f"{'parameter':24s} {'default':>12s}  allowed / meaning")
    for p in g.params:
        seat = "; or a table by seat, e.g. { B = ... }" if p.per_seat else ""
        typer.echo(f"{p.name:24s} {str(p.default):>12s}  {p.allowed()}{seat}\n{'':38s}{p.doc}")
    typer.echo("\nbots:")
    for b in g.bots:
        extra = ", ".join(f"{p.name}={p.default}" for p in b.params)
        typer.echo(f"  {b.name:10s} {b.doc}" + (f" [{extra}]" if extra else ""))
    modes = g.modes()
    for label, overrides in modes:
        warnings = g.warnings(g.resolve_rules(overrides, "rules"))
        if warnings:
            where = "defaults" if len(modes) == 1 else f"defaults of mode {label}"
            typer.echo(f"\nwarnings ({where}):")
            for w in warnings:
                typer.echo(f"  ! {w}")
    if draw is not None:
        if not hasattr(g, "draw_rules"):
            raise UserError(f"--draw: {game} has no rule pictures")
        g.draw_rules(str(draw))
        typer.echo(f"pictures: {draw}")


@app.command()
@friendly
def replay(
    variant: Annotated[str, typer.Argument(help="Variant file or shipped game/name.")],
    game: Annotated[int, typer.Option("--game", help="Game index in the run.")],
    seed: Annotated[int, typer.Option(help="Run seed.")] = 0,
    rotation: Annotated[int, typer.Option(help="Seat rotation (runs with --rotate-seats).")] = 0,
    out: Annotated[Path, typer.Option(help="PNG file.")] = Path("replay.png"),
    every_move: Annotated[bool, typer.Option(help="Draw the board after every move.")] = False,
):
    """Re-play one game from its seed and draw it, with its numbered move list, the result in
    words and a legend of the move codes."""
    from sim.runs.replay import legend_lines, move_lines, result_lines
    from sim.runs.replay import replay as _replay
    from sim.runs.variants import load

    trace = _replay(variant, game, seed, rotation, out, every_move)
    typer.echo(f"{trace.game} game {game} (run seed {seed}, rotation {rotation}): moves")
    for line in move_lines(trace):
        typer.echo(line)
    for line in result_lines(trace, load(variant).game.end_reasons):
        typer.echo(line)
    legend = legend_lines(trace)
    if legend:
        typer.echo("legend:")
        for line in legend:
            typer.echo(f"  {line}")
    typer.echo(f"picture: {out}")


@app.command()
@friendly
def warm(
    jobs: Annotated[int, typer.Option(help="Parts compiled at once (one process each).")] = 2,
):
    """Compile every game's kernels into the on-disk cache: each game's independent parts (e.g.
    HEXFLOW's modes) in parallel processes, the longest first. Prints the plan and an estimate
    first, then a line as each part starts and ends."""
    from sim.display import duration
    from sim.runs.warm import warm as _warm

    total = _warm(jobs, echo=typer.echo)
    typer.echo(f"warm: done in {duration(total)}")


register(app)  # compare, sweep, tune, sensitivity, baseline, check, ladder


def main() -> None:  # pragma: no cover - `python -m sim.cli` (sim/cli/__main__.py)
    app()
