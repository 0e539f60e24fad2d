"""The size limits over all of `sim/`: no module over 800 lines, no function over 100 lines or 12
arguments (the measure of tests/function_sizes.py), except the ones listed here with their
reason. A new module or function over a limit, or a listed one growing, fails; a listed one
shrinking under the limit should leave the list."""

from pathlib import Path

from function_sizes import sizes

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "sim"
LIMIT_LINES, LIMIT_ARGS = 100, 12
# (file under sim, function): (lines, arguments) today
KNOWN = {
    # commands and public functions: one argument per documented option (`hexsim ladder --help`,
    # `sim.ladder(...)`); their signatures are the API
    ("cli/workflows.py", "compare"): (58, 16),
    ("cli/workflows.py", "check"): (40, 13),
    ("cli/workflows.py", "ladder"): (41, 17),
    ("workflows/ladder.py", "ladder"): (95, 19),
    ("workflows/tune.py", "tune"): (36, 15),
}


def assert_within(over: dict, known: dict, what: str, limit: str) -> None:
    """Nothing over the limit but the listed, none of those grown, none listed that is under it."""
    new = sorted(set(over) - set(known))
    assert not new, f"{what} over {limit}: {new}"
    grown = {key: (over[key], known[key]) for key in over if over[key] > known[key]}
    assert not grown, f"listed {what} grew (now, then): {grown}"
    gone = sorted(set(known) - set(over))
    assert not gone, f"{what} within the limits now, take them off the list: {gone}"


def test_functions_within_limits():
    over = {(path.relative_to(SIM).as_posix(), name): (n, k)
            for path, name, n, k in sizes(SIM) if n > LIMIT_LINES or k > LIMIT_ARGS}
    assert_within(over, KNOWN, "functions", f"{LIMIT_LINES} lines or {LIMIT_ARGS} arguments")


LIMIT_MODULE = 800
# (file under sim): lines today
KNOWN_MODULES: dict[str, int] = {}


def test_modules_within_limit():
    lines = {path.relative_to(SIM).as_posix(): len(path.read_text().splitlines()) for path in SIM.rglob("*.py")}
    assert_within({k: n for k, n in lines.items() if n > LIMIT_MODULE}, KNOWN_MODULES, "modules",
                  f"{LIMIT_MODULE} lines")
