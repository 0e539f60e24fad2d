"""Pictures: a game's board (tiles as coloured rhombi, scored patterns marked), the pattern
templates, and a sample final board for the rules page."""

from __future__ import annotations

import math
import os

from sim.games.hexatile import templates as TP
from sim.games.hexatile.geometry import U, centre, xy
from sim.games.hexatile.position import Position

FILL = {1: "#202020", 2: "#d0312d", 3: "#f2c21b"}
MARK = {"radian": "R", "super_radian": "SR", "set": "Se", "arrow": "A"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _draw_board(ax, pos: Position, title: str = "", marks: bool = True):
    from matplotlib.patches import Polygon

    for cell in pos.cells():
        a, b = centre(*cell)
        corners = [xy((a + u[0], b + u[1])) for u in U]
        if cell == pos.island:
            ax.add_patch(Polygon(corners, closed=True, fc="#8b1a1a", ec="#444", lw=0.8))
            cx, cy = xy((a, b))
            ax.text(cx, cy, "island", ha="center", va="center", fontsize=6, color="white")
        elif cell not in pos.tiles:
            ax.add_patch(Polygon(corners, closed=True, fc="#f4f1ea", ec="#bbb", lw=0.6))
    for r in pos.rhombi():
        a, b = centre(*r.cell)
        pts = [xy((a, b)), xy(r.tips[0]), xy(r.obtuse), xy(r.tips[1])]
        ax.add_patch(Polygon(pts, closed=True, fc=FILL[r.colour], ec="white", lw=0.7))
    if marks:
        rh = pos.rhombi()
        for p in pos.patterns():
            ec = (
                "#888"
                if p.void
                else ("#1f6fd0" if p.colour == 1 else "#0a8a3a" if p.colour == 2 else "#7a3fb0")
            )
            if p.kind == "straight":
                xs, ys = [], []
                for i in p.rhombi:
                    (x1, y1), (x2, y2) = xy(rh[i].tips[0]), xy(rh[i].tips[1])
                    xs += [x1, x2]
                    ys += [y1, y2]
                order = sorted(zip(xs, ys, strict=True))
                ax.plot(
                    [order[0][0], order[-1][0]],
                    [order[0][1], order[-1][1]],
                    color=ec,
                    lw=2.5,
                    ls=":" if p.void else "-",
                    alpha=0.9,
                )
            else:
                x, y = xy(p.point)
                ax.plot(x, y, "o", ms=13, mfc="white", mec=ec, mew=2)
                ax.text(x, y, MARK[p.kind], ha="center", va="center", fontsize=6, color=ec, weight="bold")
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=8)


def _fit(ax, pos: Position):
    cells = list(pos.tiles) + ([pos.island] if pos.island else [])
    if pos.rules["board"] == "standard":
        cells = pos.cells()
    xs = [xy(centre(*c))[0] for c in cells] or [0]
    ys = [xy(centre(*c))[1] for c in cells] or [0]
    ax.set_xlim(min(xs) - 1.3, max(xs) + 1.3)
    ax.set_ylim(min(ys) - 1.3, max(ys) + 1.3)


def _positions(trace):
    rules = trace.rules
    isl = trace.data.get("island")
    pos = Position.start(rules, island=tuple(isl) if isl is not None else None)
    out = []
    names = trace.seat_names
    for m in trace.moves:
        pos.apply(names.index(m["seat"]), tuple(m["cell"]), m["tile"], m["rotation"])
        snap = Position(rules, dict(pos.tiles), pos.island, list(pos.history))
        out.append(snap)
    return pos, out


def _score_text(trace) -> str:
    row = trace.row
    lines = []
    for s in trace.seat_names:
        parts = [
            f"{k} {row[f'hexatile_{k}_{s}']}"
            for k in ("radian", "super_radian", "set", "arrow", "straight")
            if row[f"hexatile_{k}_{s}"]
        ]
        lines.append(
            f"{s}: {row[f'score_{s}']} = "
            + (" + ".join(parts) or "0")
            + f" + rope {row[f'hexatile_rope_{s}']}"
            + (f" (void {row[f'hexatile_void_{s}']})" if row[f"hexatile_void_{s}"] else "")
        )
    w = row["winner"]
    lines.append("winner: " + (trace.seat_names[w] if w >= 0 else "draw"))
    return "\n".join(lines)


