"""Pictures of a HEXFLOW game (Race, Battle, the Tri modes): flat-topped hexes, tile lines, owners,
dots, the scored path, Battle's territories and displacements."""

from __future__ import annotations

import math
import textwrap

from sim.games.base import Trace
from sim.games.seating import move_lines, mover, picture_note, players, winner_words

from .battle import board_columns, start_corners, zone_letters, zone_of
from .battle_verify import BattlePosition, replay
from .board import BOARD, SEATS, corner_names_of
from .position import Position
from .tiles import BLOCK, TYPE_BY_NAME

# side s midpoint direction (degrees): T, TR, BR, B, BL, TL
_SIDE_ANGLE = (90, 30, -30, -90, -150, 150)
_FILL = {0: "#2b2b2b", 1: "#f4f1e8"}
_INK = {0: "#f4f1e8", 1: "#2b2b2b"}
_SEAT_COLOUR = {"A": "#1f5fbf", "B": "#c0392b"}


def _board(ax, pos: Position, path_hexes=(), title: str = "", small: bool = False,
           corner_names=None, players=(0, 1)) -> None:
    """One board; `players`: seat -> the player in it (after a pie-rule swap, letters and
    colours follow the players)."""
    from matplotlib.patches import PathPatch, RegularPolygon
    from matplotlib.path import Path

    r_mid = math.sqrt(3) / 2
    columns = getattr(pos, "columns", 9)  # Battle's position: the 9-column board
    board = getattr(pos, "board", BOARD)
    corner_names = corner_names or corner_names_of(columns)
    corner_owner = {board.hex_id(n): SEATS[players[SEATS.index(s)]] for s, ns in corner_names.items() for n in ns}
    on_path = {board.hex_id(h) if isinstance(h, str) else h for h in path_hexes}
    for h in range(board.size):
        x, y = board.centre[h]
        tile = pos.tiles.get(h)
        face = _FILL[players[tile[0]]] if tile else "#e8e2d0" if h not in corner_owner else "#d6e4f5" \
            if corner_owner[h] == "A" else "#f5dcd6"
        ax.add_patch(RegularPolygon((x, y), 6, radius=0.97, orientation=math.pi / 6,
                                    facecolor=face, edgecolor="#8a8577", linewidth=0.8))
        if h in on_path:  # the scored path, outlined above every tile
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.9, orientation=math.pi / 6,
                                        facecolor="none", edgecolor="#e67e22",
                                        linewidth=1.5 if small else 3.0, zorder=5))
        if h in corner_owner and not small:
            ax.text(x, y + 0.62, corner_owner[h], ha="center", va="center", fontsize=7,
                    color=_SEAT_COLOUR[corner_owner[h]], weight="bold")
        dots = pos.dots[h]
        for k in range(dots if not tile or not small else 0):
            a = 2 * math.pi * k / max(dots, 1)
            ax.plot(x + 0.28 * math.cos(a), y - 0.05 + 0.28 * math.sin(a), "o", ms=2.2,
                    color="#b8860b")
        if not tile:
            if not small:
                ax.text(x, y - 0.6, board.names[h], ha="center", va="center", fontsize=5,
                        color="#8a8577")
            continue
        seat, t, _ = tile
        ink = _INK[players[seat]]
        if t == BLOCK:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.45, orientation=math.pi / 6,
                                        facecolor="none", edgecolor=ink, linewidth=1.6))
            continue
        for m in pos.nets(h):
            sides = [s for s in range(6) if (m >> s) & 1]
            pts = [(x + r_mid * math.cos(math.radians(_SIDE_ANGLE[s])),
                    y + r_mid * math.sin(math.radians(_SIDE_ANGLE[s]))) for s in sides]
            if len(pts) == 2:  # a single line: a curve bent through the centre
                verts = [pts[0], (x, y), pts[1]]
                ax.add_patch(PathPatch(Path(verts, [Path.MOVETO, Path.CURVE3, Path.CURVE3]),
                                       facecolor="none", edgecolor=ink, linewidth=2.2))
            else:
                for px, py in pts:
                    ax.plot([x, px], [y, py], color=ink, linewidth=2.2, solid_capstyle="round")
                ax.plot(x, y, "o", ms=3, color=ink)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.set_xlim(-1.2, 1.5 * (columns - 1) + 1.2)
    ax.set_ylim(-math.sqrt(3) / 2 * 18 - 1.2, 1.2)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=7 if small else 10)


