"""Seeds of the workflows' runs (a ladder's pairings, a tune's stages, a sample of decisions),
derived from the workflow's seed and labels. Kept out of sim/engine/rng.py: that module is part of the
rules code that ties a run folder and a baseline to the kernels that played it."""

from __future__ import annotations

import hashlib
from typing import Any


def derived_seed(seed: int, *parts: Any) -> int:
    """A 63-bit run seed from the workflow's seed and labels (SHA-256 of the parts): labels, not
    positions, so adding a rung or a trial leaves the other runs' games as they were."""
    text = "|".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
