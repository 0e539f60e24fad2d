"""Pictures of a traced game: hexes with their card labels, unit stacks in each player's colour,
flags coloured by who holds them, and the move list."""

from __future__ import annotations

import math

from sim.games.base import Trace
from sim.games.flags import kernel as K
from sim.games.flags.geometry import FLAG_NAMES, board, hex_centre, layout_of
from sim.games.flags.position import deck_of
from sim.games.flags.trace import replay
from sim.games.seating import move_lines, mover, picture_note, players, winner_words

COLOURS = ("#2f6fd0", "#d0412f")  # A blue, B red (the card's colours)
LIGHT = ("#cfe0fa", "#f8d4cf")
MAX_BOARDS = 24  # every_move draws one board per turn, at most this many (the last ones)


def _board_axes(ax, pos, card_hex, names, min_hold, title, players=(0, 1)):
    """One board; `players`: seat -> the player in it (colours and letters follow the players)."""
    from matplotlib.patches import RegularPolygon

    b = board(pos.layout)
    label = {int(h): names[c] for c, h in enumerate(card_hex)}
    held = [pos.held(0, min_hold), pos.held(1, min_hold)]
    r = 0.5 / math.cos(math.pi / 6)
    for h in range(b.n_hex):
        x, y = hex_centre(h // b.cols, h % b.cols, pos.layout)
        if b.is_flag[h]:
            f = list(b.flag_hex).index(h)
            who = players[0] if f in held[0] else players[1] if f in held[1] else -1
            face = "#f2c94c" if who < 0 else COLOURS[who]
            ax.add_patch(RegularPolygon((x, y), 6, radius=r, facecolor=face, edgecolor="black", lw=1.5))
            ax.text(x, y, FLAG_NAMES[f] + ("" if who < 0 else "\n" + "AB"[who]), ha="center",
                    va="center", fontsize=8, weight="bold")
            continue
        o = -1 if pos.owner[h] < 0 else players[pos.owner[h]]
        face = "white" if o < 0 else LIGHT[o]
        ax.add_patch(RegularPolygon((x, y), 6, radius=r, facecolor=face, edgecolor="#888", lw=0.6))
        ax.text(x, y + 0.25, label.get(h, ""), ha="center", va="center", fontsize=5, color="#555")
        if o >= 0:
            ax.text(x, y - 0.05, str(pos.units[h]), ha="center", va="center", fontsize=8,
                    weight="bold", color=COLOURS[o])
    ax.set_xlim(-0.7, b.cols + 0.2)
    ax.set_ylim(-(b.rows - 1) * 0.866 - 0.7, 0.7)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=8)


def draw_trace(trace: Trace, path: str, every_move: bool = False) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    card_hex = trace.data["card_hex"]
    names = deck_of(trace.rules).names
    m = trace.rules["min_hold_units"]
    if not every_move:
        last = None
        for pos, _ in replay(trace):
            last = pos
        fig = plt.figure(figsize=(11, 7))
        ax = fig.add_axes([0.0, 0.0, 0.6, 0.95])
        row = trace.row
        result = "draw (turn cap)" if row["winner"] < 0 else f"{winner_words(trace, True)} wins by flags"
        note = picture_note(trace)
        _board_axes(ax, last, card_hex, names, m, f"game {trace.game_index}: {result} after "
                    f"{row['turns']} turns  (A blue, B red)" + (f"\n{note}" if note else ""), players(trace))
        lines = move_lines(trace, 3, ("dealt", "draws"))
        tail = lines[-70:]
        fig.text(0.61, 0.97, ("...\n" if len(lines) > 70 else "") + "\n".join(tail), va="top",
                 fontsize=5, family="monospace")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return
    # one board per turn (after its last action), with that turn's moves
    snaps = []
    moves: list[str] = []
    for i, (pos, mv) in enumerate(replay(trace)):
        if mv["row"][1] in (K.K_DEAL, K.K_DRAW):
            continue
        moves.append(mv["move"])
        if mv["row"][1] == K.K_END:
            snaps.append((list(pos.owner), list(pos.units), mover(trace, i), moves, players(trace, i)))
            moves = []
    first_turn = max(0, len(snaps) - MAX_BOARDS)  # a long game: its last MAX_BOARDS turns
    snaps = snaps[first_turn:]
    cols = 4
    rows = max(1, math.ceil(len(snaps) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4.6 * rows), squeeze=False)
    from sim.games.flags.position import Position
    for i, ax in enumerate(axes.flat):
        if i >= len(snaps):
            ax.axis("off")
            continue
        owner, units, who, mvs, seated = snaps[i]
        p = Position(layout_of(trace.rules), owner, units)
        _board_axes(ax, p, card_hex, names, m, f"turn {first_turn + i + 1} ({who})", seated)
        ax.text(0.0, -0.02, "\n".join(mvs[:-1])[:400], transform=ax.transAxes, va="top",
                fontsize=4, family="monospace")
    fig.savefig(path, dpi=80)
    plt.close(fig)