def _replay(trace: Trace):
    pos = Position(trace.rules, dots=trace.data["dots"])
    yield pos, None
    for mv in trace.moves:
        if mv["move"] != "pass":
            pos.place(mv["seat"], mv["hex"], TYPE_BY_NAME[mv["tile"]], mv["rotation"], check=False)
        yield pos, mv


def move_grid(plt, frames, draw_one, cell_height=2.9):
    """A figure of one small board per move, six to a row: draw_one(ax, k, frame) draws
    frames[k]; the grid's spare cells stay blank (every-move pictures of every mode)."""
    cols = 6
    rows = max(1, math.ceil(len(frames) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 2.4, rows * cell_height), squeeze=False)
    for k, ax in enumerate(axes.ravel()):
        if k < len(frames):
            draw_one(ax, k, frames[k])
        else:
            ax.axis("off")
    return fig


def move_list(trace: Trace, limit: int = 60) -> str:
    """The moves as numbered lines for a picture's side text (sim.games.seating: players named, the
    swap shown), the first `limit` of them."""
    lines = [textwrap.fill(line, 48, subsequent_indent=" " * 8) for line in move_lines(trace, 2)]
    return "\n".join(lines[:limit]) + ("\n..." if len(lines) > limit else "")


def headline(trace: Trace, mode: str) -> str:
    """A picture's first words: mode, game, the winner (a player, with the seat after a swap)."""
    from .rules import END_REASONS

    return (f"HEXFLOW {mode}, game {trace.game_index}: winner {winner_words(trace, True)}: "
            f"{END_REASONS[trace.row['end_reason']]}, {trace.row['turns']} turns")


def note(trace: Trace) -> str:
    """The pie rule's note on its own line under a title ("" without a swap)."""
    text = picture_note(trace)
    return f"\n{text}" if text else ""


