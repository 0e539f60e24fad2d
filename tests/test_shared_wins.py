"""Shared victories (HEXFLOW Tri-Board marks them in `hexflow_shared_mask`, bit q per sharing
seat; `winner` names only one of them) count as a win for every sharing seat in the outcome
metrics, as the game's own report rows count them. A synthetic table: no game is played."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.games.hexflow.report import tri_metrics
from sim.stats import metrics

SEATS = ["A", "B", "C"]


class _Game:
    name = "tri"
    end_reasons = ("centre", "stalemate")

    def report_metrics(self, df, rules):
        return []


class _Variant:
    game = _Game()
    seat_names = SEATS
    rules: dict = {}


def _table(n=3000, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    winner = rng.choice([-1, 0, 1, 2], n, p=[0.1, 0.3, 0.3, 0.3]).astype(np.int8)
    shared = np.zeros(n, np.int8)
    multi = (winner >= 0) & (rng.random(n) < 0.2)
    for i in np.flatnonzero(multi):
        other = (int(winner[i]) + int(rng.integers(1, 3))) % 3
        shared[i] = (1 << int(winner[i])) | (1 << other)
    df = pd.DataFrame({"winner": winner, "first_seat": rng.integers(0, 3, n).astype(np.int8),
                       "end_reason": np.where(winner >= 0, "centre", "stalemate"),
                       "turns": rng.integers(10, 40, n), "hexflow_shared_mask": shared,
                       "hexflow_tiebreak": np.zeros(n, np.int8), "seed": np.arange(n)})
    for s in SEATS:
        df[f"score_{s}"] = 0
        df[f"hexflow_reach_{s}"] = 0
    return df


def test_shared_victories_count_for_every_sharing_seat():
    df = _table()
    ms = {m.name: m for m in metrics.outcome_metrics(df, _Variant())}
    game_rows = {r["metric"]: r for r in tri_metrics(df, {}, SEATS)}
    shared = df["hexflow_shared_mask"].to_numpy().astype(int)
    for q, s in enumerate(SEATS):
        assert ms[f"win_rate_{s}"].successes == game_rows[f"corner {s} wins (shared wins included)"]["successes"]
        assert ms[f"win_rate_{s}"].successes > int((df["winner"] == q).sum())
    # the first mover wins a game it shares
    first = df["first_seat"].to_numpy()
    won = (df["winner"].to_numpy() == first) | ((shared >> first) & 1).astype(bool)
    assert ms["win_rate_first_mover"].successes == int(won.sum())
    dec = df["winner"].to_numpy() >= 0
    assert (ms["first_mover_share"].successes, ms["first_mover_share"].n) == (int(won[dec].sum()),
                                                                              int(dec.sum()))
    # seat rates now add up to more than the decisive share: shared games count once per seat
    total = sum(ms[f"win_rate_{s}"].value for s in SEATS)
    extra = np.maximum(np.bitwise_count(shared.astype(np.uint8)).astype(int) - 1, 0).sum()
    assert abs(total - (1 - ms["draw_rate"].value + extra / len(df))) < 1e-12


def test_tables_without_shared_wins_are_unchanged():
    df = _table().drop(columns="hexflow_shared_mask")
    ms = {m.name: m for m in metrics.outcome_metrics(df, _Variant())}
    for q, s in enumerate(SEATS):
        assert ms[f"win_rate_{s}"].successes == int((df["winner"] == q).sum())