def draw_trace(game, trace, path, every_move=False):
    plt = _plt()
    final, snaps = _positions(trace)
    first = 1 if trace.rules["first_colour"] == "black" else 2
    colours = [TP.COLOUR_NAMES[c] for c in (first, 3 - first, 3)][: len(trace.seat_names)]
    legend = ", ".join(f"{s}={c}" for s, c in zip(trace.seat_names, colours, strict=True))
    moves = [f"{i + 1:2d}. {m['seat']} {m['move']}" for i, m in enumerate(trace.moves)]
    if every_move:
        n = len(snaps)
        cols = 5
        rows = math.ceil((n + 1) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(cols * 3.0, rows * 3.0))
        axes = axes.ravel()
        for i, snap in enumerate(snaps):
            _draw_board(axes[i], snap, moves[i], marks=True)
            _fit(axes[i], snap)
        axes[n].axis("off")
        axes[n].text(0, 1, _score_text(trace) + "\n" + legend, va="top", fontsize=7, family="monospace")
        for ax in axes[n + 1 :]:
            ax.axis("off")
    else:
        fig, (ax, tx) = plt.subplots(1, 2, figsize=(10, 6), gridspec_kw={"width_ratios": [3, 2]})
        _draw_board(ax, final, f"hexatile game {trace.game_index} (seed {trace.run_seed}); {legend}")
        _fit(ax, final)
        tx.axis("off")
        tx.text(
            0, 1, "\n".join(moves) + "\n\n" + _score_text(trace), va="top", fontsize=7, family="monospace"
        )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _sector_rhombus(p, s, obtuse=False):
    """Cartesian corners of a rhombus at point p: acute tip in sector s, or obtuse over s, s+1."""
    d = [(math.cos(math.radians(60 * k)), math.sin(math.radians(60 * k))) for k in range(8)]
    x, y = p
    if obtuse:
        return [
            (x, y),
            (x + d[s][0], y + d[s][1]),
            (x + d[s + 1][0], y + d[s + 1][1]),
            (x + d[s + 2][0], y + d[s + 2][1]),
        ]
    return [
        (x, y),
        (x + d[s][0], y + d[s][1]),
        (x + d[s][0] + d[s + 1][0], y + d[s][1] + d[s + 1][1]),
        (x + d[s + 1][0], y + d[s + 1][1]),
    ]


def draw_template(name: str, spec: dict, path: str) -> None:
    """One picture of a template as written in TEMPLATES (sector s = 60s..60s+60 degrees)."""
    from matplotlib.patches import Polygon

    plt = _plt()
    fig, ax = plt.subplots(figsize=(3.2, 3.4))
    if "line" in spec:
        # rhombi along one long axis, tip to tip
        for i in range(spec["line"]):
            tip = (i * math.sqrt(3), 0.0)
            pts = [
                tip,
                (tip[0] + math.sqrt(3) / 2, 0.5),
                (tip[0] + math.sqrt(3), 0.0),
                (tip[0] + math.sqrt(3) / 2, -0.5),
            ]
            ax.add_patch(Polygon(pts, closed=True, fc=FILL[1], ec="white", lw=1))
        for i in range(1, spec["line"]):
            ax.plot(i * math.sqrt(3), 0, "o", color="#1f6fd0", ms=4)
        ax.set_xlim(-0.3, spec["line"] * math.sqrt(3) + 0.3)
        ax.set_ylim(-1.2, 1.2)
    else:
        for s in range(6):  # faint outline of the six sectors
            ax.add_patch(
                Polygon(
                    _sector_rhombus((0, 0), s)[:2] + [_sector_rhombus((0, 0), s)[3]],
                    closed=True,
                    fc="none",
                    ec="#ddd",
                    lw=0.6,
                )
            )
        for s in spec.get("tips", ()):
            ax.add_patch(Polygon(_sector_rhombus((0, 0), s), closed=True, fc=FILL[1], ec="white", lw=1))
        for s in spec.get("neutral", ()):
            ax.add_patch(Polygon(_sector_rhombus((0, 0), s), closed=True, fc=FILL[3], ec="white", lw=1))
        obt = spec.get("obtuse", ())
        for s in obt[::2]:
            ax.add_patch(
                Polygon(_sector_rhombus((0, 0), s, obtuse=True), closed=True, fc=FILL[1], ec="white", lw=1)
            )
        ax.plot(0, 0, "o", color="#1f6fd0", ms=4)
        ax.set_xlim(-2.1, 2.1)
        ax.set_ylim(-2.1, 2.1)
    n_var = len(TP.closure(spec.get("tips", spec.get("obtuse", ())))) if "line" not in spec else 1
    ax.set_title(
        f"{name}: {spec['points']} pt"
        + (f"\n{n_var} rotations/mirrors" if "line" not in spec else "\nany of the 3 axis directions"),
        fontsize=9,
    )
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_rules(game, out_dir: str) -> list[str]:
    """A PNG per pattern template and one of a sample final board (greedy vs greedy)."""
    from sim.games.base import SeatBot

    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, spec in TP.TEMPLATES.items():
        path = os.path.join(out_dir, f"template_{name}.png")
        draw_template(name, spec, path)
        written.append(path)
    rules = game.resolve_rules({}, "rules")
    greedy = game.bot("greedy", "rules")
    seats = [SeatBot(greedy, {p.name: p.default for p in greedy.params}) for _ in game.seat_names(rules)]
    trace = game.play_traced(rules, seats, 0, 2024)
    path = os.path.join(out_dir, "sample_board.png")
    draw_trace(game, trace, path)
    written.append(path)
    return written


def draw_position(pos: Position, path: str, title: str = "") -> None:
    """A hand-made position (e.g. the card's worked example) with its patterns marked."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 6))
    _draw_board(ax, pos, title)
    _fit(ax, pos)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