def draw_trace(trace: Trace, path: str, every_move: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    row = trace.row
    head = f"{headline(trace, 'race')}, score A {row['score_A']} / B {row['score_B']}{note(trace)}"
    if every_move:
        frames = []
        for pos, mv in _replay(trace):
            if mv is not None:
                frames.append((Position(pos.rules, pos.dots), dict(pos.tiles), mv))

        def one(ax, k, frame):
            pos, tiles, mv = frame
            pos.tiles = tiles
            last = k == len(frames) - 1
            _board(ax, pos, trace.data["path"] if last else (), f"{k + 1}. {mover(trace, k)} {mv['move']}",
                   small=True, players=players(trace, k))

        fig = move_grid(plt, frames, one)
        fig.suptitle(head, fontsize=10)
    else:
        *_, (pos, _) = _replay(trace)  # the board after the last move
        fig = plt.figure(figsize=(11, 8))
        ax = fig.add_axes((0.0, 0.0, 0.68, 0.95))
        _board(ax, pos, trace.data["path"], head, players=players(trace))
        fig.text(0.70, 0.95, "moves (tile code + rotation, hex)\n\n" + move_list(trace), va="top",
                 family="monospace", fontsize=7)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- Tri-Board pictures ------------------------------------------------------------------------

_TRI_COLOUR = {"I": "#1f5fbf", "II": "#c0392b", "III": "#1e8449"}
_TRI_FILL = {"I": "#cfe0f7", "II": "#f5d3cd", "III": "#cdebd6"}


def _tri_board(ax, pos, title: str = "", small: bool = False) -> None:
    """The triangle turned 90 degrees anticlockwise (I on top, II bottom-left, III bottom-right):
    tiles in their owner's colour, corners and centre hexes marked, Wildcards starred."""
    from matplotlib.patches import PathPatch, RegularPolygon
    from matplotlib.path import Path

    r_mid = math.sqrt(3) / 2
    board = pos.board
    corner_of = {c: s for s, c in zip(pos.seats, pos.corner, strict=True)}

    def xy(px, py):  # turn 90 degrees anticlockwise
        return -py, px

    for h in range(board.size):
        x, y = xy(*board.centre[h])
        tile = pos.tiles.get(h)
        if h == pos.dead:
            face = "#777777"
        elif tile:
            face = _TRI_FILL[pos.seats[tile[0]]]
        elif h in pos.centres:
            face = "#f7e7a1"
        elif h in corner_of:
            face = _TRI_FILL[corner_of[h]]
        else:
            face = "#efeadb"
        ax.add_patch(RegularPolygon((x, y), 6, radius=0.97, orientation=0.0, facecolor=face,
                                    edgecolor="#d4a017" if h in pos.centres else "#8a8577",
                                    linewidth=2.0 if h in pos.centres else 0.7))
        if h in corner_of and not small:
            ax.text(x, y + 0.55, corner_of[h], ha="center", va="center", fontsize=7,
                    color=_TRI_COLOUR[corner_of[h]], weight="bold")
        dots = pos.dots[h]
        for k in range(dots if not tile else 0):
            a = 2 * math.pi * k / max(dots, 1)
            ax.plot(x + 0.3 * math.cos(a), y + 0.3 * math.sin(a), "o", ms=2.0, color="#b8860b")
        if not tile:
            if not small and h != pos.dead:
                ax.text(x, y - 0.55, board.names[h], ha="center", va="center", fontsize=4.5,
                        color="#8a8577")
            continue
        seat, t, _ = tile
        ink = _TRI_COLOUR[pos.seats[seat]]
        if h in pos.wild:
            ax.plot(x + 0.5, y + 0.5, "*", ms=5 if not small else 3, color="#333333")
        if t == BLOCK:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.45, orientation=0.0, facecolor="none",
                                        edgecolor=ink, linewidth=1.6))
            continue
        for m in pos.nets(h):
            sides = [s for s in range(6) if (m >> s) & 1]
            # side midpoints of the unturned hex, then turned with the board
            pts = [xy(board.centre[h][0] + r_mid * math.cos(math.radians(_SIDE_ANGLE[s])),
                      board.centre[h][1] + r_mid * math.sin(math.radians(_SIDE_ANGLE[s])))
                   for s in sides]
            if len(pts) == 2:
                ax.add_patch(PathPatch(Path([pts[0], (x, y), pts[1]],
                                            [Path.MOVETO, Path.CURVE3, Path.CURVE3]),
                                       facecolor="none", edgecolor=ink, linewidth=2.0))
            else:
                for px, py in pts:
                    ax.plot([x, px], [y, py], color=ink, linewidth=2.0, solid_capstyle="round")
                ax.plot(x, y, "o", ms=2.5, color=ink)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=7 if small else 10)


