"""How much a refresh (``--previous``) saves: a full build of N inputs against a refresh that
adds 5% new inputs to it. Not a test.

    python benchmarks/bench_refresh.py [--questions 1714] [--pages 2000] [--new 0.05]
        [--repeat 1] [--network 200 [--requests-per-minute 120]]
        [--nq-index-docs 1000000 [--work .cache/scale_ladder]]
        [--beam-args="--runner=DirectRunner"]

For NQ (a pre-aggregated log of NQ-open questions from ../shared/data/queries when present,
else the bundled sample's questions, linked with the bundled local index and page store) and
NLQuAD (N pages synthesized from the bundled sample as ``bench_nlquad.py`` does, read with
``--source html``), each in a process of its own:

With ``--nq-index-docs D``, NQ's N questions are instead the scale ladder's synthetic ones
(``scale_ladder.inputs``: each drawn from one of D documents of a local index and page store,
made once under ``--work``), every one searched and linked (``--min-score 0``): at 1,714
NQ-open questions a build is mostly Beam's start-up and the query stage, which a refresh
runs in full, so the ratio says little about the linking a refresh saves.

* ``full``: the version built from N inputs, from nothing;
* ``refresh``: the next version, N inputs plus ``--new`` of N new ones, built with
  ``--previous`` the full build;
* ``rebuild``: that next version from nothing (what a refresh replaces);
* for NQ, the floor of any refresh: the query stage over the whole new log (which
  questions are still in it: a ``--stop-after questions`` build with ``--previous`` a
  question release of the first log, so that it tags only the new queries and takes the
  others' recorded outcomes, ``transforms.nq.query_outcomes``) and, in plain Python,
  reading every carried example (its Parquet row and gzip member) and writing both formats
  again;
* for NLQuAD, the floor of any refresh of saved pages, in plain Python: reading every page
  of N+new and digesting it (which pages are unchanged), and reading the previous release's
  split files and writing them again with Arrow (every carried row).

Prints seconds, inputs/s and peak RSS of each, the refresh/full time ratio against the
target (NLQuAD at most 0.30, NQ at most 0.40, with peak RSS no higher), the floor/full ratio
and what the refresh carried. The fixed cost of starting a Beam job is part of every run
(not of the plain-Python floors), so the ratio improves with N. ``--repeat K`` runs the
whole set K times, interleaved (full, refresh, rebuild, floors, full, ...), and reports the
median of each, so that a load shared with other work weighs on both sides alike. The last
line sums it up: ``refresh: <dataset> x<ratio> (target <= <t>: met|NOT met; floor
x<floor>; CPU x<ratio of CPU times>), peak RSS <refresh> / <full> MB; ...``. The CPU
times (each build's own process) move less than wall times when other work shares the
machine.

With a local index and page store the work a refresh saves (search, page fetch, tokens and
candidates) is cheap, so these rows show the refresh's floor: the query stage over the whole
log (which questions are still in it) and writing every carried row again. ``--network N``
adds the case the target is about: ``build_nq --search mediawiki --pages rest`` over HTTP
against the fake Wikipedia of the tests (``tests/fakes/wiki_server.py``, 127.0.0.1, loaded
with the bundled pages), at ``--requests-per-minute`` (the weekly example's 120 by default),
where a full build searches and fetches for every question and a refresh for new ones only.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_nlquad import synthesize
from bench_nq import questions
from child_process import peak_rss_mb, report, run_child

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET = 0.15  # over HTTP (--network)
TARGETS = {"nlquad": 0.30, "nq": 0.40}  # local inputs (issue 39)
FLOORS = {"nq": "the query stage and the rewrite of every carried row",
          "nlquad": "reading and digesting every page, and rewriting every carried row"}


def nq_inputs(directory: Path, count: int, new: float) -> tuple[Path, Path, int]:
    """Logs of ``count`` questions and of those plus ``new`` of them more."""
    pool = list(dict.fromkeys(questions()))
    count = min(count, int(len(pool) / (1 + new)))
    extra = max(1, round(count * new))
    paths = []
    for name, chosen in (("v1.jsonl", pool[:count]), ("v2.jsonl", pool[:count + extra])):
        path = directory / name
        path.write_text("".join(json.dumps({"query": q, "count": 2, "users": 2}) + "\n"
                                for q in chosen), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], count


def ladder_nq_inputs(directory: Path, count: int, new: float, work: Path, docs: int
                     ) -> tuple[Path, Path, int]:
    """Logs of ``count`` and ``count`` plus ``new`` synthetic questions of the scale ladder
    (``scale_ladder.inputs.nq_log``: each drawn from one of ``docs`` documents of its local
    index, made once under ``work``)."""
    from scale_ladder import inputs

    extra = max(1, round(count * new))
    lines = inputs.nq_log(work, count + extra, docs).read_text(encoding="utf-8").splitlines(
        keepends=True)
    paths = []
    for name, chosen in (("v1.jsonl", lines[:count]), ("v2.jsonl", lines)):
        (directory / name).write_text("".join(chosen), encoding="utf-8")
        paths.append(directory / name)
    return paths[0], paths[1], count


def nlquad_inputs(directory: Path, count: int, new: float) -> tuple[Path, Path, int]:
    """Directories of ``count`` synthesized pages and of those plus ``new`` of them more
    (the same files: each keeps its URL, timestamp and bytes)."""
    total = count + max(1, round(count * new))
    every = directory / "v2"
    every.mkdir()
    synthesize(every, total)
    for number, path in enumerate(sorted(every.glob("*.html"))):
        path.write_bytes(unique_paragraphs(path.read_bytes(), number))
    first = directory / "v1"
    first.mkdir()
    rows = (every / "index.tsv").read_text(encoding="utf-8").splitlines()
    for row in rows[1:count + 1]:
        shutil.copyfile(every / row.split("\t")[0], first / row.split("\t")[0])
    (first / "index.tsv").write_text("\n".join(rows[:count + 1]) + "\n", encoding="utf-8")
    return first, every, count


def unique_paragraphs(content: bytes, number: int) -> bytes:
    """Each paragraph of page ``number`` made its own (a word added), so that copies of one
    sample page are not each other's boilerplate and every page keeps its questions."""
    parts = content.split(b"</p>")
    return b"".join(part + (f" p{number}x{index}</p>".encode() if index < len(parts) - 1
                            else b"")
                    for index, part in enumerate(parts))


