"""HEXFLOW rows for the balance report (the report framework adds intervals and tests)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .board import SEATS
from .tiles import TILE_TYPES


def proportion_rows(out: list[dict[str, Any]], n: int):
    """prop(metric, mask): adds to out the share of the n games where mask holds, with its
    successes and n (the report's interval for a proportion)."""
    def prop(metric: str, mask) -> None:
        k = int(mask.sum())
        out.append({"metric": metric, "value": k / n, "successes": k, "n": n})
    return prop


def metrics(df, rules: dict[str, Any]) -> list[dict[str, Any]]:
    n = len(df)
    out: list[dict[str, Any]] = []
    if n == 0:
        return out

    prop = proportion_rows(out, n)

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


def tri_metrics(df, rules: dict[str, Any], seats: list[str]) -> list[dict[str, Any]]:
    """Tri-Board rows: win rate per corner (a shared win counts for every seat in it), shared
    wins, draws, tiebreaks, end reasons, Blocks / Wildcards / passes per seat."""
    n = len(df)
    out: list[dict[str, Any]] = []
    if n == 0:
        return out

    prop = proportion_rows(out, n)

    shared = df["hexflow_shared_mask"].to_numpy().astype(int)
    winner = df["winner"].to_numpy()
    for q, seat in enumerate(seats):
        won = (winner == q) | ((shared >> q) & 1).astype(bool)
        prop(f"corner {seat} wins (shared wins included)", won)
        prop(f"corner {seat} wins alone", (winner == q) & (shared == 0))
    prop("shared victory", shared > 0)
    prop("draw", df["winner"] == -1)
    prop("same-centre tiebreak used", df["hexflow_tiebreak"] > 0)
    for seat in seats:
        for what, label in (("blocks", "Blocks placed"), ("wildcards", "Wildcards placed"),
                            ("passes", "passes")):
            col = f"hexflow_{what}_{seat}"
            if col in df:
                out.append({"metric": f"{label} per game, {seat}", "value": float(df[col].mean())})
        out.append({"metric": f"hexes from {seat}'s lines to a centre hex at the end, mean",
                    "value": float(df[f"hexflow_reach_{seat}"].mean())})
    return out


def battle_metrics(df, rules: dict[str, Any], end_reasons) -> list[dict[str, Any]]:
    """Battle report rows: end reasons, displacements and captures, transit-blocked paths."""
    n = len(df)
    out: list[dict[str, Any]] = []
    if n == 0:
        return out

    prop = proportion_rows(out, n)

    prop("path completed", df["hexflow_path_completed"].astype(bool))
    # the runner's tables hold end reasons as names (categorical); play_chunk columns as codes
    reasons = df["end_reason"]
    by_name = not np.issubdtype(np.asarray(reasons).dtype, np.integer)
    for code, name in enumerate(end_reasons):
        if name in ("path", "opponent_path", "no_move_loss", "turn_cap", "stalemate_score"):
            prop(f"end: {name}", (reasons.astype(str) == name) if by_name else (reasons == code))
    disp = df["hexflow_battle_displacements_A"] + df["hexflow_battle_displacements_B"]
    prop("games with a displacement", disp > 0)
    for seat in SEATS:
        d = df[f"hexflow_battle_displacements_{seat}"]
        out.append({"metric": f"displacements used per game, {seat}", "value": float(d.mean())})
        out.append({"metric": f"capture points per game, {seat}",
                    "value": float(d.mean()) * rules["battle_capture_points"]})
        prop(f"transit-blocked path (joined line the transit rule refuses), {seat}",
             df[f"hexflow_battle_transit_blocked_{seat}"].astype(bool))
        out.append({"metric": f"stalemate chain length (tiles), {seat}, mean",
                    "value": float(df[f"hexflow_battle_chain_{seat}"].mean())})
    decided = df[df["winner"] >= 0]
    if len(decided):
        won = sum(int(decided[f"hexflow_battle_displacements_{s}"][decided["winner"] == i].sum())
                  for i, s in enumerate(SEATS))
        out.append({"metric": "displacements by the winner, share of all in decided games",
                    "value": won / max(1, int((decided["hexflow_battle_displacements_A"]
                                              + decided["hexflow_battle_displacements_B"]).sum()))})
    return out
