"""Game-specific rows of the balance report: how games end, time to first flag, flags held."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.games.base import end_reason_mask


def metrics(df, rules: dict[str, Any], end_reasons) -> list[dict[str, Any]]:
    n = len(df)
    rows: list[dict[str, Any]] = []
    if n == 0:
        return rows
    by_flags = end_reason_mask(df, end_reasons, "flags")
    flags = int(by_flags.sum())
    cap = int(end_reason_mask(df, end_reasons, "turn_cap").sum())
    rows.append({"metric": "ends by holding flags", "value": flags / n, "successes": flags, "n": n})
    rows.append({"metric": f"ends at the turn cap ({rules['max_turns']} turns, a draw)",
                 "value": cap / n, "successes": cap, "n": n})
    won = df[by_flags]
    if len(won):
        rows.append({"metric": "turns of games won by flags (median)",
                     "value": float(np.median(won["turns"]))})
    claims = int(df["flags_claims"].sum())
    broken = int(df["flags_claims_broken"].sum())
    if claims:
        rows.append({"metric": "claims (3 flags held) broken in the opponent's next turn",
                     "value": broken / claims, "successes": broken, "n": claims})
    for seat in ("A", "B"):
        first = df[f"flags_first_flag_turn_{seat}"]
        got = first[first >= 0]
        rows.append({"metric": f"seat {seat} ever holds a flag", "value": len(got) / n,
                     "successes": int(len(got)), "n": n})
        if len(got):
            rows.append({"metric": f"seat {seat}: turn of first flag held (median)",
                         "value": float(np.median(got))})
        rows.append({"metric": f"seat {seat}: flags held at the end (mean)",
                     "value": float(df[f"flags_held_{seat}"].mean())})
        rows.append({"metric": f"seat {seat}: units on the board at the end (mean)",
                     "value": float(df[f"flags_units_{seat}"].mean())})
    rows.append({"metric": "combats per game (mean)", "value": float(df["flags_combats"].mean())})
    return rows
