"""The size limits of issue 15 over the game packages: no function over 100 lines or 12
positional arguments (the measure of tests/function_sizes.py), except the one listed here. A new
function over a limit, or a listed one growing, fails; a listed one shrinking under the limit
should leave the list."""

from pathlib import Path

from function_sizes import sizes

ROOT = Path(__file__).resolve().parents[1]
LIMIT_LINES, LIMIT_ARGS = 100, 12
# (file under sim/games, function): (lines, arguments) today
KNOWN = {
    # inlined into `_join`, which hands it the scratch's rows once: taking the scratch itself per
    # joined value would count references on its arrays in Hexa-Trex's hottest loop
    ("hexatrex/join.py", "_join_store"): (33, 13),
}


def test_game_functions_within_limits():
    games = ROOT / "sim" / "games"
    over = {(path.relative_to(games).as_posix(), name): (n, k)
            for path, name, n, k in sizes(games) if n > LIMIT_LINES or k > LIMIT_ARGS}
    new = sorted(set(over) - set(KNOWN))
    assert not new, f"functions over {LIMIT_LINES} lines or {LIMIT_ARGS} arguments: {new}"
    grown = {key: (over[key], KNOWN[key]) for key in over if over[key] > KNOWN[key]}
    assert not grown, f"listed functions grew (now, then): {grown}"
    gone = sorted(set(KNOWN) - set(over))
    assert not gone, f"within the limits now, take them off KNOWN: {gone}"
