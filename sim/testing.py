"""The shared check suite every game passes, shipped with the package so that a game written
outside it (a HEXSIM_GAMES plug-in) runs the same checks as the package's own:

    from sim.testing import check_game
    def test_my_game():
        check_game(GAME, "mygame/standard")             # a variant by name or path
        check_game(GAME, {"board": 7}, ["greedy", "random"], n=20)   # rules and bots

For n games of one rule set and seat line-up it checks:
- legal play: the first chunk is played checked (`sim.engine.checking`): every move a bot returns
  is tested against `legal_moves` before it is applied, and an error a kernel raises is located
  (game, decision, seat, move). The kernels of this process are not bounds-checked: set
  NUMBA_BOUNDSCHECK=1 (with a NUMBA_CACHE_DIR of its own) for that, or `hexsim run --check`;
- determinism: the same chunk twice gives identical columns (once through the runner's row
  assembly, `sim.runs.runner.play_range`);
- chunk independence: one chunk of n equals two chunks split anywhere, and its first games each
  played alone (a chunk of one: a new position, where the chunk driver sets the others up in
  place with the game's `reset`);
- the column contract of `Game.play_chunk` (names, dtypes, lengths, value ranges);
- termination: every game ends with a declared end reason and at least one turn;
- the traced replay of sampled games equals their chunk row (same moves in both kernels);
- `verify_trace`: every move legal and every piece conserved, checked by the position API;
- the engine's optional functions (an engine game): at every decision of the sampled games
  `copy_into` (where the game copies in place) gives the position `copy_position` gives, and at
  each game's end `winner` is the result row's winner;
- drawing: `Game.draw` of a traced game writes a PNG;
- the Parquet round trip: the rows as the runner writes them read back identical;
- `report_metrics` on the stored table: well-formed rows (a metric name, then successes of n or
  a value), and the metric table `compare`, `sweep` and `baseline` build from them, with the
  bootstrap replicates of the game's values;
- warm-up (`warm=True`): `warm_parts` well-formed and `Game.warm` of every part runs.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim.games.base import Game, SeatBot

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def seats_for(game: Game, rules: dict[str, Any],
              bots: Sequence[str | SeatBot] | str) -> list[SeatBot]:
    """Bot names (default parameters) or ready SeatBots (e.g. a variant's seats), one per seat."""
    names = game.seat_names(rules)
    if isinstance(bots, str):
        bots = [bots] * len(names)
    return [b if isinstance(b, SeatBot) else
            SeatBot(game.bot(b, "test"), {p.name: p.default for p in game.bot(b, "test").params})
            for b in bots]


def _variant(game: Game, variant, bots):
    """(Variant, seats) of what check_game was given: a Variant, a spec, or a rules dict."""
    from sim.runs.variants import Variant, load

    if isinstance(variant, (str, Path)):
        variant = load(str(variant))
    if isinstance(variant, Variant):
        assert variant.game.name == game.name, f"variant of {variant.game.name}, not {game.name}"
        rules = variant.rules
        seats = list(variant.seats.values()) if bots is None else seats_for(game, rules, bots)
    else:
        rules = game.resolve_rules(dict(variant), "test")
        seats = seats_for(game, rules, game.default_bot if bots is None else bots)
    names = game.seat_names(rules)
    assert len(seats) == len(names), f"{len(seats)} bots for seats {names}"
    v = Variant(name=f"{game.name}/check", game=game, description="sim.testing.check_game",
                rules=rules, seats=dict(zip(names, seats, strict=True)))
    return v, seats


def check_game(game: Game, variant, bots: Sequence[str | SeatBot] | str | None = None,
               n: int = 40, run_seed: int = 12345, traced: int = 4, *, draw: bool = True,
               table: bool = True, warm: bool = False) -> dict[str, np.ndarray]:
    """Run the shared checks (module docstring) on `n` games; AssertionError on a failure.

    `variant`: a Variant, a variant name / path, or a rules dict (then `bots`: one bot name for
    every seat, or one name or SeatBot per seat; default the game's default bot). `bots` given
    with a variant replaces its seats. `draw=False` skips the picture, `table=False` the Parquet
    round trip and the metric checks; `warm=True` adds the warm-up check. Returns the chunk's
    columns."""
    from sim.runs.runner import play_range

    v, seats = _variant(game, variant, bots)
    rules, names = v.rules, game.seat_names(v.rules)
    a = checked_chunk(game, rules, seats, n, run_seed)
    frame = play_range(v, 0, n, run_seed)  # the second chunk, as the runner assembles its rows
    split = max(1, n // 3)
    c1 = game.play_chunk(rules, seats, 0, split, run_seed)
    c2 = game.play_chunk(rules, seats, split, n - split, run_seed)
    required = {"winner", "end_reason", "turns", "first_seat"} | {f"score_{s}" for s in names}
    alone = [game.play_chunk(rules, seats, i, 1, run_seed) for i in range(min(n, 8))]
    assert required <= set(a), f"missing columns {required - set(a)}"
    for key, col in a.items():
        assert isinstance(col, np.ndarray) and col.shape == (n,), key
        # `swapped`: the engine's column under the pie rule (sim/engine/drivers.py, EngineGame._columns)
        assert key in required or key == "swapped" or key.startswith(game.name + "_"), \
            f"unprefixed column {key}"
        again = frame[key].cat.codes.to_numpy() if key == "end_reason" else frame[key].to_numpy()
        np.testing.assert_array_equal(col, again, err_msg=f"{key} not deterministic")
        np.testing.assert_array_equal(col, np.concatenate([c1[key], c2[key]]),
                                      err_msg=f"{key} depends on chunking")
        np.testing.assert_array_equal(col[:len(alone)], np.concatenate([c[key] for c in alone]),
                                      err_msg=f"{key}: a game in a chunk differs from the same game alone")
    assert a["winner"].min() >= -1 and a["winner"].max() < len(names)
    assert a["end_reason"].min() >= 0 and a["end_reason"].max() < len(game.end_reasons)
    assert (a["turns"] > 0).all()
    assert a["first_seat"].min() >= 0 and a["first_seat"].max() < len(names)
    with tempfile.TemporaryDirectory(prefix="hexsim-check-") as tmp:
        for k, i in enumerate(np.linspace(0, n - 1, traced).astype(int)):
            trace = game.play_traced(rules, seats, int(i), run_seed)
            for key in a:
                assert trace.row[key] == a[key][i], (
                    f"game {i}: traced {key}={trace.row[key]!r} but chunk gave {a[key][i]!r}")
            assert len(trace.moves) > 0
            game.verify_trace(trace)
            check_copy_and_winner(game, rules, seats, int(i), run_seed)
            if draw and k == 0:
                check_draw(game, trace, Path(tmp) / "trace.png")
        if table:
            stored = check_parquet_round_trip(frame, Path(tmp) / "run")
            check_report_metrics(v, stored, run_seed)
    if warm:
        check_warm(game)
    return a


def checked_chunk(game: Game, rules, seats, n: int, run_seed: int) -> dict[str, np.ndarray]:
    """Games 0 .. n - 1 played checked (`sim.engine.checking`): their columns, or AssertionError
    naming the game, decision, seat and move of the first fault."""
    from sim import engine

    try:
        with engine.checking():
            return game.play_chunk(rules, seats, 0, n, run_seed)
    except engine.MoveFault as fault:
        raise AssertionError(f"{game.name}: {fault.text(game.seat_names(rules))}") from None


def games_alone(t, run_seed, first_game, n_games, bot_code, bot_par, swap):
    """(result rows, swapped) of games first_game .. first_game + n_games - 1 through the engine's
    chunk driver, each alone (a chunk of one: a new position, no `reset`) and one decision at a
    time (not the game's `rollout`): what `engine.play_chunk` of the whole range must give."""
    from sim import engine

    rows = np.zeros((n_games, t.res_width), np.int64)
    swapped = np.zeros(n_games, np.bool_)
    for g in range(n_games):
        engine.play_chunk(t, np.uint64(run_seed), np.int64(first_game + g), np.int64(1), bot_code, bot_par, swap,
                          rows[g:g + 1], swapped[g:g + 1], by_rollout=False)
    return rows, swapped


def check_chunk_driver(t, run_seed, first_game, n_games, bot_code, bot_par, swap):
    """The engine's chunk driver plays each game of a range as `games_alone` does: the positions
    `reset` sets up in place and the games of one bot that `rollout` plays whole change nothing.
    A line-up of one bot is played both ways whatever the game's `rollout_bots` (the search's
    rollouts play every bot by `rollout`), but for its costly bots, which never play a rollout.
    Returns the result rows."""
    from sim import engine

    want, want_swapped = games_alone(t, run_seed, first_game, n_games, bot_code, bot_par, swap)
    ways = [None] + ([True] if engine.one_bot(bot_code, bot_par, swap, engine.costly_bots(type(t))) else [])
    for by_rollout in ways:
        rows = np.zeros((n_games, t.res_width), np.int64)
        swapped = np.zeros(n_games, np.bool_)
        engine.play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), bot_code, bot_par,
                          swap, rows, swapped, by_rollout=by_rollout)
        how = "by rollout" if by_rollout else "as played"
        for g in range(n_games):
            np.testing.assert_array_equal(rows[g], want[g], err_msg=f"game {first_game + g}: the chunk's row "
                                          f"({how}) differs from the game played alone")
        np.testing.assert_array_equal(swapped, want_swapped, err_msg=f"swapped ({how}) differs from the games alone")
    return rows