def arguments(dataset: str, source: Path, sample_index: bool = True,
              index: Path | None = None) -> list[str]:
    """The builder's input options for one prepared input; NQ's questions are linked with
    ``index`` (a local index: every question searched, ``--min-score 0``, as the scale
    ladder links them), else with the bundled sample index (``--sample-index``: a log that
    is not the bundled one names its index on purpose) unless ``sample_index`` is False (the
    network run names its backend)."""
    if dataset == "nq" and index is not None:
        return ["--input", str(source), "--stop-after", "examples", "--search", "local",
                "--index-dir", str(index), "--min-score", "0"]
    if dataset == "nq":
        return ["--input", str(source), "--stop-after", "examples",
                *(["--sample-index"] if sample_index else [])]
    return ["--source", "html", "--input", str(source / "*.html"),
            "--index", str(source / "index.tsv")]


def fake_wiki():
    """The fake Wikipedia of the tests, serving the bundled sample's pages as plain text."""
    import lxml.html

    from tests.fakes.wiki_server import FakePage, FakeWiki

    pages = []
    corpus = ROOT / "pipelines" / "samples" / "nq" / "corpus" / "wiki"
    for number, path in enumerate(sorted(corpus.glob("*.html")), start=1):
        tree = lxml.html.fromstring(path.read_bytes())
        text = " ".join(" ".join(p.itertext()) for p in tree.iter("p"))
        pages.append(FakePage(path.stem.replace("_", " "), text, 1000 + number))
    return FakeWiki(pages).start()


def network_arguments(wiki, rate: float, cache: Path) -> list[str]:
    """``build_nq`` over HTTP: search and pages from ``wiki``, an empty cache of its own."""
    return ["--search", "mediawiki", "--mediawiki-api-url", wiki.api_url, "--pages", "rest",
            "--rest-url", wiki.rest_url, "--requests-per-minute", f"{rate:g}",
            "--http-cache-dir", str(cache),
            "--shards", "1"]  # each of N shards gets 1/N of the rate, and the DirectRunner
    # runs them one after another: one shard is the rate as configured


