"""Pictures of a traced game: the tile cluster, and each turn's equations with their scores."""

from __future__ import annotations

import math

from sim.games.base import Trace
from sim.games.hexatrex.position import reading

SEAT_COLOURS = ["#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]


def _xy(cell):
    q, r = cell
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def _board(ax, tiles, owner, names, last=None, size=9):
    from matplotlib.collections import PolyCollection

    polys, faces, edges, widths = [], [], [], []
    corners = [(0.97 * math.cos(math.radians(90 + 60 * k)),
                0.97 * math.sin(math.radians(90 + 60 * k))) for k in range(6)]
    for cell, sym in tiles.items():
        x, y = _xy(cell)
        polys.append([(x + dx, y + dy) for dx, dy in corners])
        faces.append("#d62728" if sym == "=" else "#fdf6e3" if sym.isdigit() else "#d9e4f0")
        seat = owner.get(cell)
        edges.append(SEAT_COLOURS[names.index(seat) % 4] if seat else "black")
        widths.append(3.0 if cell == last else 1.2)
        ax.text(x, y, sym, ha="center", va="center", fontsize=size,
                color="white" if sym == "=" else "black", weight="bold")
    ax.add_collection(PolyCollection(polys, facecolors=faces, edgecolors=edges,
                                     linewidths=widths))
    xs = [_xy(c)[0] for c in tiles] or [0]
    ys = [_xy(c)[1] for c in tiles] or [0]
    ax.set_xlim(min(xs) - 1.5, max(xs) + 1.5)
    ax.set_ylim(min(ys) - 1.5, max(ys) + 1.5)
    ax.set_aspect("equal")
    ax.axis("off")


def _placements(trace: Trace) -> list[dict]:
    """The moves that place a tile (not the pie rule's swap)."""
    return [mv for mv in trace.moves if not mv.get("swap")]


def _turn_lines(trace: Trace, tiles_after):
    moves = _placements(trace)
    lines = []
    for t, mv in enumerate(moves):
        head = f"{t + 1:2d}. {mv['seat']} {mv['move']}  +{mv['score']}"
        eqs = []
        for e in mv["equations"]:
            text = e.get("text") or reading([tiles_after[t][c] for c in e["cells"]], trace.rules)
            eqs.append(f"{(text or '?').replace(' ', '')} ({e['tiles']})")
        if eqs:
            shown = "; ".join(eqs[:4]) + (f"; ... {len(eqs) - 4} more" if len(eqs) > 4 else "")
            head += "   " + shown
        lines.append(head)
    return lines


def draw_trace(trace: Trace, path: str, every_move: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = trace.seat_names
    moves = _placements(trace)
    tiles = {(0, 0): "="}
    owner: dict = {}
    snapshots = []
    for mv in moves:
        tiles[mv["cell"]] = mv["tile"]
        owner[mv["cell"]] = mv["seat"]
        snapshots.append((dict(tiles), dict(owner), mv["cell"]))
    lines = _turn_lines(trace, [s[0] for s in snapshots])
    result = ", ".join(f"{s} {trace.row[f'score_{s}']}" for s in names)
    win = trace.row["winner"]
    title = (f"Hexa-Trex game {trace.game_index} (seed {trace.run_seed}): {result}; "
             f"winner {names[win] if win >= 0 else 'draw'}"
             f"{' (pie rule: the players swapped seats after turn 1)' if trace.data.get('swapped') else ''}")
    if every_move:
        n = len(snapshots)
        cols = min(9, n)
        rows = math.ceil(n / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols, 2.3 * rows), squeeze=False)
        for i, ax in enumerate(axes.flat):
            if i >= n:
                ax.axis("off")
                continue
            t_tiles, t_owner, last = snapshots[i]
            _board(ax, t_tiles, t_owner, names, last, size=5)
            mv = moves[i]
            ax.set_title(f"{i + 1}. {mv['seat']} {mv['tile']} +{mv['score']}", fontsize=7)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
    else:
        scoring = [ln for ln, mv in zip(lines, moves, strict=True) if mv["score"] > 0]
        fig = plt.figure(figsize=(17, 9.5))
        ax = fig.add_axes([0.0, 0.03, 0.5, 0.9])
        _board(ax, snapshots[-1][0] if snapshots else tiles, owner, names)
        for i, s in enumerate(names):
            ax.text(0.02, 0.98 - 0.04 * i, f"seat {s}: {trace.row[f'score_{s}']} points",
                    transform=ax.transAxes, color=SEAT_COLOURS[i], fontsize=11, va="top")
        tx = fig.add_axes([0.51, 0.02, 0.48, 0.92])
        tx.axis("off")
        shown = scoring[:60]
        if len(scoring) > 60:
            shown.append(f"... {len(scoring) - 60} more scoring turns")
        tx.text(0, 1, "Scoring turns (equation as read, 6->9 and +->x where used; tiles):\n" +
                "\n".join(shown), va="top", ha="left", family="monospace", fontsize=7)
        fig.suptitle(title, fontsize=12)
    fig.savefig(path, dpi=60 if every_move else 90)
    plt.close(fig)
