"""Short views of the API's result objects, for a terminal and a notebook: `text` (a few lines:
what it is, where its files are, the headline numbers) and `html` (a small table of the headline
rows). The objects hold whole frames, runs and manifests; a dataclass's own repr printed all of
them (a Comparison: some 24,000 characters)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Any

MAX_ROWS = 10
MAX_LINE = 160


def text(title: str, lines: Iterable[str] = ()) -> str:
    """The title, then each non-empty line indented (each cut at MAX_LINE characters)."""
    cut = [s if len(s) <= MAX_LINE else s[: MAX_LINE - 3] + "..." for s in lines if s]
    return "\n".join([title, *(f"  {s}" for s in cut)])


def html(title: str, frame: Any = None, columns: Sequence[str] | None = None,
         max_rows: int = MAX_ROWS) -> str:
    """The title and the first `max_rows` rows of `frame` (only `columns`, those it has) as a
    small HTML table, numbers to 4 significant digits."""
    parts = [f"<p><b>{escape(title)}</b></p>"]
    if frame is not None and len(frame):
        shown = frame if columns is None else frame[[c for c in columns if c in frame.columns]]
        parts.append(shown.head(max_rows).to_html(index=False, border=0, na_rep="",
                                                  float_format=lambda x: f"{x:.4g}"))
        if len(frame) > max_rows:
            parts.append(f"<p>... {len(frame) - max_rows:,} more rows</p>")
    return "\n".join(parts)


def folder(files: dict[str, Path]) -> str:
    """'files: FOLDER' for the folder the written files share, or '' when nothing was written."""
    if not files:
        return ""
    return f"files: {Path(next(iter(files.values()))).parent}"


def names(items: Sequence[str], most: int = 5) -> str:
    """'a, b, c' or 'a, b, c, d, e and 3 more'."""
    items = list(items)
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(map(str, items[:most])) + more


def duration(seconds: float) -> str:
    """'40 s', '12 min', '2.5 h'."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