def bench_network(count: int, new: float, rate: float, beam_args: list[str],
                  tmp: Path) -> None:
    """The NQ refresh against a full build over HTTP (see the module docstring)."""
    first, second, count = nq_inputs(tmp, count, new)
    wiki = fake_wiki()
    try:
        output = str(tmp / "releases")
        full = measure("nq", [*beam_args, *arguments("nq", first, sample_index=False),
                              *network_arguments(wiki, rate, tmp / "cache1"),
                              "--output", output, "--version", "1"], "full build")
        full_requests = len(wiki.requests)
        refresh = measure("nq", [*beam_args, *arguments("nq", second, sample_index=False),
                                 *network_arguments(wiki, rate, tmp / "cache2"),
                                 "--output", output, "--version", "2", "--previous", "auto"],
                          "refresh")
        refresh_requests = len(wiki.requests) - full_requests
    finally:
        wiki.stop()
    total = count + max(1, round(count * new))
    print(f"nq over HTTP at {rate:g} requests/min: {count} questions, then {total - count} "
          f"new ({new:.0%})")
    for name, result, inputs, requests in (
            ("full build of N", full, count, full_requests),
            ("refresh (+new, --previous)", refresh, total, refresh_requests)):
        print(f"  {name:32s} {result['seconds']:7.2f} s  {inputs / result['seconds']:8.1f} "
              f"questions/s  peak RSS {result['peak_rss_mb']:7.1f} MB  rows {result['rows']}  "
              f"HTTP requests {requests}")
    report_ratio(full, refresh)


def report_ratio(full: dict, refresh: dict, target: float = TARGET) -> float:
    """The refresh/full time ratio against ``target``, and the peak RSS comparison."""
    carried = refresh["refresh"] or {}
    print(f"  refresh rows: carried {carried.get('carried', 0)}, new {carried.get('new', 0)}, "
          f"recomputed {carried.get('recomputed', 0)}, removed {carried.get('removed', 0)}")
    ratio = refresh["seconds"] / full["seconds"]
    memory = refresh["peak_rss_mb"] <= full["peak_rss_mb"]
    print(f"  ratio refresh/full time: {ratio:.3f} (target <= {target}: "
          f"{'met' if ratio <= target else 'NOT met'}); peak RSS "
          f"{'no higher' if memory else 'HIGHER'} than the full build's")
    if full.get("cpu") and refresh.get("cpu"):  # what a load shared with other work moves less
        print(f"  ratio refresh/full CPU time: {refresh['cpu'] / full['cpu']:.3f}")
    return ratio


def digest_floor(pages_dir: str) -> dict:
    """The plain-Python cost of knowing which saved pages are unchanged: read every page of
    ``pages_dir`` and digest it as a refresh does (``CapturedPage.payload_digest``)."""
    from transforms.clients.wayback.digest import sha1_base32

    started, cpu = time.perf_counter(), time.process_time()
    pages = 0
    for path in sorted(Path(pages_dir).glob("*.html")):
        sha1_base32(path.read_bytes())
        pages += 1
    return {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "rows": pages, "refresh": None,
            "peak_rss_mb": peak_rss_mb()}


def table_rewrite_floor(version_dir: str) -> dict:
    """The plain-Python cost of carrying every row of a release's splits (NLQuAD): read each
    split file's table and write it again (``formats.table_bytes``: the same bytes)."""
    import pyarrow.parquet as pq

    from transforms.release.formats import table_bytes

    started, cpu = time.perf_counter(), time.process_time()
    rows = 0
    for split in ("train", "dev", "test"):
        for path in sorted((Path(version_dir) / split).glob("*.parquet")):
            table = pq.ParquetFile(path).read()
            table_bytes(table.replace_schema_metadata(None))
            rows += table.num_rows
    return {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "rows": rows, "refresh": None,
            "peak_rss_mb": peak_rss_mb()}


