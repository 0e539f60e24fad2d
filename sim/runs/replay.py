"""Re-play games of a run from their seeds: one game drawn (`hexsim replay`), the games of a table
that match a condition (`hexsim games`), and the report's example pictures."""

from __future__ import annotations

import io
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.games import seating
from sim.games.base import Trace
from sim.games.seating import seat_index, swap_index, swap_text, winner_words
from sim.runs.runner import rotated
from sim.runs.variants import VARIANTS_DIR, load

SHOW_COLUMNS = ["game", "rotation", "winner", "end_reason", "turns", "first_seat"]


def replay(variant: str, game_index: int, seed: int = 0, rotation: int = 0,
           out: str | Path | None = None, every_move: bool = False, overrides=None) -> Trace:
    """The traced game `game_index` of a run with run seed `seed` (and seat rotation), drawn to
    `out` if given: the same game the run's table has in that row."""
    v = load(variant, overrides)
    if game_index < 0:
        raise UserError(f"--game {game_index}: must be >= 0")
    if not 0 <= rotation < len(v.seats):
        raise UserError(f"--rotation {rotation}: allowed 0..{len(v.seats) - 1}")
    seats = [b for _, b in rotated(v.seats, rotation)]
    trace = v.game.play_traced(v.rules, seats, game_index, seed)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        v.game.draw(trace, str(out), every_move)
        if str(out).lower().endswith(".png"):
            result = result_lines(trace, v.game.end_reasons)
            add_legend(Path(out), ["; ".join(r for r in result if not r.startswith("game columns"))]
                       + legend_lines(trace))
    return trace


# ---- the result and move list in words ----------------------------------------------------------

def result_lines(trace: Trace, end_reasons: tuple[str, ...] | list[str]) -> list[str]:
    """The outcome row with names: the winner (a player, as the table counts them: under the pie
    rule with the seat they won from), end reason, turns, every player's score, and the game's own
    columns."""
    row = dict(trace.row)
    seats = trace.seat_names
    del row["winner"]
    code = row.pop("end_reason")
    reason = end_reasons[int(code)] if isinstance(code, (int, np.integer)) and \
        0 <= int(code) < len(end_reasons) else str(code)
    first = int(row.pop("first_seat", -1))
    lines = [f"winner: {winner_words(trace)}", f"end reason: {reason}", f"turns: {row.pop('turns', '?')}"]
    if 0 <= first < len(seats):
        lines.append(f"first to move: {seats[first]}")
    k = swap_index(trace)
    if k is not None:
        lines.append(f"{swap_text(trace, k)}; scores and columns ending in a seat name count by "
                     f"player ({seats[0]}: the player who began in seat {seats[0]})")
    scores = [f"{s} {row.pop(f'score_{s}')}" for s in seats if f"score_{s}" in row]
    if scores:
        lines.append("scores: " + ", ".join(scores))
    if row:
        lines.append("game columns: " + ", ".join(f"{k}={v}" for k, v in row.items()))
    return lines


def move_lines(trace: Trace) -> list[str]:
    """Numbered moves, `N. PLAYER move` (the game's words for it), as the picture's move list
    numbers them; under the pie rule the swap between, and the seat after a player who changed it."""
    return seating.move_lines(trace)


def legend_lines(trace: Trace) -> list[str]:
    """What the move list's codes stand for, read off the moves themselves: each tile code (the
    letters a move starts with) and the tile it names, and one move read out in words; the players
    in the order they first moved."""
    codes: dict[str, str] = {}
    example = None
    for m in trace.moves:
        move, tile = str(m.get("move", "")), m.get("tile")
        head = re.match(r"(W=)?([A-Za-z][A-Za-z0-9]*?)([0-5]?) (\S+)$", move)
        if tile is None or not head or head.group(2).lower() == str(tile).lower():
            continue
        codes.setdefault(head.group(2), str(tile))
        example = example or head
    lines = []
    if codes:
        lines.append("tile codes: " + ", ".join(f"{c} = {t}" for c, t in sorted(codes.items())))
        lines.append(_move_in_words(example, codes))
        if any(str(m.get("move", "")).startswith("W=") for m in trace.moves):
            lines.append("W= marks a Wildcard declared as the tile that follows")
    # the seats in the order they first moved: the players' order at the start, before any swap
    order = list(dict.fromkeys(trace.seat_names[s] for s in (seat_index(trace, m.get("seat")) for m in trace.moves)
                               if s >= 0))
    if order:
        lines.append("play order at the start: " + ", ".join(order))
    return lines


def _move_in_words(m: re.Match, codes: dict[str, str]) -> str:
    """One tile move read out, e.g. "Yr5 a1: a y_right tile at rotation 5 (5 x 60 degrees clockwise),
    on a1"; the legend's reading of every move like it."""
    turned = f" at rotation {m.group(3)} ({m.group(3)} x 60 degrees clockwise)" if m.group(3) else ""
    wild = "a Wildcard played as " if m.group(1) else ""
    return f"{m.group(0)}: {wild}a {codes[m.group(2)]} tile{turned}, on {m.group(4)}"


def wrapped(lines: list[str], fits) -> list[str]:
    """`lines` broken at spaces so that each piece fits (`fits(text)`); continuations indented. A
    word too long on its own keeps a line to itself."""
    out = []
    for line in lines:
        words = line.split(" ")
        cur = words[0]
        for w in words[1:]:
            if fits(f"{cur} {w}"):
                cur = f"{cur} {w}"
            else:
                out.append(cur)
                cur = "    " + w
        out.append(cur)
    return out


