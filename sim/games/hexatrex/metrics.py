"""Hexa-Trex rows for the balance report: score spread, seat advantage, equation lengths."""

from __future__ import annotations

from typing import Any

import numpy as np


def metrics(df, rules: dict[str, Any], seats: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    n = len(df)
    if n == 0:
        return rows
    scores = np.stack([df[f"score_{s}"].to_numpy() for s in seats], axis=1).astype(float)
    ranked = np.sort(scores, axis=1)
    margin = ranked[:, -1] - ranked[:, -2]
    rows.append({"metric": "mean score (all seats)", "value": float(scores.mean())})
    rows.append({"metric": "score spread: mean (best - worst) per game",
                 "value": float((ranked[:, -1] - ranked[:, 0]).mean())})
    rows.append({"metric": "score spread: mean winning margin", "value": float(margin.mean())})
    rows.append({"metric": "score spread: std of scores within a game",
                 "value": float(scores.std(axis=1).mean())})
    winner = df["winner"].to_numpy()
    first = df["first_seat"].to_numpy()
    draws = int((winner < 0).sum())
    rows.append({"metric": "draws (tied top score)", "value": draws / n, "successes": draws,
                 "n": n})
    for i, s in enumerate(seats):
        wins = int((winner == i).sum())
        rows.append({"metric": f"seat {s} win rate", "value": wins / n, "successes": wins, "n": n})
        rows.append({"metric": f"seat {s} mean score", "value": float(scores[:, i].mean())})
    first_wins = int((winner == first).sum())
    rows.append({"metric": "first player win rate (seat advantage of moving first)",
                 "value": first_wins / n, "successes": first_wins, "n": n})
    for j in range(1, len(seats)):
        pos = (first + j) % len(seats)
        w = int((winner == pos).sum())
        rows.append({"metric": f"player moving {j + 1}. win rate", "value": w / n,
                     "successes": w, "n": n})
    eq = sum(df[f"hexatrex_equations_{s}"].to_numpy() for s in seats)
    rows.append({"metric": "equations per game", "value": float(eq.mean())})
    longest = np.max(np.stack([df[f"hexatrex_longest_{s}"].to_numpy() for s in seats]), axis=0)
    rows.append({"metric": "longest equation per game (tiles), mean",
                 "value": float(longest.mean())})
    zero = int((scores.sum(axis=1) == 0).sum())
    rows.append({"metric": "games where nobody scores", "value": zero / n, "successes": zero,
                 "n": n})
    hist = {k: int(df[f"hexatrex_eqlen_{k}"].sum())
            for k in range(3, rules["max_equation_tiles"] + 1) if f"hexatrex_eqlen_{k}" in df}
    total = sum(hist.values())
    for k, c in hist.items():
        rows.append({"metric": f"equations of {k} tiles (share of all equations)",
                     "value": c / total if total else 0.0, "successes": c, "n": total})
    return rows
