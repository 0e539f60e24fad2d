"""HEXFLOW rows for the balance report (the report framework adds intervals and tests)."""

from __future__ import annotations

from typing import Any

from .tiles import TILE_TYPES


def metrics(df, rules: dict[str, Any]) -> list[dict[str, Any]]:
    n = len(df)
    out: list[dict[str, Any]] = []
    if n == 0:
        return out

    def prop(metric: str, mask) -> None:
        k = int(mask.sum())
        out.append({"metric": metric, "value": k / n, "successes": k, "n": n})

    prop("path completed", df["hexflow_path_completed"].astype(bool))
    for seat in ("A", "B"):
        out.append({"metric": f"passes per game, {seat}",
                    "value": float(df[f"hexflow_passes_{seat}"].mean())})
        out.append({"metric": f"Blocks placed per game, {seat}",
                    "value": float(df[f"hexflow_blocks_{seat}"].mean())})
    done = df[df["hexflow_path_completed"].astype(bool)]
    if len(done):
        out.append({"metric": "winning path length (hexes), mean",
                    "value": float(done["hexflow_path_len"].mean())})
        k = int((done["hexflow_path_dot_hexes"] > 0).sum())
        out.append({"metric": "completed paths crossing a dot hex", "value": k / len(done),
                    "successes": k, "n": len(done)})
        out.append({"metric": "dots on winning path, mean",
                    "value": float(done["hexflow_path_dots"].mean())})
    # tile use by type, winners against losers (decided games only)
    decided = df[df["winner"] >= 0]
    if len(decided):
        for t in TILE_TYPES:
            won = lost = 0.0
            for seat_i, seat in enumerate(("A", "B")):
                col = decided[f"hexflow_tiles_{seat}_{t.name}"]
                won += float(col[decided["winner"] == seat_i].sum())
                lost += float(col[decided["winner"] != seat_i].sum())
            out.append({"metric": f"{t.name} placed per game, winner - loser",
                        "value": (won - lost) / len(decided)})
    return out
