"""Intervals as the pages print them: clipped to the range the metric can take, and a bootstrap
interval that collapsed to one value said so in words instead of printed as [x, x].

A Student-t or Wald interval knows nothing of a metric's range, so a share near 1 can get an
upper end above 1 (decisiveness [0.12, 1.04]); the true interval never leaves the range, so its
ends are clipped to it. Every page formats a bounded metric's interval through `text`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

SHARE = (0.0, 1.0)  # proportions, shares, Ludii's metrics
DIFFERENCE = (-1.0, 1.0)  # a difference of two shares
COUNT = (0.0, math.inf)  # turns, legal moves: never below 0
ANY = (-math.inf, math.inf)


def clip(low: float, high: float, bounds: tuple[float, float] = ANY) -> tuple[float, float]:
    """The interval's ends clipped to `bounds` (NaN stays NaN)."""
    lo, hi = bounds
    return float(np.clip(low, lo, hi)), float(np.clip(high, lo, hi))


def text(low: float, high: float, fmt: Callable[[float], str] = "{:g}".format,
         bounds: tuple[float, float] = ANY, empty: str = "", template: str = "[{}, {}]") -> str:
    """`[low, high]` (or `template`) with the ends clipped to `bounds` and formatted by `fmt`;
    `empty` when an end is not a number."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return empty
    lo, hi = clip(low, high, bounds)
    return template.format(fmt(lo), fmt(hi))


def share(low: float, high: float) -> str:
    """A share's interval in percent with one decimal, without the % signs: (56.3-57.3)."""
    return text(low, high, lambda x: f"{100 * x:.1f}", SHARE, template="({}-{})")


def points(low: float, high: float, digits: int = 1) -> str:
    """A difference of two shares in points: [-1.2, +3.4]."""
    return text(low, high, lambda x: f"{100 * x:+.{digits}f}", DIFFERENCE)


def collapsed(low: float, high: float, resolution: float = 0.5) -> bool:
    """A bootstrap interval narrower than the printed resolution: every replicate (nearly) the
    same, as when a bot won or lost every game of the pairings that place it."""
    return bool(np.isfinite(low) and np.isfinite(high) and high - low < resolution)


def elo_text(low: float, high: float, note: str = "", anchor: bool = False) -> str:
    """An Elo interval: `[low, high]`, or why there is none when the bootstrap collapsed (the
    anchor is 0 by definition; a bot that won or lost every decisive game of a pairing has no
    finite maximum-likelihood gap, so its rating is a bound set by the prior, not a precise value)."""
    if not collapsed(low, high):
        return text(low, high, "{:.0f}".format)
    if anchor:
        return "none (the anchor)"
    if "every decisive game" in note:
        return "unbounded (one-sided games)"
    return "none (every bootstrap replicate equal)"
