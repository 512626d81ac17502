"""The site's stylesheet and its one script, written once per site into ``assets/``.

``site.js`` is plain JavaScript without libraries. On an examples index page it offers the
filter (text, split, reason): the first use loads every ``data-NNNNN.js`` of ``examples/``
by adding ``<script>`` tags (``fetch`` does not work from ``file://``), each calling
``QA.register(page, rows)``; ``pages.js`` (``QA.configure``) tells how many there are and
which splits and reasons exist. Matching is a case-insensitive substring test on each entry's
text; the first ``pageSize`` matches are shown, then more on demand. Clearing the filter shows
the static table again. It also completes the pager with the number of pages.
"""

from __future__ import annotations

from pathlib import Path

CSS = """\
:root { --fg: #1b1f23; --muted: #6a737d; --line: #d0d7de; --bg-soft: #f6f8fa;
  --green: #d4f4dd; --green-line: #2da44e; --shade: #eef1f5; --mark: #fff3a3;
  --answer: #dbeafe; --answer-line: #3b82f6; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 0 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 1.2rem 0 .8rem; }
h2 { font-size: 1.2rem; margin: 1.4rem 0 .6rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .4rem; }
a { color: #0969da; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .85rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg-soft);
  padding: .5rem; border-radius: 4px; }
.site-header { display: flex; justify-content: space-between; align-items: center;
  gap: 1rem; padding: .6rem 1rem; background: #24292f; color: #fff; }
.site-header a { color: #fff; font-weight: 600; text-decoration: none; }
.site-header a:hover { text-decoration: underline; }
.site-header .release { font-family: ui-monospace, monospace; opacity: .85; }
.simulated-banner { padding: .6rem 1rem; background: #fff8c5; color: #4d2d00;
  border-bottom: 2px solid #d4a72c; font-weight: 500; }
.muted { color: var(--muted); }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; vertical-align: top;
  text-align: left; }
th { background: var(--bg-soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.entries { width: 100%; }
table.entries td { overflow-wrap: break-word; }
table.entries td.n { white-space: nowrap; }
.pager { display: flex; flex-wrap: wrap; gap: .8rem; align-items: center; margin: .8rem 0; }
.pager .disabled { color: var(--muted); }
form.filter { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center;
  padding: .6rem; background: var(--bg-soft); border: 1px solid var(--line);
  border-radius: 4px; }
form.filter input[type=search] { min-width: 18rem; padding: .25rem .4rem; }
.filter-status { margin: .5rem 0; }
[hidden] { display: none !important; }
section.example { border-top: 2px solid var(--line); padding: .4rem 0 1rem; }
.example-head { display: flex; flex-wrap: wrap; gap: .8rem; align-items: baseline; }
.example-head { margin: .4rem 0; }
.example-head a.n { font-weight: 700; font-size: 1.1rem; }
.split { font-family: ui-monospace, monospace; font-size: .85rem; padding: 0 .3rem;
  border: 1px solid var(--line); border-radius: 3px; }
dl.fields { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr;
  gap: .3rem 1rem; }
dl.fields dt { font-weight: 600; }
dl.fields dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.groups { display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start; }
.groups > .group h3 { margin-top: .6rem; }
figure.histogram { margin: .4rem 0 1rem; max-width: 560px; }
figure.histogram figcaption { font-size: .85rem; color: var(--muted); }
.reason { color: #9a3412; font-weight: 600; }
section.rejected-record { border-top: 2px solid var(--line); padding: .4rem 0 .8rem; }
section.rejected-record h2 { margin: .5rem 0; }
dl.fields dd ol { margin: 0; padding-left: 1.4rem; white-space: normal; }
dl.fields dd details pre { max-height: 24rem; overflow: auto; }
p.lead { font-size: 1.05rem; }
.yes-no { font-weight: 700; }
.candidate { border: 1px solid var(--line); border-radius: 4px; padding: .4rem .6rem;
  margin: .5rem 0; }
.contains-answer { background: var(--shade); }
.long-answer { background: var(--green); border-left: 4px solid var(--green-line);
  padding-left: .4rem; }
mark, .short-answer { background: var(--mark); color: inherit; padding: 0 .1rem; }
mark.short-answer { outline: 1px solid #d4a72c; }
.answer { background: var(--answer); border-bottom: 2px solid var(--answer-line);
  color: inherit; }
.answer-sentence { background: var(--green); color: inherit; }
.subheading { float: right; clear: right; width: 14rem; margin: 0 -15rem .5rem 1rem;
  font-size: .85rem; color: #1f4f99; border-left: 3px solid var(--answer-line);
  padding-left: .4rem; }
@media (max-width: 1500px) { .subheading { float: none; display: block; width: auto;
  margin: .4rem 0; } }
.label-exist, .label-ambiguous, .label-none { display: inline-block; font-size: .8rem;
  font-weight: 700; padding: 0 .35rem; border-radius: 3px; }
.label-exist { background: #2da44e; color: #fff; }
.label-ambiguous { background: #d4a72c; color: #000; }
.label-none { background: #8c959f; color: #fff; }
.rank, .score { font-family: ui-monospace, monospace; font-size: .85rem; color: var(--muted); }
iframe { width: 100%; height: 32rem; border: 1px solid var(--line); }
.figure svg { max-width: 100%; height: auto; }
"""