def replayed_positions(game: Game, rules, seats, game_index: int, run_seed: int):
    """(tables, [position before each decision ..., the final position]) of one game, replayed
    through the engine functions from its traced decisions; None for a game (or mode) whose rules
    are not engine functions."""
    from sim import engine
    from sim.engine.rng import game_seed

    got = game.engine_replay(rules, seats, game_index, run_seed)
    if got is None:
        return None
    t, rec = got
    seed = game_seed(np.uint64(run_seed), np.int64(game_index))
    pos, rng = engine.start_at(t, np.uint64(seed), np.int64(game_index))
    out = []
    for _seat, move, state in rec:
        if move == engine.SWAP_MOVE:
            continue
        out.append(engine.copy_of(t, pos))
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(t, pos, np.int64(move), rng)
    out.append(pos)
    return t, out


def check_copy_and_winner(game: Game, rules, seats, game_index: int, run_seed: int) -> None:
    """`copy_into` of every position of one game into a copy of another position of it gives the
    position `copy_position` gives (every field; where the game has no in-place copy, nothing),
    and `winner` at the game's end is the result row's (a game that ends by the turn cap has no
    winner to check: `winner` is asked of finished games only)."""
    from sim import engine

    got = replayed_positions(game, rules, seats, game_index, run_seed)
    if got is None:
        return
    t, positions = got
    dst = engine.copy_of(t, positions[0])
    for k, pos in enumerate(positions):
        if not engine.copied_into(t, dst, pos):
            break
        want = engine.copy_of(t, pos)
        for name, a, b in zip(pos._fields, dst, want, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=f"{game.name}: copy_into's {name} at decision {k}")
    check_rollout(game, rules, t, positions[::4])
    end = positions[-1]
    if engine.seat_to_move(t, end) < 0:
        w = engine.winner_of(t, end)
        assert w == engine.outcome(t, end, False)[engine.WINNER], f"{game.name}: winner {w} is not the result's"


