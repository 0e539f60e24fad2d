"""HEXATILE rows for the balance report: pattern frequencies and how often the chain rope decides."""

from __future__ import annotations

import numpy as np

PATTERNS = ("radian", "super_radian", "set", "arrow", "straight")
POINTS = {"radian": 2, "super_radian": 5, "set": 1, "arrow": 1, "straight": 1}


def _winner(totals: np.ndarray, bases: np.ndarray) -> np.ndarray:
    """Winner per game by (total, base), -1 when still tied (the kernel's rule)."""
    key = totals * 1000 + bases
    top = key.max(axis=1, keepdims=True)
    ties = (key == top).sum(axis=1)
    return np.where(ties == 1, key.argmax(axis=1), -1)


def metrics(game, df, rules) -> list[dict]:
    names = game.seat_names(rules)
    n = len(df)
    rows: list[dict] = []
    if n == 0:
        return rows
    for p in PATTERNS:
        pts = np.stack([df[f"hexatile_{p}_{s}"].to_numpy() for s in names], axis=1)
        rows.append(
            {
                "metric": f"games with a scored {p}",
                "value": float((pts.sum(1) > 0).mean()),
                "successes": int((pts.sum(1) > 0).sum()),
                "n": n,
            }
        )
        rows.append(
            {"metric": f"{p}s scored per game (all seats)", "value": float(pts.sum() / POINTS[p] / n)}
        )
    void = np.stack([df[f"hexatile_void_{s}"].to_numpy() for s in names], axis=1)
    rows.append(
        {
            "metric": "games where the Arrow rules voided points",
            "value": float((void.sum(1) > 0).mean()),
            "successes": int((void.sum(1) > 0).sum()),
            "n": n,
        }
    )
    for s in names:
        rows.append({"metric": f"mean chain rope, seat {s}", "value": float(df[f"hexatile_rope_{s}"].mean())})
        rows.append(
            {"metric": f"mean points without rope, seat {s}", "value": float(df[f"hexatile_base_{s}"].mean())}
        )
    full = game.end_reason_is(df, "tiles_placed")
    m = int(full.sum())
    if m:
        tot = np.stack([df[f"score_{s}"].to_numpy() for s in names], axis=1)[full]
        base = np.stack([df[f"hexatile_base_{s}"].to_numpy() for s in names], axis=1)[full]
        win = df["winner"].to_numpy()[full]
        by_base = _winner(base, np.zeros_like(base))
        decided = win != by_base
        rows.append(
            {
                "metric": "chain rope changes the winner (vs points without rope)",
                "value": float(decided.mean()),
                "successes": int(decided.sum()),
                "n": m,
            }
        )
        top = tot.max(axis=1, keepdims=True)
        tied = (tot == top).sum(axis=1) > 1
        rows.append(
            {
                "metric": "top total tied (tie-break by points without rope used)",
                "value": float(tied.mean()),
                "successes": int(tied.sum()),
                "n": m,
            }
        )
    if rules.get("radian_wins"):
        early = int((~full).sum())
        rows.append(
            {"metric": "games won by a Radian at once", "value": early / n, "successes": early, "n": n}
        )
    return rows