def rewrite_floor(version_dir: str) -> dict:
    """The plain-Python cost of writing a release's NQ examples again as a refresh does (byte
    for byte, both formats): read every paired ``nq_original`` and Parquet shard as carried
    examples (``transforms.nq.carried``) and write them again in both formats."""
    from transforms.nq.carried import hf_parquet, original_bytes, paired_files, read_carried
    from transforms.nq.examples import HF_SCHEMA

    started, cpu = time.perf_counter(), time.process_time()
    names = tuple(str(path.relative_to(version_dir)) for path in Path(version_dir).rglob("*")
                  if path.is_file())
    rows = 0
    for item in paired_files(names, ("train", "dev", "test")):
        examples = [example for _, example in read_carried(item, version_dir)]
        original_bytes(examples, release=version_dir)
        hf_parquet(examples, HF_SCHEMA, version_dir)
        rows += len(examples)
    return {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "rows": rows, "refresh": None,
            "peak_rss_mb": peak_rss_mb()}


def build(dataset: str, argv: list[str]) -> dict:
    """One build in this process: seconds, rows, what a refresh carried, peak RSS."""
    module = __import__(f"pipelines.build_{dataset}", fromlist=["run"])
    started, cpu = time.perf_counter(), time.process_time()
    result = module.run(argv)
    return {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "rows": sum(result["manifest"]["rows_per_split"].values()),
            "refresh": result["stats"].get("refresh"), "peak_rss_mb": peak_rss_mb()}


def measure(dataset: str, argv: list[str], what: str) -> dict:
    command = [sys.executable, __file__, "--child", dataset, "--argv", json.dumps(argv)]
    return run_child(command, what, ROOT)


def bench_once(dataset: str, beam_args: list[str], tmp: Path, first: Path, second: Path,
               index: Path | None = None) -> list[tuple[str, dict]]:
    """One interleaved round: full build, refresh, rebuild and the floors, each measured."""
    output = str(tmp / "releases")
    full = measure(dataset, [*beam_args, *arguments(dataset, first, index=index), "--output",
                             output, "--version", "1"], "full build")
    refresh = measure(dataset, [*beam_args, *arguments(dataset, second, index=index),
                                "--output", output, "--version", "2", "--previous", "auto"],
                      "refresh")
    rebuild = measure(dataset, [*beam_args, *arguments(dataset, second, index=index),
                                "--output", str(tmp / "rebuild"), "--version", "2"],
                      "rebuild")
    rows = [("full build of N", full), ("refresh (+new, --previous)", refresh),
            ("rebuild of N+new from nothing", rebuild)]
    if dataset == "nq":  # what any refresh must still do (see the module docstring)
        floor = [*beam_args, "--stop-after", "questions", "--output", str(tmp / "floor")]
        measure(dataset, [*floor, "--input", str(first), "--version", "1"],
                "query stage of N (the floor's previous release)")
        rows.append(("floor: query stage of N+new", measure(dataset, [
            *floor, "--input", str(second), "--version", "2", "--previous", "auto"],
            "query stage")))
        rows.append(("floor: rewrite N rows (plain)", measure(
            "rewrite", [str(Path(output) / "nq" / "1")], "rewrite")))
    else:
        rows.append(("floor: digest N+new pages (plain)",
                     measure("digest", [str(second)], "digest")))
        rows.append(("floor: rewrite N rows (plain)", measure(
            "tables", [str(Path(output) / "nlquad" / "1")], "rewrite")))
    return rows


