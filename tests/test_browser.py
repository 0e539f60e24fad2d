"""Every report kind rendered in headless Chromium at 1400 px: no horizontal overflow, every image
loaded, the answer (verdict table, headline table) within the first screen; the balance report of
many variants answers within the first 1,400 px (verdict table and its forest plot) and stays
within a page-height budget per variant, folded as a reader first sees it.

Chromium is the Debian package `chromium` (`.ci/run` installs it). When it is missing the test
tries `apt-get install -y chromium` once; it skips, saying why, only if that is impossible."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sim.reports import balance as reporting
from sim.reports import verdict
from tests.test_report import make_run
from tests.test_report_answer import ModeGame  # the report's toy game with two modes

pytestmark = pytest.mark.slow  # renders report pages in headless Chromium (make test-fast leaves it out)

WIDTH, SCREEN = 1400, 1000
FIRST_SCREEN = 1400  # the make-run report's verdict table and forest plot end within this
PAGE_PER_VARIANT = 15_000 / 55  # the whole make-run report (55 shipped variants) under 15,000 px
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", "--disable-component-update", "--disable-sync"]
MEASURE = """<script>window.addEventListener('load', function () {
  var imgs = [].slice.call(document.images);
  function bottom(sel) { var e = document.querySelector(sel);
    return e ? e.getBoundingClientRect().bottom + window.scrollY : -1; }
  var out = {scrollWidth: document.documentElement.scrollWidth,
             clientWidth: document.documentElement.clientWidth,
             height: document.documentElement.scrollHeight, images: imgs.length,
             broken: imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                         .map(function (i) { return i.alt; }),
             verdict: bottom('table.verdict'), firstTable: bottom('table'),
             forest: Math.max.apply(null, [-1].concat([].slice.call(
               document.querySelectorAll('svg.forest')).map(function (e) {
                 return e.getBoundingClientRect().bottom + window.scrollY; }))),
             wideTables: [].slice.call(document.querySelectorAll('table')).filter(function (t) {
               return t.scrollWidth > t.clientWidth + 1; }).length};
  var pre = document.createElement('pre'); pre.id = 'measure';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});</script>"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="module")
def chromium():
    path = find_chromium()
    if path:
        return path
    why = "apt-get is not available"
    if shutil.which("apt-get"):
        if hasattr(os, "geteuid") and os.geteuid() != 0:
            why = "not root, so apt-get cannot install it"
        else:
            env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
            res = subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                                 capture_output=True, text=True, timeout=900)
            if res.returncode != 0:  # the package lists may be missing on a fresh machine
                subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
                res = subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env,
                                     capture_output=True, text=True, timeout=900)
            path = find_chromium()
            if path:
                return path
            why = f"apt-get install -y chromium failed: {res.stderr.strip()[-300:]}"
    pytest.skip(f"chromium is not installed and could not be installed ({why})")


def measure(chromium: str, page: Path, tmp_path: Path) -> dict:
    """Load `page` (a copy with a measuring script) at 1400 px and read back what it measured."""
    copy = page.with_name(page.stem + ".measure.html")
    copy.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    profile = tmp_path / f"profile-{page.stem}"
    res = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}",
                          f"--window-size={WIDTH},{SCREEN}", "--virtual-time-budget=15000",
                          "--dump-dom", copy.as_uri()], capture_output=True, text=True, timeout=180)
    copy.unlink()
    hit = re.search(r'<pre id="measure">([^<]*)</pre>', res.stdout)
    assert hit, f"chromium did not render {page}: {res.stderr[-500:]}"
    return json.loads(hit.group(1))


def check_page(m: dict, page: Path, answer: str, screen: int = SCREEN) -> None:
    assert m["scrollWidth"] <= m["clientWidth"], f"{page}: horizontal overflow {m}"
    assert m["wideTables"] == 0, f"{page}: a table is wider than the page and scrolls {m}"
    assert m["images"] >= 1 and not m["broken"], f"{page}: images not loaded {m}"
    assert 0 < m[answer] <= screen, f"{page}: the {answer} table is not within the first {screen} px {m}"


def many_runs(tmp_path: Path, n: int) -> list[Path]:
    """n toy variants with long names, every second one of the battle mode."""
    runs = []
    for i in range(n):
        path = tmp_path / f"run{i}"
        make_run(path, 400, seed=i, name=f"variant_with_a_long_name_{i:02d}",
                 p_win=(0.40 + 0.01 * (i % 25), 0.45 - 0.01 * (i % 25)), parts=1)
        if i % 2:
            m = json.loads((path / "manifest.json").read_text())
            m["variant"]["rules"] = {"mode": "battle"}
            (path / "manifest.json").write_text(json.dumps(m))
        runs.append(path)
    return runs


def test_report_with_many_variants_renders(chromium, tmp_path):
    # two modes: as many variants as the verdict table shows unfolded (its group rows count), so
    # the first-screen bound holds for every table the report does not fold (64 variants)
    runs = many_runs(tmp_path, verdict.VERDICT_ROWS - 2)
    res = reporting.build_report(runs, tmp_path / "out", game_lookup=lambda name: ModeGame())
    assert "more folded below the table" not in res.html.read_text()
    m = measure(chromium, res.html, tmp_path)
    check_page(m, res.html, "verdict", FIRST_SCREEN)
    # the answer within the first 1,400 px: the verdict table and every row of its forest plot
    assert 0 < m["forest"] <= m["verdict"] <= FIRST_SCREEN, m
    assert m["height"] < PAGE_PER_VARIANT * len(runs), m  # 17,450 px for 64 variants


def test_report_with_replays_renders(chromium, tmp_path):
    import sim

    r = sim.run("hexflow/race", 300, seed=2, jobs=1, out=tmp_path / "race", progress=False)
    res = reporting.build_report([r.path], tmp_path / "out")
    page = res.html.read_text()
    assert "hexsim replay hexflow/race --game" in page  # the example games and their commands
    m = measure(chromium, res.html, tmp_path)
    check_page(m, res.html, "verdict")
    assert m["images"] >= 4, m  # figures and replay pictures


def test_comparison_and_sweep_pages_render(chromium, variant_file, tmp_path):
    from sim.workflows.compare import compare
    from sim.workflows.sweep import sweep

    text = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n[seats]\nA = "random"\nB = "greedy"\n'
    a = variant_file("a.toml", text)
    b = variant_file("b.toml", text.replace("goal = 25", "goal = 30"))
    c = compare(str(a), str(b), games=300, jobs=1, out=tmp_path / "cmp")
    m = measure(chromium, c.files["html"], tmp_path)
    check_page(m, c.files["html"], "firstTable")
    one = sweep(str(a), {"rules.goal": [5, 25, 60]}, games=300, jobs=1, out=tmp_path / "sw1")
    two = sweep(str(a), {"rules.goal": [5, 25], "rules.sides": [4, 6]}, games=300, jobs=1,
                out=tmp_path / "sw2")
    for res in (one, two):
        m = measure(chromium, res.files["html"], tmp_path)
        check_page(m, res.files["html"], "firstTable")


def test_ladder_page_renders(chromium, variant_file, tmp_path):
    import sim

    text = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n[seats]\nA = "random"\nB = "greedy"\n'
    v = variant_file("a.toml", text)
    res = sim.ladder(str(v), ["random", "greedy"], games=60, seed=1, jobs=1, out=tmp_path / "lad",
                     n_boot=50)
    page = res.out / "ladder.html"
    m = measure(chromium, page, tmp_path)
    check_page(m, page, "firstTable")
