"""Replays of pie-rule games name the players as the outcome table does: the winner line, the last
move and the table row agree, and the move list shows the swap (sim/games/seating.py, sim/runs/replay.py).
A plug-in game's moves read as its `describe()` names them; a picture's footer wraps."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import sim
from sim.games import seating
from sim.runs import tables
from sim.runs.replay import add_legend, legend_lines, move_lines, replay, result_lines
from sim.runs.variants import load


def table_winner(variant: str, tmp_path: Path) -> tuple[str, bool]:
    """Game 0's winner (a player name or "draw") and `swapped`, as the run's table has them."""
    r = sim.run(variant, games=2, seed=0, jobs=1, out=tmp_path / "run")
    row = tables.read_table(r.path).set_index("game").loc[0]
    seats = load(variant).game.seat_names(load(variant).rules)
    w = int(row["winner"])
    return (seats[w] if w >= 0 else "draw"), bool(row["swapped"])


def replay_text(variant: str, tmp_path: Path) -> tuple[list[str], list[str], object]:
    trace = replay(variant, 0, 0, out=tmp_path / "game.png")
    return move_lines(trace), result_lines(trace, load(variant).game.end_reasons), trace


def last_mover(moves: list[str]) -> str:
    """The player named on the last numbered move line."""
    return re.match(r"\s*\d+\. ([A-Z])\b", moves[-1]).group(1)


@pytest.mark.parametrize("variant", ["hexflow/race_swap", "flags/swap", "hexflow/battle_swap"])
def test_the_replay_names_the_tables_winner_and_shows_the_swap(variant, tmp_path):
    winner, swapped = table_winner(variant, tmp_path)
    moves, result, trace = replay_text(variant, tmp_path)
    assert swapped and trace.data["swapped"]  # greedy swaps in game 0 of each
    assert result[0].startswith(f"winner: {winner}, the player who moved ")
    assert re.search(r"\(seat [AB] after the swap\)$", result[0])
    swaps = [m for m in moves if "swaps (pie rule)" in m]
    assert len(swaps) == 1 and "the players exchange seats" in swaps[0]
    assert not re.match(r"\s*\d", swaps[0])  # no move on the board: the numbers count turns
    numbered = [m for m in moves if re.match(r"\s*\d", m)]
    assert len(numbered) == len(trace.moves)
    # after the swap each player sits in the other's seat, and the lines say so
    after = moves[moves.index(swaps[0]) + 1]
    assert re.match(r"\s*\d+\. ([AB]) \(seat (?!\1)[AB]\) ", after)


def test_a_race_block_is_won_by_its_mover(tmp_path):
    winner, _ = table_winner("hexflow/race_swap", tmp_path)
    moves, result, trace = replay_text("hexflow/race_swap", tmp_path)
    assert "end reason: blocked" in result
    assert last_mover(moves) == winner
    # the seat the winner ended in is the seat of the last move
    seat = trace.moves[-1]["seat"]
    assert moves[-1].split(") ")[0].endswith(f"(seat {seat}") and result[0].endswith(f"(seat {seat} after the swap)")


def test_four_flags_last_action_names_the_same_winner(tmp_path):
    winner, _ = table_winner("flags/swap", tmp_path)
    moves, result, _ = replay_text("flags/swap", tmp_path)
    assert "end reason: flags" in result
    assert moves[-1].endswith(f"; {winner} wins")


def test_the_legend_reads_tile_codes_not_the_words_before_them(tmp_path):
    trace = replay("hexflow/race_swap", 0, 0)
    legend = legend_lines(trace)
    codes = dict(pair.split(" = ") for pair in legend[0].removeprefix("tile codes: ").split(", "))
    assert all(re.fullmatch(r"[A-Z][a-z0-9]*", c) for c in codes), codes
    assert codes.get("Yr") == "y_right" and "after" not in codes
    assert re.search(r"a \w+ tile at rotation \d \(\d x 60 degrees clockwise\), on \w+", legend[1])


def test_a_plug_in_replay_prints_the_games_own_move_names(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.hexgame")
    v = tmp_path / "hex4.toml"
    v.write_text('game = "hex"\ndescription = "Hex 4x4"\n[rules]\nsize = 4\n')
    png = tmp_path / "hex.png"
    trace = replay(str(v), 0, 0, out=png)
    moves = move_lines(trace)
    assert moves and all(re.fullmatch(r"\s*\d+\. [AB] [A-D][1-4]", m) for m in moves), moves
    assert result_lines(trace, ("connected",))[0] in ("winner: A", "winner: B")
    narrow_footer_fits(png)


def narrow_footer_fits(png: Path) -> None:
    """The picture's footer (drawn by add_legend) stays within its width: no dark pixel in the
    footer's rightmost 8 columns."""
    from PIL import Image

    with Image.open(png) as im:
        im = im.convert("L")
        w, h = im.size
        edge = im.crop((w - 8, h - 60, w, h))
        assert np.asarray(edge).min() > 200


def test_add_legend_wraps_long_lines_to_the_picture_width(tmp_path):
    from PIL import Image

    png = tmp_path / "narrow.png"
    Image.new("RGB", (300, 100), "white").save(png)
    long = "winner: B, the player who moved second at the start (seat A after the swap); " * 3
    add_legend(png, [long, "short"])
    with Image.open(png) as im:
        assert im.width == 300 and im.height > 100 + 12 + 20 * 5  # wrapped onto several lines
        footer = im.convert("L").crop((0, 100, 300, im.height))
        right = footer.crop((288, 0, 300, footer.height))
        assert np.asarray(right).min() > 200 and np.asarray(footer).min() < 100


def test_no_swap_keeps_seats_and_players_one_name():
    trace = replay("hexflow/race", 0, 0)
    assert seating.swap_index(trace) is None
    assert not any("seat" in m for m in move_lines(trace))
    assert re.fullmatch(r"winner: ([AB]|draw)", result_lines(trace, load("hexflow/race").game.end_reasons)[0])
