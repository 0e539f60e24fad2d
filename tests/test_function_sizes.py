"""The size limits over all of `sim/`: no function over 100 lines or 12 arguments (the measure
of tests/function_sizes.py), except the ones listed here with their reason. A new function over
a limit, or a listed one growing, fails; a listed one shrinking under the limit should leave
the list."""

from pathlib import Path

from function_sizes import sizes

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "sim"
LIMIT_LINES, LIMIT_ARGS = 100, 12
# (file under sim, function): (lines, arguments) today
KNOWN = {
    # inlined into `_join`, which hands it the scratch's rows once: taking the scratch itself per
    # joined value would count references on its arrays in Hexa-Trex's hottest loop
    ("games/hexatrex/join.py", "_join_store"): (33, 13),
    # compiled drivers: numba entries take arrays and scalars, not an options object
    ("engine.py", "play_game"): (81, 13),
    ("engine.py", "_play_chunk"): (20, 13),
    # commands and public functions: one argument per documented option (`hexsim ladder --help`,
    # `sim.ladder(...)`); their signatures are the API
    ("cli_workflows.py", "compare"): (58, 16),
    ("cli_workflows.py", "check"): (40, 13),
    ("cli_workflows.py", "ladder"): (41, 17),
    ("workflows/ladder.py", "ladder"): (95, 19),
    ("workflows/tune.py", "tune"): (36, 15),
}


def test_functions_within_limits():
    over = {(path.relative_to(SIM).as_posix(), name): (n, k)
            for path, name, n, k in sizes(SIM) if n > LIMIT_LINES or k > LIMIT_ARGS}
    new = sorted(set(over) - set(KNOWN))
    assert not new, f"functions over {LIMIT_LINES} lines or {LIMIT_ARGS} arguments: {new}"
    grown = {key: (over[key], KNOWN[key]) for key in over if over[key] > KNOWN[key]}
    assert not grown, f"listed functions grew (now, then): {grown}"
    gone = sorted(set(KNOWN) - set(over))
    assert not gone, f"within the limits now, take them off KNOWN: {gone}"