def check_rollout(game: Game, rules, t, positions) -> None:
    """Where a game gives its own `rollout`: it leaves the position, the ended flag and the
    generator the default loop of to_move, bot_move and apply leaves (the search's playouts play
    the same games either way), for the game's random and greedy bots, to the end and cut off
    after 3 decisions."""
    from sim import engine
    from sim.engine.interface import implemented
    from sim.games.base import SeatBot

    if "rollout" not in implemented(type(t)):  # the default loop: nothing to compare
        return
    for bot in [b for b in game.bots if b.name in ("random", "greedy") and b.code >= 0]:
        params = game.bot_params(rules, bot)
        _, par = engine.bot_arrays([SeatBot(bot, params)])
        for k, pos in enumerate(positions):
            for cap in (1 << 30, 3):
                a, da, ra, b, db, rb = engine.rollouts_of(t, pos, np.int64(bot.code), par[0], np.uint64(k + 1),
                                                          np.int64(cap))
                where = f"{game.name}: rollout of {bot.name} from position {k}, cap {cap}"
                assert (da, ra) == (db, rb), f"{where}: ended/generator differ from the default loop"
                for name, x, y in zip(a._fields, a, b, strict=True):
                    np.testing.assert_array_equal(x, y, err_msg=f"{where}: {name}")