JS = """\
(function () {
  "use strict";
  var QA = window.QA = window.QA || {};
  var config = null;
  var data = {};
  var state = { loaded: false, loading: false, matches: [], shown: 0, pending: null };

  QA.configure = function (value) { config = value; };
  QA.register = function (page, rows) { data[page] = rows; };

  function pad(n) { var s = String(n); while (s.length < 5) { s = "0" + s; } return s; }

  function option(select, value) {
    var node = document.createElement("option");
    node.value = value;
    node.textContent = value;
    select.appendChild(node);
  }

  function completePager() {
    var pagers = document.querySelectorAll("nav.pager");
    for (var i = 0; i < pagers.length; i++) {
      var detail = pagers[i].getAttribute("data-kind") === "page";
      var count = detail ? config.detailPages : config.pages;
      var total = pagers[i].querySelector(".pages-total");
      if (total) { total.textContent = " of " + count; }
      var last = pagers[i].querySelector("a.pages-last");
      if (last && Number(pagers[i].getAttribute("data-page")) < count) {
        last.href = (detail ? "page-" : "index-") + pad(count) + ".html";
        last.hidden = false;
      }
    }
  }

  function loadAll(done) {
    if (state.loaded) { done(); return; }
    state.pending = done;
    if (state.loading) { return; }
    state.loading = true;
    var next = 1, running = 0, finished = 0, failed = [];
    var status = document.getElementById("filter-status");
    function start() {
      while (running < 8 && next <= config.pages) {
        var page = next++;
        running++;
        var script = document.createElement("script");
        script.src = "data-" + pad(page) + ".js";
        script.charset = "utf-8";
        script.onload = script.onerror = (function (p) {
          return function (event) {
            if (event.type === "error") { failed.push(p); }
            running--;
            finished++;
            status.textContent = "Loading the filter's data: " + finished + " of " +
              config.pages + " pages\\u2026";
            if (finished === config.pages) {
              state.loaded = true;
              state.loading = false;
              if (failed.length) {
                status.textContent = "Could not load data for pages " + failed.join(", ");
              }
              state.pending();
            } else {
              start();
            }
          };
        })(page);
        document.head.appendChild(script);
      }
    }
    start();
  }

  function matching(query, split, reason) {
    var out = [];
    for (var page = 1; page <= config.pages; page++) {
      var rows = data[page] || [];
      for (var i = 0; i < rows.length; i++) {
        var row = rows[i];
        if (split && row[2] !== split) { continue; }
        if (reason && row[3] !== reason) { continue; }
        if (query) {
          if (row.lower === undefined) { row.lower = String(row[4]).toLowerCase(); }
          if (row.lower.indexOf(query) < 0) { continue; }
        }
        out.push(row);
      }
    }
    return out;
  }

  function cell(tr, html, text, className) {
    var td = document.createElement("td");
    if (className) { td.className = className; }
    if (html !== null) { td.innerHTML = html; } else { td.textContent = text; }
    tr.appendChild(td);
  }

  function showMore() {
    var body = document.getElementById("filter-rows");
    var end = Math.min(state.shown + config.pageSize, state.matches.length);
    for (var i = state.shown; i < end; i++) {
      var row = state.matches[i];
      var tr = document.createElement("tr");
      var td = document.createElement("td");
      td.className = "n";
      var a = document.createElement("a");
      a.href = row[5];
      a.textContent = "#" + row[0];
      td.appendChild(a);
      tr.appendChild(td);
      var cells = row[6] || [];
      for (var c = 0; c < config.columns.length; c++) {
        cell(tr, cells[c] === undefined ? "" : cells[c], null, "");
      }
      cell(tr, null, row[2], "");
      cell(tr, null, row[3], "");
      body.appendChild(tr);
    }
    state.shown = end;
    document.getElementById("filter-more").hidden = state.shown >= state.matches.length;
  }

  function apply() {
    var form = document.getElementById("filter");
    var query = form.elements.q.value.trim().toLowerCase();
    var split = form.elements.split.value;
    var reason = form.elements.reason.value;
    var staticPart = document.getElementById("static-entries");
    var results = document.getElementById("filter-results");
    var status = document.getElementById("filter-status");
    if (!query && !split && !reason) {
      staticPart.hidden = false;
      results.hidden = true;
      status.textContent = "";
      return;
    }
    loadAll(function () {
      var now = form.elements.q.value.trim().toLowerCase();
      if (now !== query || form.elements.split.value !== split ||
          form.elements.reason.value !== reason) { apply(); return; }
      state.matches = matching(query, split, reason);
      state.shown = 0;
      document.getElementById("filter-rows").textContent = "";
      staticPart.hidden = true;
      results.hidden = false;
      status.textContent = state.matches.length + " of " + config.entries +
        " examples match";
      showMore();
    });
  }

  function init() {
    if (!config) { return; }
    completePager();
    var form = document.getElementById("filter");
    if (!form) { return; }
    for (var i = 0; i < config.splits.length; i++) {
      option(form.elements.split, config.splits[i]);
    }
    for (var j = 0; j < config.reasons.length; j++) {
      option(form.elements.reason, config.reasons[j]);
    }
    form.elements.reason.parentNode.hidden = config.reasons.length === 0;
    form.hidden = false;
    var timer = null;
    function later() { clearTimeout(timer); timer = setTimeout(apply, 200); }
    form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    form.elements.q.addEventListener("input", later);
    form.elements.split.addEventListener("change", apply);
    form.elements.reason.addEventListener("change", apply);
    document.getElementById("filter-more").addEventListener("click", showMore);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
"""


def write_assets(out_dir: str) -> list[str]:
    """Write ``assets/site.css`` and ``assets/site.js`` under ``out_dir``; their
    site-relative paths."""
    folder = Path(out_dir, "assets")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in (("site.css", CSS), ("site.js", JS)):
        (folder / name).write_text(content, encoding="utf-8")
        written.append(f"assets/{name}")
    return written
