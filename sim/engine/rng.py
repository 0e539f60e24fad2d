"""Counter-based seeding and a tiny compiled generator shared by every game kernel.

Each game's generator is seeded from (run seed, game index) alone, so a game's outcome never
depends on chunk size, worker count or backend. The generator state is a length-1 uint64 array
(numba-friendly, passed by reference); SplitMix64 is small, fast and statistically adequate for
move sampling (it passes BigCrush when used as a stream).
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import entry, kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel
def mix64(z):
    """SplitMix64 finaliser: a bijective 64-bit hash."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@entry
def game_seed(run_seed, game_index):
    """The seed of game `game_index` of a run: a hash of both numbers, nothing else."""
    return mix64(mix64(np.uint64(run_seed) + _GOLDEN) ^ (np.uint64(game_index) * _M2 + _GOLDEN))


@entry
def new_state(seed):
    """Generator state (uint64[1]) for one game. From Python, pass np.uint64(seed): a plain
    int above 2**63 does not fit numba's default int64."""
    s = np.empty(1, dtype=np.uint64)
    s[0] = np.uint64(seed)
    return s


@kernel
def next_u64(state):
    state[0] += _GOLDEN
    return mix64(state[0])


@kernel
def below(state, n):
    """Uniform integer in [0, n) (n >= 1), by Lemire-style rejection-free multiply-shift.

    The bias of the 64x32 multiply-shift is below 2**-32 for n < 2**32: negligible for games.
    """
    r = next_u64(state) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@kernel
def uniform(state):
    """Float in [0, 1)."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def shuffle(state, arr):
    """In-place Fisher-Yates shuffle of a 1-d array."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = below(state, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


def seeds_for(run_seed: int, first_game: int, n_games: int) -> np.ndarray:
    """The uint64 seeds of games first_game .. first_game + n_games - 1 (for the table)."""
    return _seeds(np.uint64(run_seed), np.int64(first_game), np.int64(n_games))


@entry
def _seeds(run_seed, first_game, n_games):
    out = np.empty(n_games, dtype=np.uint64)
    for i in range(n_games):
        out[i] = game_seed(run_seed, first_game + i)
    return out
