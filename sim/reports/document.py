"""The document library of every page hexsim writes: blocks (headings, paragraphs, tables,
figures, folded sections) rendered once to Markdown and to a self-contained HTML file, and the
number formats the pages share (percentages, intervals, p-values)."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import stats
from sim.stats import intervals


@dataclass
class Group:
    """A group header row inside a table (game and mode)."""

    text: str


@dataclass
class Raw:
    """A table cell given as HTML (e.g. an inline SVG), with its Markdown text."""

    html: str
    md: str


CSS = ("body{font-family:system-ui,sans-serif;font-size:14px;max-width:1320px;margin:1em auto;"
       "padding:0 1em;color:#222}h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.3em;margin:1.1em 0 .4em;"
       "border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:.9em 0 .3em}p,li{max-width:1100px;"
       "line-height:1.35}p{margin:.4em 0}table{border-collapse:collapse;margin:.3em 0 .8em;display:block;"
       "max-width:100%;overflow-x:auto}td,th{border:1px solid #ccc;padding:0 5px;text-align:right;"
       "vertical-align:middle;font-size:12.5px;line-height:1.25}th{background:#eee;font-weight:600}"
       "td:first-child,th:first-child{text-align:left}tr.group td{background:#f4f4f4;font-weight:600;"
       "text-align:left}td.t,th.t{text-align:left}td.nw{white-space:nowrap}table.verdict td{white-space:nowrap}"
       "table.verdict th{vertical-align:bottom}svg.forest,svg.forest-axis{display:block}"
       "b.vunfair{color:#c0392b}b.vfair{color:#1e8449}b.vcannot-tell,b.vno-verdict-a-bot-cheats{color:#666}"
       ".warn{background:#fff6d6;border-left:5px solid #e0a000;padding:.25em .8em;margin:.3em 0}"
       ".warn details{margin:0}.warn summary{color:#222}"
       "img{max-width:100%}figure{margin:.4em 0 .8em}figcaption{color:#555;font-size:90%}"
       "details{margin:.1em 0 .3em}summary{cursor:pointer;color:#1f4f9f}"
       "details details{margin-left:1.2em}"
       ".pics{display:flex;flex-wrap:wrap;gap:12px}.pics figure{width:420px}"
       "code{font-size:90%;background:#f3f3f3;padding:0 3px;overflow-wrap:anywhere}"
       "ul.tight{margin:.2em 0 .6em;padding-left:1.3em}ul.tight li{margin:.1em 0}")


_NUMBER_LIKE = re.compile(r"^[+\-\u2212]?[\d.]")


def _text_columns(rows: Sequence[Any], width: int) -> list[bool]:
    """Which columns of an HTML table read as text and are left-aligned (numbers stay right-
    aligned so their digits line up): a column where no cell starts like a number ("blocked: 4
    turns", "stalemate_closest 3.2%, path 0.2%"), or any cell is prose (over 40 characters with
    spaces). Decided per column, so one column never mixes both alignments."""
    cols: list[list[str]] = [[] for _ in range(width)]
    for r in rows:
        if not isinstance(r, Group):
            for k, c in enumerate(r[:width]):
                if not isinstance(c, Raw) and c.strip() not in ("", "-"):
                    cols[k].append(c)
    return [bool(c) and (not any(_NUMBER_LIKE.match(x) for x in c) or any(len(x) > 40 and " " in x for x in c))
            for c in cols]


def _cell_class(text: bool, cell: str) -> str:
    """A cell's class attribute: `t` left-aligns a text column's cells, `nw` keeps a short cell
    ("blocked: 4 turns", "58.4% (56.2-60.6)") on one line."""
    cls = " ".join(c for c, on in (("t", text), ("nw", len(cell) <= 24)) if on)
    return f" class='{cls}'" if cls else ""


class Doc:
    """A list of blocks (heading, paragraph, warning, table, figure, fold) with two renderers."""

    def __init__(self) -> None:
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def items(self, texts: Sequence[str]) -> None:
        self.blocks.append(("ul", list(texts)))

    def warn(self, text: str, summary: str = "") -> None:
        """A warning box; with a summary, the HTML box shows the summary and folds the text."""
        self.blocks.append(("warn", text, summary))

    def table(self, headers: Sequence[str], rows: Sequence[Any], cls: str = "") -> None:
        cells = [r if isinstance(r, Group) else [c if isinstance(c, Raw) else str(c) for c in r]
                 for r in rows]
        self.blocks.append(("table", list(headers), cells, cls))

    def fig(self, key: str, caption: str, md_only: bool = False) -> None:
        """A figure, shown once (the first time its key is placed)."""
        if not any(b[0] == "fig" and b[1] == key for b in self.blocks):
            self.blocks.append(("fig", key, caption, md_only))

    def picture(self, key: str, caption: str, command: str) -> None:
        self.blocks.append(("pic", key, caption, command))

    def fold(self, summary: str) -> None:
        """Start a folded part (HTML <details>; in Markdown a bold line)."""
        self.blocks.append(("fold", summary))

    def endfold(self) -> None:
        self.blocks.append(("endfold",))

    def markdown(self, fig_files: dict[str, str]) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "ul":
                out += [f"- {t}" for t in b[1]]
            elif b[0] == "warn":
                out.append(f"> **WARNING:** {b[1]}")
            elif b[0] == "fold":
                out.append(f"**{b[1]}**")
            elif b[0] == "table":
                def cell(c):
                    return (c.md if isinstance(c, Raw) else c).replace("|", "\\|")
                out.append("| " + " | ".join(cell(c) for c in b[1] if not _raw_only(b, c)) + " |")
                keep = [i for i, c in enumerate(b[1]) if not _raw_only(b, c)]
                out.append("|" + "|".join("---" for _ in keep) + "|")
                for r in b[2]:
                    if isinstance(r, Group):
                        out.append("| **" + r.text + "** |" + " |" * (len(keep) - 1))
                    else:
                        out.append("| " + " | ".join(cell(r[i]) for i in keep) + " |")
            elif b[0] == "fig" and b[1] in fig_files:
                out.append(f"![{b[2]}]({fig_files[b[1]]})")
            elif b[0] == "pic" and b[1] in fig_files:
                out.append(f"![{b[2]}]({fig_files[b[1]]})\n\n`{b[3]}`")
            else:
                continue
            out.append("")
        return "\n".join(out)

    def html(self, fig_png: dict[str, bytes], title: str) -> str:
        e = html.escape
        out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
               f"<title>{e(title)}</title>", f"<style>{CSS}</style>", "</head><body>"]
        in_pics = False
        for b in self.blocks:
            if b[0] != "pic" and in_pics:
                out.append("</div>")
                in_pics = False
            if b[0] == "h":
                out.append(f"<h{b[1]} id='{slug(b[2])}'>{e(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                out.append(f"<p>{e(b[1])}</p>")
            elif b[0] == "ul":
                out.append("<ul class='tight'>" + "".join(f"<li>{e(t)}</li>" for t in b[1]) + "</ul>")
            elif b[0] == "warn":
                out.append(f"<div class='warn'><details><summary>WARNING: {e(b[2])}</summary>"
                           f"{e(b[1])}</details></div>" if b[2] else
                           f"<div class='warn'>WARNING: {e(b[1])}</div>")
            elif b[0] == "fold":
                out.append(f"<details><summary>{e(b[1])}</summary>")
            elif b[0] == "endfold":
                out.append("</details>")
            elif b[0] == "table":
                cls = f" class='{b[3]}'" if b[3] else ""
                text = _text_columns(b[2], len(b[1]))
                out.append(f"<table{cls}><tr>" + "".join(
                    f"<th{' class=t' if text[k] else ''}>{c.html if isinstance(c, Raw) else e(c)}</th>"
                    for k, c in enumerate(b[1])) + "</tr>")
                for r in b[2]:
                    if isinstance(r, Group):
                        out.append(f"<tr class='group'><td colspan='{len(b[1])}'>{e(r.text)}</td></tr>")
                    else:
                        out.append("<tr>" + "".join(
                            f"<td>{c.html}</td>" if isinstance(c, Raw) else
                            f"<td{_cell_class(text[k], c)}>{e(c)}</td>" for k, c in enumerate(r)) + "</tr>")
                out.append("</table>")
            elif b[0] == "fig" and b[1] in fig_png and not b[3]:
                data = base64.b64encode(fig_png[b[1]]).decode("ascii")
                out.append(f"<figure><img alt='{e(b[2])}' src='data:image/png;base64,{data}'>"
                           f"<figcaption>{e(b[2])}</figcaption></figure>")
            elif b[0] == "pic" and b[1] in fig_png:
                if not in_pics:
                    out.append("<div class='pics'>")
                    in_pics = True
                data = base64.b64encode(fig_png[b[1]]).decode("ascii")
                out.append(f"<figure><img alt='{e(b[2])}' src='data:image/png;base64,{data}'>"
                           f"<figcaption>{e(b[2])}<br><code>{e(b[3])}</code></figcaption></figure>")
        if in_pics:
            out.append("</div>")
        out.append("</body></html>")
        return "\n".join(out)


def _raw_only(block: tuple, header: str) -> bool:
    """A column whose every cell is HTML only (the inline forest plot) is left out of Markdown."""
    i = block[1].index(header)
    rows = [r for r in block[2] if not isinstance(r, Group)]
    return bool(rows) and all(isinstance(r[i], Raw) and not r[i].md for r in rows)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def pct(p: float, digits: int = 2) -> str:
    return "n/a" if p is None or not np.isfinite(p) else f"{100 * p:.{digits}f}%"


def ci(lo: float, hi: float, as_pct: bool = True, bounds: tuple[float, float] = intervals.ANY) -> str:
    """A share's interval in percent (clipped to [0, 1]), else a number's, clipped to `bounds`."""
    return intervals.text(lo, hi, pct, intervals.SHARE, "n/a") if as_pct else \
        intervals.text(lo, hi, num, bounds, "n/a")


ci1 = intervals.share  # (56.3-57.3)
ci_pts = intervals.points  # [-1.2, +3.4]


def num(x: float) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "n/a"
    if float(x) == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:,.1f}"


def pval(p: float) -> str:
    if p is None or not np.isfinite(p):
        return "n/a"
    return "<1e-300" if p == 0 else f"{p:.3g}"


def prop_cells(p: stats.Proportion | None) -> list[str]:
    if p is None:
        return ["n/a", "n/a"]
    return [pct(p.value), ci(p.low, p.high)]

