"""The documentation's cross-references resolve: every relative markdown link in README.md and
docs/, and every page of docs/ named in plain text (`docs/speed.md`), is a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# a docs page named in text; `docs/rules/<game>.md` and other patterns are not files
MENTION = re.compile(r"(?<![\w/.])(docs/[\w/.-]+\.md)")


def _relative_links(text: str) -> list[str]:
    return [u for u in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", u) and not u.startswith("#")]


def test_pages_found():
    assert (ROOT / "docs" / "architecture.md") in PAGES and len(PAGES) > 10


def test_relative_markdown_links_resolve():
    broken = []
    for page in PAGES:
        for url in _relative_links(page.read_text()):
            target = (page.parent / url.split("#")[0]).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(ROOT)}: {url}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_docs_pages_named_in_text_exist():
    missing = []
    for page in PAGES:
        for name in MENTION.findall(page.read_text()):
            if not (ROOT / name).exists():
                missing.append(f"{page.relative_to(ROOT)}: {name}")
    assert not missing, "pages named but missing:\n" + "\n".join(missing)


def test_the_checks_catch_a_broken_reference():
    text = "See [the guide](no-such-page.md) and docs/no-such-page.md, or [a site](https://example.org)."
    assert _relative_links(text) == ["no-such-page.md"]
    assert MENTION.findall(text) == ["docs/no-such-page.md"]