def median_result(results: list[dict]) -> dict:
    """The run of median time among ``results`` (its own RSS and counts), with the median
    peak RSS and CPU time."""
    ordered = sorted(results, key=lambda result: result["seconds"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["peak_rss_mb"] = statistics.median(r["peak_rss_mb"] for r in results)
    chosen["cpu"] = statistics.median(r.get("cpu", 0) for r in results)
    return chosen


def bench(dataset: str, count: int, new: float, beam_args: list[str], tmp: Path,
          repeat: int = 1, ladder: tuple[Path, int] | None = None) -> str:
    """Measure ``dataset`` ``repeat`` times (interleaved), print the medians, and return the
    summary of the last line; NQ with ``ladder`` (work directory, documents): the scale
    ladder's synthetic questions and local index."""
    index = None
    if dataset == "nq" and ladder:
        from scale_ladder import inputs

        first, second, count = ladder_nq_inputs(tmp, count, new, *ladder)
        index = inputs.nq_index(*ladder)
    else:
        prepare = nq_inputs if dataset == "nq" else nlquad_inputs
        first, second, count = prepare(tmp, count, new)
    rounds = []
    for number in range(repeat):
        round_dir = tmp / f"round{number}"
        round_dir.mkdir()
        rounds.append(bench_once(dataset, beam_args, round_dir, first, second, index))
    names = [name for name, _ in rounds[0]]
    medians = {name: median_result([dict(r)[name] for r in rounds]) for name in names}
    unit = "questions" if dataset == "nq" else "pages"
    total = count + max(1, round(count * new))
    inputs = {"full build of N": count, "floor: rewrite N rows (plain)": count}
    load = os.getloadavg()
    print(f"{dataset}: {count} {unit}, then {total - count} new ({new:.0%}); "
          f"{'median of ' + str(repeat) + ' interleaved runs; ' if repeat > 1 else ''}"
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    for name in names:
        result, items = medians[name], inputs.get(name, total)
        print(f"  {name:34s} {result['seconds']:7.2f} s  {items / result['seconds']:8.1f} "
              f"{unit}/s  CPU {result.get('cpu', 0):7.2f} s  peak RSS "
              f"{result['peak_rss_mb']:7.1f} MB  rows {result['rows']}")
    full, refresh = medians["full build of N"], medians["refresh (+new, --previous)"]
    ratio = report_ratio(full, refresh, TARGETS[dataset])
    floor = sum(medians[name]["seconds"] for name in names if name.startswith("floor:"))
    print(f"  floor/full time: {floor / full['seconds']:.3f} (what no refresh can skip: "
          f"{FLOORS[dataset]})")
    met = "met" if ratio <= TARGETS[dataset] else "NOT met"
    return (f"{dataset} x{ratio:.3f} (target <= {TARGETS[dataset]}: {met}; floor "
            f"x{floor / full['seconds']:.3f}; CPU x{refresh['cpu'] / max(full['cpu'], 1e-9):.3f})"
            f", peak RSS {refresh['peak_rss_mb']:.0f} / {full['peak_rss_mb']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=1714, help="NQ questions (N)")
    parser.add_argument("--pages", type=int, default=2000, help="NLQuAD pages (N)")
    parser.add_argument("--new", type=float, default=0.05, help="share of new inputs")
    parser.add_argument("--datasets", default="nq,nlquad", help="which to measure")
    parser.add_argument("--repeat", type=int, default=1,
                        help="interleaved rounds; medians are reported")
    parser.add_argument("--network", type=int, default=0, metavar="N",
                        help="also NQ over HTTP with N questions (0: not)")
    parser.add_argument("--requests-per-minute", type=float, default=120,
                        help="--network: the client's rate (the weekly example's)")
    parser.add_argument("--nq-index-docs", type=int, default=0, metavar="D",
                        help="NQ: --questions synthetic questions linked against the scale "
                             "ladder's local index of D documents (made once under --work), "
                             "instead of NQ-open questions and the bundled sample index")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "scale_ladder",
                        help="--nq-index-docs: where the ladder's inputs are (or are made)")
    parser.add_argument("--beam-args", default="--runner=DirectRunner",
                        help="Beam options of every build, one string")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--argv", help=argparse.SUPPRESS)
    args = parser.parse_args()
    floors = {"rewrite": rewrite_floor, "digest": digest_floor, "tables": table_rewrite_floor}
    if args.child in floors:
        report(floors[args.child](*json.loads(args.argv)))
        return
    if args.child:
        report(build(args.child, json.loads(args.argv)))
        return
    beam_args = shlex.split(args.beam_args)
    print(f"refresh benchmark ({args.beam_args})")
    summaries = []
    for dataset in filter(None, args.datasets.split(",")):
        with tempfile.TemporaryDirectory(prefix=f"bench_refresh_{dataset}_") as tmp:
            count = args.questions if dataset == "nq" else args.pages
            ladder = (args.work.resolve(), args.nq_index_docs) if args.nq_index_docs else None
            summaries.append(bench(dataset, count, args.new, beam_args, Path(tmp),
                                   max(1, args.repeat), ladder))
    if args.network:
        with tempfile.TemporaryDirectory(prefix="bench_refresh_http_") as tmp:
            bench_network(args.network, args.new, args.requests_per_minute, beam_args,
                          Path(tmp))
    if summaries:
        print("refresh: " + "; ".join(summaries))


if __name__ == "__main__":
    main()
