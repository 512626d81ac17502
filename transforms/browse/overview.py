"""The overview page of a release: ``<site>/index.html``.

Rows per table; the input → kept funnel (``stats["counts"]``, every group a table, drop
reasons marked); length histograms next to the paper's means; question prefixes; baselines;
annotation agreement; leakage between splits; any other statistic; the build command and its
options. Every section is drawn from what the release holds and left out when it holds
nothing for it, so any kind of release gets a page. All dataset text is escaped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from html import unescape
from typing import Any

from transforms.browse.base import ReleaseView, Renderer
from transforms.browse.figures import histogram_svg, weighted_mean
from transforms.browse.html import (
    is_number,
    link,
    page,
    release_label,
    simulated_banner,
    text,
)
from transforms.core.paths import recorded_value
from transforms.release.card_sections import rerun_command
from transforms.release.manifest import COMMAND_LINE

REASON_PREFIXES = ("dropped.", "skipped.", "rejected.", "failed.")
SUMMARY_FIELDS = ("count", "min", "median", "mean", "p90", "max")
SCOPES = ("all", "train", "dev", "test")
KNOWN_STATS = ("counts", "lengths", "paper_reference", "question_prefixes", "baselines",
               "fleiss_kappa", "worker_agreement", "quality", "leakage")
KAPPA_BANDS = ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial"))
MAX_LEAK_EXAMPLES = 10
# Leakage document columns holding page URLs as NQ stores them, HTML-escaped
# (``...?title=T&amp;oldid=N``): NQ's ``document.url``, JNQ's and JBoolQ's ``document_url``.
ESCAPED_URL_COLUMNS = ("document.url", "document_url")
MUTED_DASH = '<span class="muted">—</span>'
NUMERIC = re.compile(r"-?[\d,]+(?:\.\d+)?%?|" + re.escape(MUTED_DASH))


def number(value: Any) -> str:
    """A statistic as the page shows it (escaped): ``1,234``, ``63.13``, ``0.280``."""
    if value is None:
        return MUTED_DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"
    if isinstance(value, str):
        return text(value)
    return text(json.dumps(value, ensure_ascii=False, sort_keys=True))


def mean_text(value: float | None) -> str:
    """A mean as a caption shows it: ``175``, ``4.36``, ``38.7``."""
    if value is None:
        return MUTED_DASH
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def section(anchor: str, heading: str, body: str) -> str:
    """A ``<section>`` with its ``<h2>``; empty when ``body`` is."""
    if not body:
        return ""
    return (f'<section id="{anchor}" class="overview">\n<h2>{text(heading)}</h2>\n{body}\n'
            "</section>")


def table(header: Iterable[str], rows: Iterable[Iterable[str]], css: str = "") -> str:
    """A table of already escaped cells (the first cell of a row is its ``<th>``), numbers
    right-aligned. Empty without rows."""
    head = "".join(f"<th>{text(h)}</th>" for h in header)
    body = []
    for cells in rows:
        first, *rest = cells
        body.append(f"<tr><th>{first}</th>" + "".join(
            f'<td class="num">{c}</td>' if NUMERIC.fullmatch(c) else f"<td>{c}</td>"
            for c in rest) + "</tr>")
    if not body:
        return ""
    css_attr = f' class="{css}"' if css else ""
    return (f"<table{css_attr}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
            + "\n</tbody>\n</table>")


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def inline_html(values: Mapping[str, Any]) -> str:
    """A flat dict on one line: ``list 1 · paragraph 35``."""
    if not values:
        return '<span class="muted">none</span>'
    return " · ".join(f"{text(k)} <strong>{number(v)}</strong>" for k, v in values.items())


def mapping_html(values: Mapping[str, Any]) -> str:
    """Any nested statistic as tables: scalars as name → value rows, a flat dict on one
    line, a dict of flat dicts with the same keys as a matrix (e.g. label × answer type),
    deeper values nested."""
    inner = [v for v in values.values() if isinstance(v, dict)]
    if (len(inner) == len(values) >= 2 and inner[0]
            and all(all(_scalar(x) for x in v.values()) for v in inner)
            and len({tuple(v) for v in inner}) == 1):
        columns = list(inner[0])
        return table(["", *columns], ([text(k), *(number(v[c]) for c in columns)]
                                      for k, v in values.items()), "matrix")
    rows = []
    for name, value in values.items():
        if isinstance(value, dict):
            flat = all(_scalar(v) for v in value.values())
            shown = inline_html(value) if flat else mapping_html(value)
        elif isinstance(value, list):
            shown = (text(", ".join(str(v) for v in value)) if all(map(_scalar, value))
                     else number(value))
        else:
            shown = number(value)
        rows.append([text(name), shown])
    return table(["", "value"], rows, "mapping")


def _flat(values: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for name, value in values.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def is_reason(name: str) -> bool:
    """Whether a count's name is a drop reason (``dropped.empty_answer``, ``skipped.*``)."""
    return name.startswith(REASON_PREFIXES)