def draw_tri_trace(trace: Trace, path: str, every_move: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .position import TriPosition
    from .rules import END_REASONS

    row = trace.row
    seats = trace.seat_names
    win = [s for q, s in enumerate(seats) if (row["hexflow_shared_mask"] >> q) & 1] \
        or [winner_words(trace, True)]
    scores = " / ".join(f"{s} {row['score_' + s]}" for s in seats)
    head = (f"HEXFLOW {trace.rules['mode']}, game {trace.game_index}: winner {'+'.join(win)} "
            f"({END_REASONS[row['end_reason']]}), {row['turns']} turns, score {scores}{note(trace)}")

    def replay(limit):
        pos = TriPosition(trace.rules, dots=trace.data["dots"])
        for mv in trace.moves[:limit]:
            if mv["move"] != "pass":
                pos.place(mv["seat"], mv["hex"], TYPE_BY_NAME[mv["tile"]], mv["rotation"],
                          wildcard=mv["wildcard"], check=False)
        return pos

    if every_move:
        fig = move_grid(plt, trace.moves, lambda ax, k, mv: _tri_board(
            ax, replay(k + 1), f"{k + 1}. {mover(trace, k)} {mv['move']}", small=True), cell_height=2.6)
        fig.suptitle(head, fontsize=10)
    else:
        fig = plt.figure(figsize=(12, 8))
        ax = fig.add_axes((0.0, 0.0, 0.7, 0.93))
        _tri_board(ax, replay(len(trace.moves)), head)
        fig.text(0.72, 0.95, "moves (W= Wildcard declared as; tile code + rotation, hex)\n\n"
                 + move_list(trace, 70), va="top", family="monospace", fontsize=6.5)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- Battle pictures -------------------------------------------------------------------------
_PLAYER_TINT = ("#1f5fbf", "#c0392b")  # player A blue, B red
_TINT_NAME = ("blue", "red")


def _overlay(ax, pos: BattlePosition, captured_hexes, small: bool, players=(0, 1)) -> None:
    """Territory shading (A's columns blue, B's red: by the player in the seat, `players`) and
    rings on hexes where a tile was taken."""
    from matplotlib.patches import RegularPolygon

    cols = board_columns(pos.rules)
    for h in range(pos.board.size):
        x, y = pos.board.centre[h]
        zone = zone_of(h, cols)
        tint = None if zone == 1 else _PLAYER_TINT[players[zone // 2]]
        if tint:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.97, orientation=math.pi / 6,
                                        facecolor=tint, alpha=0.13, edgecolor="none", zorder=4))
        if h in captured_hexes:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.8, orientation=math.pi / 6,
                                        facecolor="none", edgecolor="#8e44ad", linestyle="--",
                                        linewidth=1.2 if small else 2.2, zorder=6))


def draw_battle(trace, path: str, every_move: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = board_columns(trace.rules)
    corner_names = start_corners(cols)
    row = trace.row
    seated = players(trace)  # seat -> its player at the end
    head = (f"{headline(trace, 'battle')},\n"  # two lines: one is wider than the board
            f"score A {row['score_A']} / B {row['score_B']}, displacements "
            f"A {row['hexflow_battle_displacements_A']} / B {row['hexflow_battle_displacements_B']}")
    frames = []
    taken: set[int] = set()
    for pos, mv in replay(trace):
        if mv is not None and mv["kind"] == "displace":
            taken.add(pos.board.hex_id(mv["hex"]))
        if mv is not None and every_move:
            frames.append((dict(pos.tiles), set(taken), mv, len(frames)))
    if every_move:

        def one(ax, k, frame):
            tiles, tk, mv, i = frame
            pos.tiles = tiles
            _board(ax, pos, (), f"{k + 1}. {mover(trace, i)} {mv['move']}", small=True,
                   corner_names=corner_names, players=players(trace, i))
            _overlay(ax, pos, tk, True, players(trace, i))

        fig = move_grid(plt, frames, one)
        fig.suptitle(head + note(trace), fontsize=9)
    else:
        fig = plt.figure(figsize=(11, 8))
        ax = fig.add_axes((0.0, 0.0, 0.68, 0.95))
        _board(ax, pos, (), head, corner_names=corner_names, players=seated)
        _overlay(ax, pos, taken, False, seated)
        za, zc, zb = zone_letters(cols)
        pa, pb = (SEATS[p] for p in seated)
        legend = (textwrap.fill(note(trace).strip(), 42) + "\n\n" if note(trace) else "") + (
            f"territory: {pa} {za} ({_TINT_NAME[seated[0]]}), contested {zc},\n{pb} {zb} "
            f"({_TINT_NAME[seated[1]]}); dashed purple ring =\na tile was displaced there\n\n")
        fig.text(0.70, 0.95, legend + "moves (tile code + rotation, hex)\n\n" + move_list(trace), va="top",
                 family="monospace", fontsize=7)
    fig.savefig(path, dpi=110)
    plt.close(fig)
