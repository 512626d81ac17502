"""Length histograms as inline SVG, drawn by matplotlib's SVG backend.

The SVG is deterministic: the same counts give the same bytes (a fixed hash salt per label,
text kept as text, no date or creator in the metadata), so a site rebuilt from the same
release is byte-identical. Labels are never parsed as mathtext and are XML-escaped by
matplotlib; the ``aria-label`` is HTML-escaped here.
"""

from __future__ import annotations

import hashlib
import html
import io
import math
import re

MAX_BARS = 60
TAIL_FACTOR = 2.0
TAIL_QUANTILE = 0.99
FIGSIZE = (5.2, 2.6)
OURS_COLOR = "#1f6f43"
PAPER_COLOR = "#b03a2e"
BAR_COLOR = "#6b8fb5"


def weighted_mean(counts: dict[int, int]) -> float:
    """The mean of a ``{value: frequency}`` histogram (0.0 when empty)."""
    total = sum(counts.values())
    return sum(v * n for v, n in counts.items()) / total if total else 0.0


def weighted_quantile(counts: dict[int, int], q: float) -> int:
    """The smallest value with at least ``q`` of the weight at or below it."""
    total = sum(counts.values())
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= q * total:
            return value
    return max(counts)


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 or float(value).is_integer() else f"{value:.1f}"


def _draw(axes, counts: dict[int, int], paper_mean: float | None) -> str:
    """Bars of ``counts`` on ``axes``, at most ``MAX_BARS`` over the extent the paper's mean
    widens the axis to; a note on the values left out of a long tail."""
    from matplotlib.ticker import MaxNLocator

    upper = max(counts)
    note = ""
    cut = weighted_quantile(counts, TAIL_QUANTILE)
    if cut > 0 and upper > TAIL_FACTOR * cut:
        hidden = sum(n for v, n in counts.items() if v > cut)
        note = f"{hidden:,} values above {cut:,} (max {upper:,}) not drawn"
        upper = cut
    shown = {v: n for v, n in counts.items() if v <= upper}
    low = min(shown)
    extent = upper - low + 1
    if paper_mean is not None:
        extent = max(upper, paper_mean) - min(low, paper_mean) + 1
    width = max(1, math.ceil(extent / MAX_BARS))
    if width == 1:
        values = sorted(shown)
        axes.bar(values, [shown[v] for v in values], width=0.85, color=BAR_COLOR)
    else:
        binned: dict[int, int] = {}
        for value, n in shown.items():
            start = low + (value - low) // width * width
            binned[start] = binned.get(start, 0) + n
        starts = sorted(binned)
        axes.bar(starts, [binned[v] for v in starts], width=width * 0.9, align="edge",
                 color=BAR_COLOR)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    return note


def histogram_svg(counts: dict[int, int], label: str, paper_mean: float | None,
                  our_mean: float) -> str:
    """An inline ``<svg>`` of a length histogram with our mean and the paper's as lines
    (matplotlib is imported here: ``release list`` and ``verify`` import this module through
    ``pipelines.release`` and need none of its 0.35 s)."""
    import matplotlib
    from matplotlib.figure import Figure

    rc = {"svg.hashsalt": f"qa-browse:{label}", "svg.fonttype": "none",
          "text.parse_math": False, "text.usetex": False, "font.size": 8,
          "axes.spines.top": False, "axes.spines.right": False}
    with matplotlib.rc_context(rc):
        figure = Figure(figsize=FIGSIZE)
        axes = figure.add_subplot()
        note = ""
        if counts:
            note = _draw(axes, counts, paper_mean)
            axes.axvline(our_mean, color=OURS_COLOR, linewidth=1.5,
                         label=f"ours: mean {_number(our_mean)}")
        else:
            axes.text(0.5, 0.5, "no values", transform=axes.transAxes, ha="center",
                      va="center")
            axes.set_xticks([])
            axes.set_yticks([])
        if paper_mean is not None:
            axes.axvline(paper_mean, color=PAPER_COLOR, linewidth=1.5, linestyle="--",
                         label=f"paper: mean {_number(paper_mean)}")
        if counts or paper_mean is not None:
            axes.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False,
                        borderaxespad=0.2)
        axes.set_xlabel(f"{label}\n({note})" if note else label)
        axes.set_ylabel("count")
        figure.tight_layout()
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg",
                       metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    return _inline(buffer.getvalue(), label)


def _inline(svg: str, label: str) -> str:
    """The ``<svg>`` element alone, its ids prefixed so several figures share a page."""
    prefix = "fig-" + hashlib.sha1(label.encode("utf-8")).hexdigest()[:10]
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)
    svg = svg.replace("*{stroke-linejoin", f"#{prefix} *{{stroke-linejoin", 1)
    aria = html.escape(f"Histogram of {label}", quote=True)
    return svg.replace("<svg", f'<svg id="{prefix}" role="img" aria-label="{aria}"', 1)