def add_legend(path: Path, lines: list[str]) -> None:
    """Append a white band with `lines` (the result in words and the legend) under a picture,
    each wrapped to the picture's width."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=15)
    with Image.open(path) as im:
        im = im.convert("RGB")
    lines = wrapped(lines, lambda text: font.getlength(text) <= im.width - 24)
    out = Image.new("RGB", (im.width, im.height + 12 + 20 * len(lines)), "white")
    out.paste(im, (0, 0))
    draw = ImageDraw.Draw(out)
    for i, line in enumerate(lines):
        draw.text((12, im.height + 6 + 20 * i), line, fill=(30, 30, 30), font=font)
    out.save(path)


# ---- example games for the report ----------------------------------------------------------------

def variant_spec(manifest: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """What `hexsim replay` needs to load a run's variant: its file (or shipped name) and any
    overrides; refused when the file no longer holds the variant the run played."""
    v = manifest.get("variant", {})
    path, name = v.get("path"), v.get("name", "")
    overrides = v.get("overrides") or {}
    spec = None
    if path and Path(path).is_file():
        p = Path(path).resolve()
        spec = name if p.parent.parent == VARIANTS_DIR.resolve() and name else path
    elif name and (VARIANTS_DIR / f"{name}.toml").is_file():
        spec = name
    if spec is None:
        raise UserError(f"variant file {path or name!r} not found")
    loaded = load(spec, overrides or None)
    want = manifest.get("variant_hash") or v.get("hash")
    if want and loaded.hash != want:
        raise UserError(f"{spec} changed since the run (hash {loaded.hash}, the run's {want})")
    return spec, overrides


def replay_command(spec: str, game: int, seed: int, rotation: int, out: str) -> str:
    return (f"hexsim replay {spec} --game {game} --seed {seed}"
            + (f" --rotation {rotation}" if rotation else "") + f" --out {out}")


def shrink_png(path: Path, width: int = 640) -> bytes:
    """The picture at most `width` pixels wide, in a 96-colour palette (report pages stay small)."""
    from PIL import Image

    with Image.open(path) as im:
        im = im.convert("RGB")
        if im.width > width:
            im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
        buf = io.BytesIO()
        im.quantize(colors=96).save(buf, format="PNG", optimize=True)
        return buf.getvalue()


def draw_example(manifest: dict[str, Any], example: dict[str, Any], game: Any) -> dict[str, Any] | None:
    """Re-play one example game of a run and draw it: {"png": bytes, "command": str}; None when
    the game cannot replay or draw. The replayed game must end as the table says."""
    if game is None or not hasattr(game, "play_traced") or not hasattr(game, "draw"):
        return None
    spec, overrides = variant_spec(manifest)
    seed = int(manifest.get("seed", 0))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.png"
        trace = replay(spec, example["game"], seed, example["rotation"], path, overrides=overrides or None)
        if int(trace.row["turns"]) != example["turns"]:
            raise UserError(f"game {example['game']} replays to {trace.row['turns']} turns, the "
                            f"table says {example['turns']}")
        png = shrink_png(path)
    out = f"game{example['game']}.png"
    cmd = replay_command(spec, example["game"], seed, example["rotation"], out)
    if overrides:
        cmd += "  (with the run's overrides " + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"
    return {"png": png, "command": cmd}


# ---- `hexsim games`: the games of a table that match a condition ----------------------------------

@dataclass
class GamesResult:
    matches: pd.DataFrame  # matching rows, in table order
    total: int
    pictures: list[Path]
    commands: list[str]


def find_games(run_dir: str | Path, where: str | None = None, replay_first: int = 0,
               out: str | Path | None = None) -> GamesResult:
    """Rows of a run's table matching `where` (a pandas query over its columns, e.g.
    "end_reason == 'blocked' and turns <= 5"; `winner_seat` and `first_seat_name` hold seat
    names), and the first `replay_first` of them re-played and drawn into `out`."""
    from sim.runs import tables

    run_dir = Path(run_dir)
    manifest = tables.read_manifest(run_dir)
    df = tables.read_table(run_dir)
    seats = list(manifest.get("seat_names", []))
    names = np.array(seats + ["draw"], dtype=object)
    w = df["winner"].to_numpy().astype(np.int64)
    df["winner_seat"] = names[np.where((w >= 0) & (w < len(seats)), w, len(seats))]
    f = df["first_seat"].to_numpy().astype(np.int64)
    df["first_seat_name"] = names[np.where((f >= 0) & (f < len(seats)), f, len(seats))]
    df["end_reason"] = df["end_reason"].astype(str)
    total = len(df)
    if where:
        try:
            hit = df.query(where, engine="python")
        except Exception as e:  # noqa: BLE001 - any bad expression is the user's input
            cols = ", ".join(df.columns)
            raise UserError(f"--where {where!r}: {type(e).__name__}: {e}; columns: {cols}") from None
        if not isinstance(hit, pd.DataFrame) or len(hit.columns) != len(df.columns):
            raise UserError(f"--where {where!r}: not a condition on the rows")
    else:
        hit = df
    if replay_first < 0:
        raise UserError(f"--replay {replay_first}: must be >= 0")
    pictures, commands = [], []
    if replay_first:
        if out is None:
            raise UserError("--replay: give --out FOLDER for the pictures")
        spec, overrides = variant_spec(manifest)
        seed = int(manifest.get("seed", 0))
        tables.make_dir(Path(out))
        for r in hit.head(replay_first).itertuples():
            path = Path(out) / f"game{r.game}-r{r.rotation}.png"
            replay(spec, int(r.game), seed, int(r.rotation), path, overrides=overrides or None)
            pictures.append(path)
            commands.append(replay_command(spec, int(r.game), seed, int(r.rotation), str(path)))
    return GamesResult(hit, total, pictures, commands)
