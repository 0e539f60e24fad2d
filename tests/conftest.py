import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def racedice():
    from sim import games
    from tests.fixtures.race_dice import GAME

    games.register(GAME)
    return GAME


@pytest.fixture
def variant_file(tmp_path, racedice):
    """Write a variant file; returns a function(name, text) -> path."""

    def write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.write_text(text)
        return p

    return write


COIN_TEXT = 'game = "coin"\ndescription = "biased coin"\n[rules]\nbias = 0.55\n'


@pytest.fixture(scope="session")
def coin():
    """The coin fixture game (tests/fixtures/coin.py: known answers), registered."""
    from sim import games
    from tests.fixtures.coin import GAME

    games.register(GAME)
    return GAME


@pytest.fixture
def coin_file(tmp_path, coin):
    p = tmp_path / "coin.toml"
    p.write_text(COIN_TEXT)
    return p
