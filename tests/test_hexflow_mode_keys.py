"""HEXFLOW refuses rule keys its chosen mode does not play by: a Race variant setting
battle_tokens would get another variant hash for the very same games."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import VariantError
from sim.games.hexflow import GAME
from sim.games.hexflow.game import MODE_PARAMS
from sim.testing import seats_for

NAMES = [p.name for p in GAME.params]


def _other_value(name: str):
    """A valid value of the parameter other than its default."""
    p = GAME.param(name)
    if p.kind == "bool":
        return not p.default
    if p.choices is not None:
        return next(c for c in p.choices if c != p.default)
    if p.kind == "int":
        return p.default + 1 if p.high is None or p.default + 1 <= p.high else p.default - 1
    if name == "tiles":
        return {"block": {"count": 1}}
    if p.kind == "table":
        return {k: v + 1 for k, v in p.default.items()}
    raise AssertionError(name)


# swap in the 3-player tri is refused before the mode check ("swap = true needs 2 players",
# tests/test_hexflow_race_rules_data.py)
UNUSED = [(mode, name) for mode in MODE_PARAMS for name in NAMES
          if name not in MODE_PARAMS[mode] and name != "dot_list" and (mode, name) != ("tri", "swap")]


def test_every_parameter_is_played_by_some_mode():
    assert set(MODE_PARAMS) == set(GAME.param("mode").choices)
    for mode, used in MODE_PARAMS.items():
        assert set(used) <= set(NAMES), f"{mode}: {set(used) - set(NAMES)}"
    assert set(NAMES) == {n for used in MODE_PARAMS.values() for n in used}


@pytest.mark.parametrize("mode, name", UNUSED)
def test_key_of_another_mode_is_refused(mode, name):
    with pytest.raises(VariantError) as e:
        GAME.resolve_rules({"mode": mode, name: _other_value(name)}, "v.toml")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"v.toml: [rules] {name} = ") and f"does not apply to mode {mode!r}" in msg
    # its default is no setting at all: the same variant hash, accepted
    GAME.resolve_rules({"mode": mode, name: GAME.param(name).default}, "v.toml")


# the defaults, and a set-up where passes, stalemates and no-move losses are common (a hand of one
# tile and never-placeable Blocks), so that keys deciding those would show if a mode read them
SETUPS = {"defaults": {}, "passes": {"block_placement": "connected", "hand_size": 1}}


@pytest.mark.parametrize("setup", list(SETUPS))
@pytest.mark.parametrize("mode", list(MODE_PARAMS))
def test_refused_keys_do_not_change_the_games(mode, setup):
    """The reading of the kernels checked by playing: with the validation bypassed, every key the
    mode does not use, set off its default, gives the same columns (greedy and random seats)."""
    base = GAME.resolve_rules({"mode": mode, **SETUPS[setup]}, "t")
    bots = ["greedy", "random", "greedy"][: len(GAME.seat_names(base))]
    seats = seats_for(GAME, base, bots)
    want = GAME.play_chunk(base, seats, 0, 12, 77)
    for m, name in UNUSED:
        if m == mode:
            rules = {**base, name: _other_value(name)}
            got = GAME.play_chunk(rules, seats, 0, 12, 77)
            for k, col in want.items():
                np.testing.assert_array_equal(col, got[k], err_msg=f"{mode}: {name} changes {k}")


def test_cli_refuses_a_race_variant_with_battle_tokens(tmp_path):
    v = tmp_path / "race_tokens.toml"
    v.write_text('game = "hexflow"\nextends = "hexflow/race"\n[rules]\nbattle_tokens = 5\n')
    res = CliRunner().invoke(app, ["run", str(v), "--games", "5", "--jobs", "1",
                                   "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"hexsim: error: {v}: [rules] battle_tokens = 5 does not apply to mode 'race'")
    assert not (tmp_path / "r").exists()


def test_wildcard_block_applies_to_tri_only():
    GAME.resolve_rules({"mode": "tri", "wildcard_block": False}, "t")
    with pytest.raises(VariantError, match="wildcard_block = False does not apply to mode 'tri2p'"):
        GAME.resolve_rules({"mode": "tri2p", "wildcard_block": False}, "t")