def check_draw(game: Game, trace, path: Path) -> None:
    """`Game.draw` writes a PNG picture of the traced game."""
    game.draw(trace, str(path))
    assert path.is_file() and path.stat().st_size > len(PNG_MAGIC), f"{game.name}: draw wrote no picture"
    with open(path, "rb") as f:
        assert f.read(len(PNG_MAGIC)) == PNG_MAGIC, f"{game.name}: draw did not write a PNG"


def check_parquet_round_trip(frame, run_dir: Path):
    """The runner's rows, written as a part and read back as a table: the same columns, dtypes and
    values. Returns the table as read (what reports and metrics see)."""
    from sim.runs import tables

    tables.write_part(run_dir / tables.GAMES_DIR / tables.part_name(0, 0), frame)
    back = tables.read_parts(tables.finished_parts(run_dir), run_dir)  # a bare part: no manifest
    assert list(back.columns) == list(frame.columns), "columns changed in the Parquet round trip"
    for c in frame.columns:
        assert back[c].dtype == frame[c].dtype, f"{c}: {frame[c].dtype} read back as {back[c].dtype}"
        np.testing.assert_array_equal(back[c].astype(object).to_numpy(),
                                      frame[c].astype(object).to_numpy(), err_msg=f"{c} changed")
    return back


def check_report_metrics(variant, df, seed: int = 0) -> None:
    """`report_metrics` on a stored table gives well-formed rows, and the metric table of the
    workflows (intervals, bootstrap replicates of the game's values) builds from them."""
    from sim.stats import metrics

    game = variant.game
    rows = game.report_metrics(df, variant.rules)
    assert isinstance(rows, list), f"{game.name}: report_metrics must return a list"
    seen = set()
    for row in rows:
        assert isinstance(row, dict) and isinstance(row.get("metric"), str), f"bad row {row!r}"
        assert row["metric"] not in seen, f"metric {row['metric']!r} reported twice"
        seen.add(row["metric"])
        if row.get("successes") is not None and row.get("n") is not None:
            k, m = row["successes"], row["n"]
            assert int(k) == k and int(m) == m and 0 <= k <= m, f"{row['metric']}: {k} of {m}"
        else:
            assert isinstance(row.get("value"), (int, float, np.number)), (
                f"{row['metric']}: neither successes and n nor a number as value")
    table = metrics.metric_table(df, variant, seed=seed)
    assert set(seen) <= set(table["metric"]), "a game metric is missing from the metric table"
    for r in table.to_dict("records"):
        if r["kind"] == "proportion" and r["n"]:
            eps = 1e-9
            assert -eps <= r["ci_low"] <= r["value"] + eps and r["value"] <= r["ci_high"] + eps <= 1 + 2 * eps, (
                f"{r['metric']}: interval [{r['ci_low']}, {r['ci_high']}] around {r['value']}")
        if r["kind"] == "value" and math.isfinite(r["value"]):
            assert not (math.isnan(r["ci_low"]) or math.isnan(r["ci_high"])), (
                f"{r['metric']}: no bootstrap replicate of the game's value")


def check_warm(game: Game) -> None:
    """`warm_parts` names distinct parts with positive compile estimates; warming each runs."""
    parts = [p for p, _ in game.warm_parts]
    assert parts and len(set(parts)) == len(parts), f"{game.name}: warm_parts {game.warm_parts!r}"
    assert all(isinstance(p, str) and s > 0 for p, s in game.warm_parts)
    for part in parts:
        game.warm(part)