def _main_rows(release: ReleaseView) -> int:
    return sum(t.rows for t in release.main_tables())


def splits_section(release: ReleaseView) -> str:
    """Rows per table (config and split as ``datasets`` names them)."""
    rows = [[text(t.directory), text(t.config), text(t.split), number(t.rows),
             number(len(t.files))] for t in release.tables]
    return section("splits", "Rows per split",
                   table(["table", "config", "split", "rows", "files"], rows))


def _group_html(group: str, values: Any) -> str:
    flat = list(_flat(values)) if isinstance(values, dict) else [(group, values)]
    kept = [(k, v) for k, v in flat if not is_reason(k)]
    reasons = sorted(((k, v) for k, v in flat if is_reason(k)),
                     key=lambda kv: (-kv[1] if isinstance(kv[1], int) else 0, kv[0]))
    rows = [[text(k), number(v)] for k, v in kept]
    rows += [[f'<span class="reason">{text(k.partition(".")[0])}:</span> '
              f"{text(k.partition('.')[2])}", number(v)] for k, v in reasons]
    total = sum(v for _, v in reasons if isinstance(v, int))
    note = f'<p class="muted">{number(total)} left out in total.</p>' if reasons else ""
    return (f'<div class="group"><h3>{text(group)}</h3>\n'
            f"{table(['', 'count'], rows, 'funnel')}\n{note}</div>")


def funnel_section(release: ReleaseView) -> str:
    """Input → kept: every group of ``stats["counts"]`` as a table, drop reasons marked and
    ranked by count."""
    counts = release.stats.get("counts")
    if not isinstance(counts, dict) or not counts:
        return ""
    kept = f"kept: {number(_main_rows(release))} rows in the release."
    inputs = counts.get("input")
    if isinstance(inputs, dict) and inputs:
        read = ", ".join(f"{number(v)} {text(k)}" for k, v in _flat(inputs))
        headline = f'<p class="funnel">Input: {read} → {kept}</p>'
    else:
        headline = f'<p class="funnel">{kept.capitalize()}</p>'
    groups = sorted(counts.items(), key=lambda kv: kv[0] != "input")
    return section("funnel", "Input → kept", headline + '\n<div class="groups">\n'
                   + "\n".join(_group_html(g, v) for g, v in groups) + "\n</div>")


