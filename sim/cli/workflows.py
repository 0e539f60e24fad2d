"""The designer workflows on the command line: compare, sweep, tune, sensitivity, baseline save,
check, ladder.

`register(app)` adds them to the main `hexsim` app (sim/cli/commands.py); both modules fail the same
way (sim/cli/errors.py). Each command parses, calls the
Python API (sim.compare, sim.sequential, sim.sweep, sim.baseline, sim.ladder) and prints; no
logic here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.errors import friendly
from sim.errors import UserError


@friendly
def compare(
    a: Annotated[str, typer.Argument(help="Variant A (file or shipped game/name).")],
    b: Annotated[str, typer.Argument(help="Variant B (file or shipped game/name).")],
    games: Annotated[int, typer.Option(help="Games per variant (fixed-size comparison).")] = 10_000,
    seed: Annotated[int, typer.Option(help="Run seed shared by both variants.")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(
        help="Output folder (default reports/compare-A-vs-B).")] = None,
    sequential: Annotated[bool, typer.Option(
        help="Play in batches until a GSPRT decides whether the win rate moved by --margin.")] = False,
    margin: Annotated[float | None, typer.Option(
        help="Sequential: the win-rate change that matters (e.g. 0.03).")] = None,
    alpha: Annotated[float, typer.Option(help="Sequential: false 'changed' rate.")] = 0.05,
    beta: Annotated[float, typer.Option(help="Sequential: missed-change rate at --margin.")] = 0.05,
    max_games: Annotated[int, typer.Option(help="Sequential: stop undecided after this many.")] = 200_000,
    batch: Annotated[int, typer.Option(help="Sequential: games per batch between looks.")] = 1000,
    seat: Annotated[str, typer.Option(
        help="Sequential: whose win rate: first_mover (who moves first) or a seat name.")] = "first_mover",
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    common_seeds: Annotated[bool, typer.Option(
        help="Play B on A's seeds and compare game by game (paired); --no-common-seeds plays "
             "B on other seeds (independent samples).")] = True,
    rotate_seats: Annotated[bool, typer.Option(
        help="Play every seed once per seat rotation in both variants.")] = False,
):
    """Compare two variants played on the same seeds.

    Every metric with a 95% interval of the difference, a p-value, the Holm-adjusted p-value and
    a verdict; with --sequential, a GSPRT on the win rate that stops as soon as it is decided."""
    if sequential:
        from sim.workflows.sequential import sequential_compare

        if margin is None:
            raise UserError("--sequential needs --margin D (the win-rate change that matters)")
        if rotate_seats:
            raise UserError("--rotate-seats: only for the fixed-size comparison (not --sequential)")
        out = out or Path("reports") / "sequential"
        res = sequential_compare(a, b, margin, alpha=alpha, beta=beta, max_games=max_games,
                                 batch=batch, seed=seed, jobs=jobs or 1, target=seat, out=out)
        typer.echo(res.summary())
        typer.echo(f"LLR trace: {res.files['png']}")
        return
    if margin is not None:
        raise UserError("--margin: only with --sequential")
    from sim.workflows.compare import compare as _compare

    res = _compare(a, b, games=games, seed=seed, jobs=jobs, out=out, progress=progress,
                   common_seeds=common_seeds, rotate_seats=rotate_seats)
    from sim.workflows.compare import stdout_lines

    for line in stdout_lines(res):
        typer.echo(line)
    if res.identical is not None:
        typer.echo(f"common seeds: {res.identical_games:,} of {res.games:,} games "
                   f"({res.identical:.1%}) came out identically")
    typer.echo("paired analysis (game i of A vs game i of B)" if res.pairing is None
               else f"not paired: {res.pairing}; two-sample methods")
    typer.echo(f"report: {res.files['html']}  table: {res.files['csv']}")


@friendly
def sweep(
    variant: Annotated[str, typer.Argument(help="Variant file or shipped game/name.")],
    set_: Annotated[list[str], typer.Option(
        "--set", help="PATH=V1,V2,... (repeat for a grid of two or more). PATH: rules.NAME, "
                      "rules.NAME.SEAT (one seat's entry: rules.hand_size.B=3,4,5), "
                      "rules.NAME.KEY.KEY (a nested table: rules.tiles.block.count=0,1,2), "
                      "seats.SEAT.PARAM (a bot parameter: seats.A.defense=1,3) or seats.SEAT.bot. "
                      "Values: alternatives separated by commas outside brackets, braces and "
                      "quotes, each a TOML or JSON value: 'rules.dot_list=[[\"e5\",2]],[]' is "
                      "two lists, 'rules.hand_size={A=3,B=4},4' a table and a number.")],
    games: Annotated[int, typer.Option(help="Games per setting.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Run seed (shared by every setting).")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/sweep-NAME).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    margin: Annotated[float, typer.Option(
        help="Fairness margin: a first-mover share within fair +/- this is fair (0.02 = 2 points), "
             "if an equivalence test shows it.")] = 0.02,
    rotate_seats: Annotated[bool, typer.Option(
        help="Play every seed once per seat rotation at every setting.")] = False,
):
    """Play a grid of rule settings and chart every metric against them.

    Intervals per setting; the first mover's share judged fair (equivalence test within
    --margin), unfair (shown beyond it), or cannot tell yet."""
    from sim.workflows.sweep import parse_set
    from sim.workflows.sweep import sweep as _sweep

    grid = dict(parse_set(s) for s in set_)
    if len(grid) != len(set_):
        raise UserError("--set: a key is given twice")
    res = _sweep(variant, grid, games=games, seed=seed, jobs=jobs, out=out, progress=progress,
                 margin=margin, rotate_seats=rotate_seats)
    t = res.table[res.table["metric"] == "first_mover_share"]
    for r in t.to_dict("records"):
        point = ", ".join(f"{k}={r[k]}" for k in res.params)
        typer.echo(f"{point}: {r['fairness_sentence']}")
    if not len(res.fair_points()):
        typer.echo(f"no setting is shown fair within +/-{100 * margin:g} points")
    typer.echo(f"table: {res.files['csv']}  report: {res.files['html']}")


@friendly
def tune(
    variant: Annotated[str, typer.Argument(help="Variant file or shipped game/name to start from.")],
    vary: Annotated[list[str], typer.Option(
        "--vary", help="PATH=LOW..HIGH (integers or reals), PATH=V1,V2,... (choices, e.g. "
                       "true,false); PATH as for sweep --set: rules.hand_size.B, seats.A.defense, "
                       "rules.tiles.block.count. Repeat for each searched value.")],
    target: Annotated[list[str], typer.Option(
        "--target", help="METRIC=VALUE (within +/- 1.5 points for a share, 5% otherwise; "
                         "METRIC=VALUE+-TOL to say), METRIC>=V, METRIC<=V or METRIC=LOW..HIGH. "
                         "Metrics: first_mover_share, decided_on_board, decided_off_board, "
                         "median_turns, draw_rate, end_<reason>, ... Repeat for several.")],
    budget: Annotated[int, typer.Option(help="Games in all: the search and the confirmation.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed: the search's run seed; the optimiser's and the "
                                           "confirmation's seeds derive from it.")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/tune-NAME).")] = None,
    confirm: Annotated[int, typer.Option(help="Settings of the search re-played on fresh seeds.")] = 3,
    confirm_share: Annotated[float, typer.Option(
        help="Share of the budget kept for the confirmation (more if the search ends early).")] = 0.25,
    backend: Annotated[str, typer.Option(help="loky (local), dask, threading or sequential.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (tcp://HOST:PORT).")] = None,
    progress: Annotated[bool, typer.Option(
        help="The search's settings on stderr, a line each however many trials asked for it.")] = True,
):
    """Search rule settings for a designer's targets, then confirm the best on fresh games.

    optuna's TPE sampler with successive halving (more games for promising settings), then the
    best few settings and the starting variant re-played on fresh seeds; the winner is picked
    from that confirmation only. Writes tune.csv, best.toml (a variant file), tune.md, tune.html."""
    from sim.workflows.tune import tune as _tune

    res = _tune(variant, vary, target, budget, seed=seed, jobs=jobs, out=out, backend=backend,
                scheduler=scheduler, progress=progress, confirm=confirm, confirm_share=confirm_share)
    typer.echo(res.statement)
    from sim.workflows.tune_report import side_effects

    if side_effects(res):
        typer.echo(side_effects(res))
    typer.echo(f"{res.games_played:,} games; report: {res.files['html']}  table: {res.files['csv']}  "
               f"variant: {res.files['toml']}")


@friendly
def sensitivity(
    variant: Annotated[str, typer.Argument(help="Variant file or shipped game/name.")],
    params: Annotated[str | None, typer.Option(
        help="Paths to vary, comma-separated (default: every rule parameter but the mode), e.g. "
             "rules.hand_size,rules.copies_per_type,seats.A.defense; PATH=V1,V2 names the values "
             "(lists, tables: as for sweep --set).")] = None,
    games: Annotated[int, typer.Option(help="Games per value (the base plays as many).")] = 10_000,
    seed: Annotated[int, typer.Option(help="Run seed shared by the base and every value.")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/sensitivity-NAME).")] = None,
    backend: Annotated[str, typer.Option(help="loky (local), dask, threading or sequential.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (tcp://HOST:PORT).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
):
    """Which rule matters most: every parameter's neighbouring values against the base.

    Each other choice, the other truth value, or one step down and up, played on the base's
    seeds and compared game by game (paired intervals, Holm over the alternatives). Writes
    sensitivity.csv, .md, .html and a tornado plot per headline metric."""
    from sim.stats import intervals
    from sim.workflows.sensitivity import change_text, parse_params
    from sim.workflows.sensitivity import sensitivity as _sensitivity

    res = _sensitivity(variant, parse_params(params) if params else None, games=games, seed=seed,
                       jobs=jobs, out=out, backend=backend, scheduler=scheduler, progress=progress)
    typer.echo("the rules that move the first mover's share most:")
    for i, r in enumerate(res.ranking("first_mover_share").head(3).to_dict("records"), 1):
        typer.echo(f"  {i}. {change_text(r)}: {100 * r['first_mover_share_diff']:+.1f} "
                   f"points {intervals.points(r['first_mover_share_ci_low'], r['first_mover_share_ci_high'])}, "
                   f"Holm p = {r['first_mover_share_p_adjusted']:.3g}")
    typer.echo(f"report: {res.files['html']}  table: {res.files['csv']}")


@friendly
def baseline_save(
    variants: Annotated[list[str] | None, typer.Argument(help="Variant files or shipped game/name.")] = None,
    games: Annotated[int | None, typer.Option(
        help="Games per variant (default: the size the check's design needs, from a pilot run).")] = None,
    seed: Annotated[int, typer.Option(help="Run seed.")] = 0,
    out: Annotated[Path | None, typer.Option(
        help="A baseline file FILE.json (one variant), or a folder for <game>/<name>.json (default: "
             "data/baselines for hexsim's shipped variants, ./baselines for any other).")] = None,
    sample: Annotated[int, typer.Option(help="First games stored for the exact check.")] = 200,
    shipped: Annotated[bool, typer.Option(help="Save every shipped variant's baseline.")] = False,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    progress: Annotated[bool, typer.Option(help="A line per baseline on stderr.")] = True,
):
    """Play variants and record their metrics, seeds, outcome digest and check design as baselines."""
    from sim.runs.variants import list_shipped
    from sim.workflows import baseline

    if shipped == bool(variants):
        raise UserError("baseline save: name variants, or give --shipped (not both)")
    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs {jobs}: must be at least 1")
    saved = baseline.save(list_shipped() if shipped else variants, games, seed, out, sample, jobs,
                          progress=progress)
    for b in saved:
        typer.echo(f"{b.data['variant']['name']}: {b.data['games']:,} games, digest "
                   f"{b.data['table_digest'][:19]}... -> {b.path}")


@friendly
def check(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="Baseline files or folders (default: ./baselines, unless --shipped).")] = None,
    shipped: Annotated[bool, typer.Option(
        help="Check the shipped variants' baselines (hexsim's data/baselines) too.")] = False,
    exact: Annotated[bool, typer.Option(help="Re-play the stored sample of seeds.")] = True,
    statistical: Annotated[bool, typer.Option(help="Test every testable metric on fresh seeds.")] = True,
    definitions: Annotated[bool, typer.Option(
        help="Compare every metric's definition on the stored games (a change: stale, re-save).")] = True,
    sample: Annotated[int | None, typer.Option(help="Exact: re-play only the first N stored games.")] = None,
    full: Annotated[bool, typer.Option(help="Exact: re-play every game and compare the table digest.")] = False,
    games: Annotated[int | None, typer.Option(
        help="Statistical: fresh games (default: each baseline's design, as many as it holds).")] = None,
    seed: Annotated[int | None, typer.Option(help="Statistical: run seed (default: baseline seed + 1).")] = None,
    false_drift: Annotated[float | None, typer.Option(
        help="Statistical: chance that an unchanged variant is called drifted (default: each "
             "baseline's design, 2e-4: half on the first mover's share, half Holm over the rest).")] = None,
    junit: Annotated[Path | None, typer.Option(help="Write a JUnit XML report here.")] = None,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    progress: Annotated[bool, typer.Option(help="Which baseline, and games/s, on stderr.")] = True,
):
    """Verify baselines: exact replay of stored seeds, metric definitions on the stored games,
    statistical test on fresh seeds. Prints first how many games it will play and about how long.

    Exit 0 when all hold, 1 when any drifted or is stale (re-save it), 2 on bad input."""
    from sim.workflows import baseline

    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs {jobs}: must be at least 1")
    rep = baseline.check(paths, exact=exact, statistical=statistical, sample=sample, full=full,
                         games=games, seed=seed, false_drift=false_drift, jobs=jobs, progress=progress,
                         definitions=definitions, shipped=shipped)
    if not rep.results:
        where = [*(paths or []), *([baseline.BASELINES_DIR] if shipped else [])] or [baseline.LOCAL_DIR]
        raise UserError(f"check: no baselines found in {', '.join(map(str, where))}")
    typer.echo(rep.summary())
    if junit is not None:
        typer.echo(f"junit: {rep.junit_xml(junit)}")
    if not rep.ok:
        raise typer.Exit(1)


@friendly
def ladder(
    variant: Annotated[str, typer.Argument(help="Variant file or shipped game/name.")],
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", help="A rung, NAME[:param=value...], weakest first (repeat).")] = None,
    doubling: Annotated[str | None, typer.Option(
        help="A budget-doubling chain from this spec: the first parameter named doubles per rung.")] = None,
    rungs: Annotated[int, typer.Option(help="Rungs of the --doubling chain.")] = 6,
    games: Annotated[int, typer.Option(help="Games per pairing (seats rotated).")] = 1000,
    self_games: Annotated[int | None, typer.Option(
        help="Games of each bot against itself (default: --games); about 1,100 give the first "
             "mover's share +/-3 points at every rung.")] = None,
    pairs: Annotated[str, typer.Option(
        help="neighbours (each rung against the next) or all (every pair).")] = "neighbours",
    seed: Annotated[int, typer.Option(help="Ladder seed (every pairing's run seed derives from it).")] = 0,
    jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default reports/ladder-NAME).")] = None,
    sequential: Annotated[bool, typer.Option(
        help="Stop a pairing early once a GSPRT finds one bot stronger by --margin.")] = False,
    margin: Annotated[float, typer.Option(help="Sequential: P(b wins) - P(a wins) that counts as decided.")] = 0.1,
    batch: Annotated[int, typer.Option(help="Sequential: games per pairing between looks.")] = 200,
    backend: Annotated[str, typer.Option(help="loky (local), dask, threading or sequential.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (tcp://HOST:PORT).")] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    agreement: Annotated[int, typer.Option(
        help="Decisions sampled per rung for its agreement with the rung below (the share where "
             "the lower bot picks the same move); 0: none.")] = 200,
):
    """Skill ladder: Elo ratings with intervals, skill depth, SkillTrace, agreement with the rung
    below and the balance by skill. A bot named oracle (it sees every hand) is the ceiling of skill,
    not a rung: it plays greedy (else the top rung) apart.

    Writes ratings.csv, pairings.csv, by_skill.csv, skill_depth.csv, agreement.csv, ceiling.csv,
    ladder.json, ladder.md and ladder.html."""
    from sim.workflows.ladder import ladder as _ladder

    res = _ladder(variant, bot or [], games=games, doubling=doubling, rungs=rungs, pairs=pairs, seed=seed,
                  jobs=jobs, out=out, sequential=sequential, margin=margin, batch=batch, backend=backend,
                  scheduler=scheduler, progress=progress, self_games=self_games, agreement=agreement)
    for line in res.summary():
        typer.echo(line)
    typer.echo(f"report: {res.files['html']}  ratings: {res.files['ratings']}")


def register(app: typer.Typer) -> None:
    """Add compare, sweep, baseline save, check and ladder to the main app."""
    app.command("compare")(compare)
    app.command("sweep")(sweep)
    app.command("tune")(tune)
    app.command("sensitivity")(sensitivity)
    baseline_app = typer.Typer(add_completion=False, no_args_is_help=True,
                               help="Regression baselines of variants.")
    baseline_app.command("save")(baseline_save)
    app.add_typer(baseline_app, name="baseline")
    app.command("check")(check)
    app.command("ladder")(ladder)
