"""The workers page of an annotated release (``workers.html``): who judged, how well.

Written when the release has a ``workers/all/`` table (``annotate import``, JNQ / JBoolQ): one
row per worker, likely spammers first, then by skill (lowest first), with their judgments,
agreement with the published decisions, gold accuracy and estimated skill. Above it, the
confidence of the aggregated decisions (``decisions/<split>/``): per aggregate, the number of
decisions, their mean confidence and a count per confidence band of 0.1 (the bins of
``transforms.metrics.calibration``). Every value is escaped (``html.text``/``num``).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from transforms.browse.base import ReleaseView
from transforms.browse.html import num, page, release_label, simulated_banner, text
from transforms.metrics.calibration import DEFAULT_BINS, bin_index

WORKERS_PAGE = "workers.html"
WORKERS_TABLE = "workers/all"
MAX_WORKERS_SHOWN = 5000
COLUMNS = ("annotator_id", "judgments", "compared", "agreement", "gold_judgments",
           "gold_accuracy", "skill", "skill_source", "likely_spammer")


def _order(row: dict[str, Any]) -> tuple:
    skill = row.get("skill")
    return (row.get("likely_spammer") is not True, skill is None,
            skill if isinstance(skill, int | float) else 0.0, str(row.get("annotator_id")))


def _cell(name: str, value: Any) -> str:
    if name in ("agreement", "gold_accuracy", "skill"):
        return f'<td class="n">{num(value, ".3f")}</td>'
    if name in ("judgments", "compared", "gold_judgments"):
        return f'<td class="n">{num(value, ",")}</td>'
    if name == "likely_spammer":
        shown = {True: "yes", False: "no"}.get(value, "—")
        return f'<td class="spammer-{text(shown)}">{text(shown)}</td>'
    return f"<td>{text(value)}</td>"


def workers_table(rows: list[dict[str, Any]]) -> str:
    """The workers as an HTML table (at most ``MAX_WORKERS_SHOWN``)."""
    shown = sorted(rows, key=_order)[:MAX_WORKERS_SHOWN]
    head = "".join(f"<th>{text(c)}</th>" for c in COLUMNS)
    body = "\n".join("<tr>" + "".join(_cell(c, row.get(c)) for c in COLUMNS) + "</tr>"
                     for row in shown)
    more = (f"<p>{num(len(rows) - len(shown), ',')} more workers are in the table.</p>"
            if len(rows) > len(shown) else "")
    return (f'<table id="workers"><thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n'
            f"</tbody></table>{more}")


def confidence_section(release: ReleaseView) -> str:
    """Decisions per aggregate: count, mean confidence and counts per band of 0.1."""
    bands: dict[str, Counter[int]] = {}
    sums: Counter[str] = Counter()
    for table in release.tables:
        if table.config != "decisions":
            continue
        for row in release.rows(table, ["aggregate", "confidence"]):
            confidence = row.get("confidence")
            aggregate = str(row.get("aggregate"))
            if not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
                continue
            bands.setdefault(aggregate, Counter())[bin_index(confidence)] += 1
            sums[aggregate] += confidence
    if not bands:
        return ""
    head = "".join(f"<th>{k / DEFAULT_BINS:.1f}-{(k + 1) / DEFAULT_BINS:.1f}</th>"
                   for k in range(DEFAULT_BINS))
    lines = []
    for aggregate, counts in sorted(bands.items()):
        total = sum(counts.values())
        cells = "".join(f'<td class="n">{num(counts.get(k, 0), ",")}</td>'
                        for k in range(DEFAULT_BINS))
        lines.append(f"<tr><td>{text(aggregate)}</td><td class=\"n\">{num(total, ',')}</td>"
                     f"<td class=\"n\">{num(sums[aggregate] / total, '.3f')}</td>{cells}</tr>")
    return ('<section id="confidence"><h2>Confidence of the decisions</h2>'
            "<p>Per aggregate (<code>decisions/</code>): paper's confidence is the vote share "
            "of the most common value, a worker model's the posterior of the label.</p>"
            f"<table><thead><tr><th>aggregate</th><th>decisions</th><th>mean</th>{head}"
            f"</tr></thead><tbody>{''.join(lines)}</tbody></table></section>")


def write_workers(out_dir: str, release: ReleaseView) -> str | None:
    """Write ``<out_dir>/workers.html`` when the release has a workers table; its
    site-relative path, or None."""
    table = release.table(WORKERS_TABLE)
    if table is None:
        return None
    rows = list(release.rows(table))
    flagged = sum(1 for row in rows if row.get("likely_spammer") is True)
    body = (f'<p class="lead">{num(len(rows), ",")} workers; {num(flagged, ",")} flagged as '
            "likely spammers (gold accuracy, else estimated skill, below 0.6).</p>\n"
            f"{confidence_section(release)}\n"
            f'<section id="workers-table"><h2>Workers</h2>{workers_table(rows)}</section>')
    content = page("Workers", body, nav_prefix="", release=release_label(release.manifest),
                   banner=simulated_banner(release.manifest, release.stats))
    with open(os.path.join(out_dir, WORKERS_PAGE), "w", encoding="utf-8",
              newline="\n") as handle:
        handle.write(content)
    return WORKERS_PAGE