def paper_mean(name: str, renderer: Renderer, stats: dict[str, Any]) -> float | None:
    """The paper's mean of a measure: the renderer's, else ``stats["paper_reference"]``'s
    ``<name>_mean`` (NLQuAD Table 2)."""
    means = getattr(renderer, "paper_means", None) or {}
    reference = stats.get("paper_reference") or {}
    value = means.get(name, reference.get(name.replace(" ", "_") + "_mean"))
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _summaries(lengths: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(scope, metric, summary)`` of ``stats["lengths"]`` (scope → metric → summary, or
    metric → summary for releases without splits), each metric's scopes together."""
    found = []
    for key, value in lengths.items():
        if not isinstance(value, dict):
            continue
        if _scalar(value.get("count", {})):
            found.append(("all", key, value))
        else:
            found += [(key, metric, summary) for metric, summary in value.items()
                      if isinstance(summary, dict)]
    metrics = list(dict.fromkeys(metric for _, metric, _ in found))
    return sorted(found, key=lambda s: (metrics.index(s[1]), SCOPES.index(s[0])
                                        if s[0] in SCOPES else len(SCOPES), s[0]))


def lengths_section(release: ReleaseView, histograms: dict[str, dict[int, int]],
                    renderer: Renderer) -> str:
    """Histograms of the renderer's measures with our mean and the paper's, then the
    build's exact length summaries and the paper's reference numbers."""
    stats = release.stats
    parts, figures = [], []
    for name, counts in histograms.items():
        ours = weighted_mean(counts)
        paper = paper_mean(name, renderer, stats)
        caption = (f"{text(name)}: our mean {mean_text(ours)} over "
                   f"{number(sum(counts.values()))} values"
                   + (f"; the paper reports {mean_text(paper)}" if paper is not None else ""))
        figures.append(f'<figure class="figure histogram">'
                       f"{histogram_svg(counts, name, paper, ours)}"
                       f"<figcaption>{caption}</figcaption></figure>")
    if figures:
        parts.append('<div class="groups">\n' + "\n".join(figures) + "\n</div>")
    rows = [[text(metric.replace("_", " ")), text(scope),
             *(number(summary.get(f)) for f in SUMMARY_FIELDS),
             mean_text(paper_mean(metric.replace("_", " "), renderer, stats))]
            for scope, metric, summary in _summaries(stats.get("lengths") or {})]
    if rows:
        parts.append("<h3>Length statistics of the build</h3>\n"
                     + table(["", "split", *SUMMARY_FIELDS, "paper mean"], rows, "lengths"))
    reference = stats.get("paper_reference")
    if isinstance(reference, dict) and reference:
        rest = {k: v for k, v in reference.items()
                if k != "source" and not k.endswith("_mean")}
        parts.append(f"<p>Paper reference: {text(reference.get('source', ''))}"
                     + (f"; {inline_html(rest)}" if rest else "") + ".</p>")
    return section("lengths", "Lengths", "\n".join(parts))


def prefixes_section(stats: dict[str, Any]) -> str:
    """The most frequent first word(s) of the questions with their shares."""
    prefixes = stats.get("question_prefixes")
    if not isinstance(prefixes, dict):
        return ""
    parts = []
    for key, ranked in prefixes.items():
        if not ranked:
            continue
        rows = [[text(p.get("prefix", "")), number(p.get("count")),
                 f"{100 * _real(p.get('share')):.1f}%"] for p in ranked
                if isinstance(p, dict)]
        parts.append(f'<div class="group"><h3>{text(key.replace("_", " "))}</h3>\n'
                     + table(["prefix", "questions", "share"], rows) + "</div>")
    if not parts:
        return ""
    return section("prefixes", "Top question prefixes",
                   '<div class="groups">\n' + "\n".join(parts) + "\n</div>")


def baselines_section(stats: dict[str, Any]) -> str:
    """``stats["baselines"]``: one row per baseline, one column per metric, and its note."""
    baselines = stats.get("baselines")
    if not isinstance(baselines, dict):
        return ""
    metrics = list(baselines.get("metrics") or [])
    rows = baselines.get("rows") or []
    for row in rows:
        metrics += [k for k in row if k != "name" and k not in metrics]
    parts = [f"<p>Split: {text(baselines.get('split', ''))}; scored examples: "
             f"{number(baselines.get('n'))}.</p>",
             table(["baseline", *metrics],
                   ([text(r.get("name", "")), *(number(r.get(m)) for m in metrics)]
                    for r in rows), "baselines")]
    if baselines.get("note"):
        parts.append(f'<p class="muted">{text(baselines["note"])}</p>')
    return section("baselines", "Baselines", "\n".join(p for p in parts if p))


def kappa_band(kappa: float) -> str:
    """Landis & Koch's name for a kappa: ``poor`` below 0, ``moderate`` for 0.41-0.60."""
    if kappa < 0:
        return "poor"
    return next((name for bound, name in KAPPA_BANDS if kappa <= bound), "almost perfect")


def _real(value: Any) -> float:
    """A statistic that should be a number, as one (0 when it is anything else)."""
    return float(value) if is_number(value) else 0.0


def _workers_html(workers: dict[str, Any]) -> str:
    workers = {name: w for name, w in workers.items() if isinstance(w, dict)}
    compared = sum(int(_real(w.get("compared"))) for w in workers.values())
    agreed = sum(_real(w.get("agreement")) * int(_real(w.get("compared")))
                 for w in workers.values())
    mean = f"{agreed / compared:.3f}" if compared else "—"
    ranked = sorted(workers.items(), key=lambda kv: (_real(kv[1].get("agreement")), kv[0]))
    rows = [[text(w), number(v.get("agreement")), number(v.get("compared")),
             number(v.get("judgments"))] for w, v in ranked]
    return (f"<h3>Worker agreement</h3>\n<p>{number(len(workers))} workers; agreement with "
            f"the majority over {number(compared)} compared judgments: {mean}.</p>\n"
            "<details><summary>Every worker, least agreeing first</summary>\n"
            + table(["worker", "agreement", "compared", "judgments"], rows) + "\n</details>")


def annotation_section(stats: dict[str, Any]) -> str:
    """Fleiss' kappa per question, each worker's agreement with the majority, and the
    annotation quality statistics (the paper's tables)."""
    parts = []
    kappa = stats.get("fleiss_kappa")
    if isinstance(kappa, dict) and kappa:
        rows = [[text(name), number(v), text(kappa_band(v)) if isinstance(v, (int, float))
                 else MUTED_DASH] for name, v in kappa.items()]
        parts.append("<h3>Fleiss' kappa</h3>\n"
                     + table(["", "kappa", "agreement"], rows, "kappa"))
    workers = stats.get("worker_agreement")
    if isinstance(workers, dict) and workers:
        parts.append(_workers_html(workers))
    quality = stats.get("quality")
    if isinstance(quality, dict) and quality:
        parts.append("<h3>Annotation quality</h3>\n" + mapping_html(quality))
    return section("annotation", "Annotation agreement", "\n".join(parts))


def _leak_html(example: dict[str, Any], column: Any) -> str:
    """One shared question or document. A document URL stored HTML-escaped is unescaped
    once before ``link`` escapes it, so the link keeps its ``&oldid=`` (the pinned revision)."""
    if "document" in example:
        document = example["document"]
        if column in ESCAPED_URL_COLUMNS and isinstance(document, str):
            document = unescape(document)
        value = link(document)
    else:
        value = text(example.get("question", ""))
    splits = ", ".join(f"{text(s)} {number(n)}" for s, n in (example.get("splits") or {}).items())
    ids = ", ".join(f"{text(r.get('split', ''))}: {text(r.get('id', ''))}"
                    for r in example.get("rows") or [])
    return (f"<li>{value} ({splits})" + (f' <span class="muted">{ids}</span>' if ids else "")
            + "</li>")


def leakage_section(stats: dict[str, Any]) -> str:
    """The same question or document in two splits (``stats["leakage"]``)."""
    leakage = stats.get("leakage")
    if not isinstance(leakage, dict) or not leakage:
        return ""
    parts = []
    for kind in ("questions", "documents"):
        found = leakage.get(kind)
        if not isinstance(found, dict):
            continue
        line = (f"<p>{text(kind)} (<code>{text(found.get('column', ''))}</code>) in two or "
                f"more splits: {number(found.get('count'))}")
        if found.get("count"):
            pairs = ", ".join(f"{text(p)} {number(n)}"
                              for p, n in sorted((found.get("pairs") or {}).items()))
            line += f" ({number(found.get('rows'))} rows; {pairs})"
        parts.append(line + ".</p>")
        examples = found.get("examples") or []
        if examples:
            parts.append("<ul>" + "".join(_leak_html(e, found.get("column"))
                                          for e in examples[:MAX_LEAK_EXAMPLES]) + "</ul>")
    checked = leakage.get("rows")
    if isinstance(checked, dict) and checked:
        parts.append('<p class="muted">Rows checked: '
                     + ", ".join(f"{text(s)} {number(n)}" for s, n in checked.items()) + ".</p>")
    return section("leakage", "Leakage between splits", "\n".join(parts))


def other_section(stats: dict[str, Any]) -> str:
    """Every statistic no other section shows (ReQA's candidates and drop reasons, NQ's
    Wikipedia share, ...)."""
    rest = {k: v for k, v in stats.items() if k not in KNOWN_STATS}
    return section("more", "More statistics", mapping_html(rest) if rest else "")


def build_section(manifest: dict[str, Any]) -> str:
    """The command that builds the release again (as on the card; the entry point for a
    release built before manifests recorded it), every option's value by the name the
    manifest records it under (paths by ``recorded_path``), the code version and the
    source."""
    options = dict(recorded_value(manifest.get("options") or {}, None))
    command = options.pop("command", "") or "python -m pipelines.<pipeline>"
    options.pop(COMMAND_LINE, None)
    rows = [[f"<code>{text(name)}</code>",
             f"<code>{text(json.dumps(value, ensure_ascii=False, sort_keys=True))}</code>"]
            for name, value in sorted(options.items())]
    code = manifest.get("code") or {}
    parts = [f"<pre><code>{text(rerun_command(manifest) or command)}</code></pre>",
             "<p>Run from the directory the job ran from (relative paths as given; "
             "<code>&lt;local&gt;/...</code> stands for a local path outside it). Every "
             "option's value, by the name the manifest records it under:</p>" if rows else "",
             table(["option", "value"], rows, "options"),
             f"<p>Code: {text(code.get('package', ''))} {text(code.get('version', ''))} "
             f"(commit <code>{text(code.get('git_commit') or 'n/a')}</code>); built "
             f"{text(manifest.get('created', ''))}, run {text(manifest.get('run_id', ''))}.</p>"]
    source = manifest.get("source")
    if isinstance(source, dict) and source:
        parts.append("<h3>Source</h3>\n" + mapping_html(source))
    return section("build", "How it was built", "\n".join(p for p in parts if p))


def workers_link(release: ReleaseView) -> str:
    """`` · <a>the workers</a>`` when the release has a workers table (``browse.workers``)."""
    if release.table("workers/all") is None:
        return ""
    return ' · <a href="workers.html">the workers</a>'


def overview_body(release: ReleaseView, histograms: dict[str, dict[int, int]],
                  renderer: Renderer, note: str = "") -> str:
    """The overview's sections as HTML (without the page layout); ``note`` (plain text)
    follows the lead paragraph."""
    stats = release.stats
    manifest = release.manifest
    splits = ", ".join(t.split for t in release.main_tables()) or "no table"
    intro = (f'<p class="lead">{text(manifest.get("dataset", ""))} '
             f'{text(manifest.get("version", ""))}: {number(_main_rows(release))} rows in '
             f"{text(splits)}. "
             '<a href="examples/index-00001.html">Browse the examples</a> · '
             '<a href="rejected/index.html">what was rejected, and why</a>'
             f'{workers_link(release)}.</p>')
    notice = f'<p class="notice">{text(note)}</p>' if note else ""
    sections = [intro, notice, splits_section(release), funnel_section(release),
                lengths_section(release, histograms, renderer), prefixes_section(stats),
                baselines_section(stats), annotation_section(stats), leakage_section(stats),
                other_section(stats), build_section(manifest)]
    return "\n".join(s for s in sections if s)


def write_overview(out_dir: str, release: ReleaseView, histograms: dict[str, dict[int, int]],
                   renderer: Renderer, note: str = "") -> None:
    """Write ``<out_dir>/index.html``: the overview of ``release``. ``histograms`` are the
    renderer's measures tallied over every row (``{measure: {value: frequency}}``); ``note``
    says why the dataset's own renderer was not used."""
    title = getattr(renderer, "title", "") or release.dataset
    content = page(title, overview_body(release, histograms, renderer, note), nav_prefix="",
                   release=release_label(release.manifest),
                   banner=simulated_banner(release.manifest, release.stats))
    with open(os.path.join(out_dir, "index.html"), "w", encoding="utf-8",
              newline="\n") as handle:
        handle.write(content)
