"""Check, list, compare and audit published releases.

    python -m pipelines.release verify DIR [DIR ...] [--quick] [--json]
    python -m pipelines.release list ROOT [--deep] [--json]
    python -m pipelines.release diff OLD NEW [--no-verify] [--json]
    python -m pipelines.release leakage DIR [--against FILE ...] [--question-field NAME]
        [--threshold 0.8] [--num-perm 128] [--examples 5] [--max-candidates 100]
        [--progress auto] [--no-verify] [--json]
    python -m pipelines.release browse DIR [--out SITE_DIR] [--overwrite] [--page-size 100]
        [--limit N] [--serve] [--port 8000]
    python -m pipelines.release publish DIR --to hf://datasets/ORG/NAME [--dry-run] [--private]
        [--http-request-deadline S] [--publish-deadline S] [--http-max-answer-mib M] [--json]

``verify`` re-hashes every file of each release against its manifest and checks row counts
and schemas; it prints one line per problem, naming the file, and exits 5 when any release
is damaged (0 when all match). A dataset root with ``LATEST`` means its latest version.
``list`` shows each dataset version under a release root: status (complete, damaged,
staging, missing, invalid_latest), whether ``LATEST`` points at it, creation time and rows
per split; it checks sizes only unless ``--deep``. A manifest that is unreadable, nested too
deeply or of the wrong shape is a damaged release (exit 5; ``list`` shows that one entry
damaged). Strings from a release are printed with control characters escaped
(``filters.text.terminal``); a ``LATEST`` that names no sibling version exits 2.
``diff`` compares two versions of one dataset (``transforms.release.diff``): rows added,
removed and changed by id per table and per column, rows that moved between splits (flagged:
there must be none), changes of options, drop-reason counts and length means. It exits 0
whether or not the versions differ.
``leakage`` reports the same question or document in two splits of a release, and the
release's questions found in external evaluation sets, exactly after normalization or as
near-duplicates by MinHash LSH (``transforms.release.leakage``), each release question
compared with at most ``--max-candidates`` set questions (the report counts those that
reached the cap), with a progress line on stderr. It exits 0 whatever it finds.
``diff`` and ``leakage`` first check each release's sizes and Parquet footers against its
manifest (exit 5 when damaged) unless ``--no-verify``. Usage errors exit 2.
``browse`` writes a static HTML site of a release (``transforms.browse``): an overview, the
examples with their answers highlighted (paginated, with a filter by text, split and reason)
and the rejected records by reason; open ``SITE_DIR/index.html``, no server needed.
``SITE_DIR`` defaults to ``site/<dataset>/<version>`` under the working directory (a
manifest whose names are not plain names exits 5; a link at ``site/<dataset>`` or below
exits 2, before any work); an
existing one is replaced only with ``--overwrite`` and only if it is a site written by
``browse`` (else exit 3); a ``SITE_DIR`` inside the release exits 2; a damaged release 5.
``--limit N`` shows at most N examples per split. ``--serve`` then serves the site on
http://127.0.0.1:PORT/ only (``--port 0``: any free port) until Ctrl-C.
``publish`` sends a version to a Hugging Face Hub dataset repository
(``transforms.release.hub_publish``): one commit on ``main`` and a tag named after the
version. ``--dry-run`` prints the repo, revision, files and sizes without any network access.
A ``--to`` that is not ``hf://datasets/ORG/NAME`` or a DIR that is not a release exits 2
before any work, a damaged release 5, a version the repo already has 3, a Hub error 1 (the
message, any token redacted, starts with its reason and says whether main was committed).

The functions ``verify``, ``diff``, ``leakage``, ``browse`` and ``publish``
(``pipelines.cli.publish``) are the commands callable with keywords; they raise
``NotAReleaseError``, ``DamagedReleaseError``, ``UsageError`` or
(``browse``) ``SiteExistsError``, never exit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.release")
from collections.abc import Sequence
from typing import Any

from filters.text.terminal import printable
from pipelines.cli.entry import configure_logging, interruptible, loaded_classes, quiet_loggers
from pipelines.cli.errors import (
    EXIT_DAMAGED,
    EXIT_OK,
    EXIT_RELEASE_EXISTS,
    EXIT_USAGE,
    UsageError,
)
from pipelines.cli.options import (
    fraction,
    non_negative_int,
    parse_progress,
    positive_int,
)
from pipelines.cli.parsers import program, readable_help
from pipelines.cli.publish import add_publish_parser, run_publish
from pipelines.cli.publish import publish as publish  # the callable command, as before
from transforms.browse.base import read_member_json
from transforms.browse.serve import make_server, serve
from transforms.browse.site import PAGE_SIZE, InvalidSiteDir, SiteExistsError, write_site
from transforms.release import (
    DamagedReleaseError,
    NotAReleaseError,
    list_releases,
    require_intact,
    resolve_release,
    verify_release,
)
from transforms.release.diff import IncomparableReleasesError, diff_releases
from transforms.release.leakage import (
    EXAMPLES,
    MAX_CANDIDATES,
    NUM_PERM,
    THRESHOLD,
    LeakageError,
    release_leakage,
)
from transforms.release.manifest import MANIFEST, ManifestError, manifest_problem, read_manifest

SITE_ROOT = "site"  # browse's default site directory is SITE_ROOT/<dataset>/<version>
# A Hub version that exists is found once its module is imported (by publish only: it imports
# requests); an error of a module never imported cannot have been raised.
HUB_EXISTS = (("transforms.release.hub_errors", "HubVersionExistsError"),)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=program("python -m pipelines.release"),
        description="Check, list, compare, audit, browse and publish releases: verify re-hashes "
                    "releases against their manifests (exit 5 when damaged), list shows the "
                    "versions under a release root, diff compares two versions of a dataset, "
                    "leakage finds questions and documents shared between splits or with "
                    "evaluation sets, browse writes a static HTML site, publish sends a "
                    "version to the Hugging Face Hub.")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check releases against their manifests")
    verify.add_argument("paths", nargs="+", metavar="DIR",
                        help="release version directories, or dataset directories with LATEST")
    verify.add_argument("--quick", action="store_true",
                        help="compare sizes and Parquet footers only, without hashing")
    verify.add_argument("--json", action="store_true", help="print one JSON object")
    listing = commands.add_parser("list", help="the releases under a release root")
    listing.add_argument("root", metavar="ROOT", help="a release root (an --output)")
    listing.add_argument("--deep", action="store_true", help="hash every file (slow)")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    compare = commands.add_parser("diff", help="what changed between two versions of a dataset")
    compare.add_argument("old", metavar="OLD", help="the older version directory")
    compare.add_argument("new", metavar="NEW", help="the newer version directory")
    compare.add_argument("--no-verify", dest="verify", action="store_false",
                         help="skip the quick check of both releases against their manifests")
    compare.add_argument("--json", action="store_true", help="print one JSON object")
    audit = commands.add_parser("leakage", help="questions and documents shared between "
                                                "splits and with evaluation sets")
    audit.add_argument("path", metavar="DIR", help="the release to audit")
    audit.add_argument("--against", nargs="+", action="extend", default=[], metavar="FILE",
                       help="evaluation sets: SQuAD JSON, or JSONL/Parquet with a question "
                            "field (repeatable)")
    audit.add_argument("--question-field", default="question",
                       help="the question field of the --against files (a.b: nested)")
    audit.add_argument("--threshold", type=fraction, default=THRESHOLD,
                       help="Jaccard similarity of character 3-grams for a near-duplicate")
    audit.add_argument("--num-perm", type=positive_int, default=NUM_PERM,
                       help="MinHash permutations")
    audit.add_argument("--examples", type=non_negative_int, default=EXAMPLES,
                       help="examples per kind of match")
    audit.add_argument("--max-candidates", type=positive_int, default=MAX_CANDIDATES,
                       metavar="N", help="set questions compared with one release question, "
                                         "at most (questions of one template share every LSH "
                                         "band; the report counts those that reached it)")
    audit.add_argument("--progress", type=parse_progress, default="auto",
                       help="auto (a line every 2 s on a terminal, every 30 s otherwise), off, "
                            "or seconds between progress lines on stderr")
    audit.add_argument("--no-verify", dest="verify", action="store_false",
                       help="skip the quick check of the release against its manifest")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    site = commands.add_parser("browse", help="write a static HTML site of a release: "
                                              "overview, examples, rejected records")
    site.add_argument("path", metavar="DIR", help="the release to show")
    site.add_argument("--out", metavar="SITE_DIR",
                      help="where the site goes (default: site/<dataset>/<version>)")
    site.add_argument("--overwrite", action="store_true",
                      help="replace SITE_DIR if it is a site written by browse")
    site.add_argument("--page-size", type=positive_int, default=PAGE_SIZE,
                      help="examples per index page and rejected records per page")
    site.add_argument("--limit", type=non_negative_int, metavar="N",
                      help="at most N examples per split (default: all)")
    site.add_argument("--serve", action="store_true",
                      help="then serve the site on http://127.0.0.1:PORT/ until Ctrl-C")
    site.add_argument("--port", type=int, default=8000, help="the --serve port (0: any)")
    add_publish_parser(commands)
    return readable_help(parser)


def verify(paths: list[str], quick: bool = False) -> list[dict[str, Any]]:
    """Verification reports of the releases at ``paths`` (``NotAReleaseError`` for a path
    that is no release)."""
    return [verify_release(resolve_release(path), deep=not quick).to_dict() for path in paths]


def diff(old: str, new: str, verify: bool = True) -> dict[str, Any]:
    """What changed from release ``old`` to release ``new`` (version directories, or dataset
    roots meaning their ``LATEST``), as ``python -m pipelines.release diff --json`` prints it."""
    old_dir, new_dir = resolve_release(old), resolve_release(new)
    if verify:
        require_intact(old_dir, deep=False)
        require_intact(new_dir, deep=False)
    try:
        return diff_releases(old_dir, new_dir)
    except IncomparableReleasesError as error:
        raise UsageError(str(error)) from error
    except ManifestError as error:  # --no-verify: a bad manifest is still a damaged release
        raise DamagedReleaseError(f"a manifest of {old_dir} or {new_dir}: {error}") from error


def leakage(path: str, against: Sequence[str] = (), *, question_field: str = "question",
            threshold: float = THRESHOLD, num_perm: int = NUM_PERM, examples: int = EXAMPLES,
            verify: bool = True, max_candidates: int = MAX_CANDIDATES) -> dict[str, Any]:
    """Leakage within the release at ``path`` and into the evaluation sets ``against``, as
    ``python -m pipelines.release leakage --json`` prints it."""
    if isinstance(against, str):
        against = [against]
    version_dir = resolve_release(path)
    if verify:
        require_intact(version_dir, deep=False)
    else:
        manifest_of(version_dir)
    try:
        return release_leakage(version_dir, list(against), question_field=question_field,
                               threshold=threshold, num_perm=num_perm, examples=examples,
                               max_candidates=max_candidates)
    except LeakageError as error:
        raise UsageError(str(error)) from error


def manifest_of(version_dir: str) -> dict[str, Any]:
    """The manifest of a release, checked for shape; ``DamagedReleaseError`` when it is
    unreadable, nested too deeply or of the wrong shape."""
    try:
        return read_manifest(version_dir)
    except ManifestError as error:
        raise DamagedReleaseError(f"release {version_dir} does not match its manifest "
                                  f"(dataset_info.json: {error})") from error


def _local_manifest(version_dir: str) -> dict[str, Any]:
    try:
        manifest = read_member_json(version_dir, MANIFEST)
    except (OSError, ValueError) as error:
        raise DamagedReleaseError(f"release {version_dir} does not match its manifest "
                                  f"(dataset_info.json: {error})") from error
    problem = manifest_problem(manifest)
    if problem:
        raise DamagedReleaseError(f"release {version_dir} does not match its manifest "
                                  f"(dataset_info.json: wrong shape: {problem})")
    return manifest


def default_site_dir(version_dir: str) -> str:
    """``site/<dataset>/<version>`` (relative to the working directory) of a release.

    The names come from the manifest, which no checksum covers: a dataset or version that is
    not a plain name (``check_name``) makes the release damaged (``DamagedReleaseError``),
    and a link at ``site/<dataset>`` or ``site/<dataset>/<version>``, or a path resolving
    outside ``site/``, is refused (``UsageError``), before any work. The manifest is read
    without following a link (``read_member_json``)."""
    if "://" in version_dir:
        manifest = manifest_of(version_dir)
    else:
        manifest = _local_manifest(version_dir)
    if "dataset" not in manifest or "version" not in manifest:
        raise DamagedReleaseError(f"release {version_dir} does not match its manifest "
                                  "(dataset_info.json: no dataset or version name)")
    site = os.path.join(SITE_ROOT, manifest["dataset"], manifest["version"])
    for part in (os.path.join(SITE_ROOT, manifest["dataset"]), site):
        if os.path.islink(part):
            raise UsageError(f"refusing to write the site to {site}: {part} is a symbolic "
                             "link; remove it or choose the site directory with --out")
    base, resolved = os.path.realpath(SITE_ROOT), os.path.realpath(site)
    if os.path.commonpath([base, resolved]) != base or resolved == base:
        raise UsageError(f"refusing to write the site to {site}: it resolves to {resolved}, "
                         f"outside {base}")
    return site


def browse(path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
           overwrite: bool = False, page_size: int = PAGE_SIZE,
           limit: int | None = None) -> dict[str, Any]:
    """Write the HTML site of the release at ``path`` (a version directory, or a dataset root
    meaning its ``LATEST``) to ``out`` (default ``site/<dataset>/<version>``); what the site's
    ``site.json`` records, plus its ``path``. Refuses a release holding a link or a special
    file, and checks every file's sha256 against the manifest first."""
    if page_size < 1:
        raise UsageError(f"--page-size must be at least 1, not {page_size}")
    if limit is not None and limit < 0:
        raise UsageError(f"--limit must not be negative, not {limit}")
    version_dir = resolve_release(os.fspath(path))
    out = os.fspath(out) if out else default_site_dir(version_dir)
    try:
        summary = write_site(version_dir, out, page_size, limit, overwrite=overwrite)
    except InvalidSiteDir as error:
        raise UsageError(str(error)) from error
    return {**summary, "path": out}


def _browse(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, not {args.port}")
    quiet_loggers(("bm25s",))
    version_dir = resolve_release(args.path)
    out = args.out or default_site_dir(version_dir)
    server = None
    if args.serve:
        try:
            server = make_server(out, args.port)
        except OSError as error:
            raise UsageError(f"cannot serve on 127.0.0.1:{args.port}: {error}") from error
    try:
        result = browse(version_dir, out, overwrite=args.overwrite,
                        page_size=args.page_size, limit=args.limit)
    except BaseException:
        if server is not None:
            server.server_close()
        raise
    examples = result["examples"]
    print(printable(f"wrote the site of {result['release']['dataset']} "
                    f"{result['release']['version']} to {result['path']}: "
                    f"{examples['entries']} examples on {examples['index_pages']} index and "
                    f"{examples['detail_pages']} detail pages, "
                    f"{result['rejected'].get('records', 0)} rejected records; "
                    f"open {os.path.join(result['path'], 'index.html')}"), flush=True)
    if server is not None:
        serve(result["path"], args.port, server)
    return EXIT_OK


# Readable output ---------------------------------------------------------------------------

def _rows(entry: dict[str, Any]) -> str:
    return ", ".join(f"{split} {n}" for split, n in entry["rows_per_split"].items()) or "-"


def _signed(value: float) -> str:
    return f"+{value}" if value > 0 else str(value)


def _change(name: str, entry: dict[str, Any]) -> str:
    text = (f"{name} {json.dumps(entry['old'], ensure_ascii=False)} -> "
            f"{json.dumps(entry['new'], ensure_ascii=False)}")
    return text + (f" ({_signed(entry['delta'])})" if "delta" in entry else "")


def _ids(values: list[Any]) -> str:
    return ", ".join(str(v) for v in values)


def _say(line: str) -> None:
    """Print a line of readable output, control characters from the releases escaped."""
    print(printable(line))


def print_diff(report: dict[str, Any]) -> None:
    old, new = report["old"], report["new"]
    _say(f"{report['dataset']} {old['version']} -> {new['version']} "
          f"({old['path']} -> {new['path']})")
    _say("rows per split: " + ", ".join(
        f"{split} {e['old']} -> {e['new']}" + (f" ({_signed(e['new'] - e['old'])})"
                                               if None not in (e["old"], e["new"]) else "")
        for split, e in report["rows_per_split"].items()))
    moved = report["moved_between_splits"]
    if moved["count"]:
        pairs = ", ".join(f"{pair} {n}" for pair, n in moved["pairs"].items())
        _say(f"!!! {moved['count']} ROWS MOVED BETWEEN SPLITS ({pairs}): a row must keep its "
              "split across versions, or dev/test scores are not comparable")
        _say("!!! e.g. " + ", ".join(f"{e['id']} ({e['from']} -> {e['to']})"
                                      for e in moved["examples"]))
    else:
        _say("no row moved between splits")
    if report["identical_rows"]:
        _say("the rows of every table are identical")
    for table in report["tables"]:
        _print_table(table)
    for title, changes in (("options", report["options"]),
                           ("drop-reason counts", report["stats"]["counts"]),
                           ("length means", report["stats"]["length_means"])):
        _say(f"{title}: " + ("; ".join(_change(n, e) for n, e in changes.items())
                              or "unchanged"))


def _print_table(table: dict[str, Any]) -> None:
    where = f", only in {table['only_in']}" if table["only_in"] else ""
    rows = table["rows"]
    key = table["id_column"] or "no id column: rows compared as a multiset"
    changed = table["changed"]["count"] if table["changed"] else "-"
    _say(f"table {table['table']} ({key}{where}): rows {rows['old']} -> {rows['new']}; "
          f"{table['added']['count']} added, {table['removed']['count']} removed, "
          f"{changed} changed, {table['unchanged']} unchanged, {table['moved_in']} moved in, "
          f"{table['moved_out']} moved out")
    for kind in ("added", "removed", "changed"):
        entry = table[kind]
        if entry and entry["examples"]:
            _say(f"  {kind}: e.g. {_ids(entry['examples'])}")
    columns = table["columns"]
    for column, entry in columns["changed"].items():
        _say(f"  column {column}: {entry['count']} changed, e.g. {_ids(entry['examples'])}")
    if columns["added"] or columns["removed"] or columns["retyped"]:
        retyped = ", ".join(f"{c['name']} {c['old']} -> {c['new']}" for c in columns["retyped"])
        _say(f"  columns added: {', '.join(columns['added']) or '-'}; removed: "
              f"{', '.join(columns['removed']) or '-'}; retyped: {retyped or '-'}")
    for kind in ("duplicate_ids", "null_ids"):
        if any(table[kind].values()):
            _say(f"  {kind.replace('_', ' ')}: old {table[kind]['old']}, "
                  f"new {table[kind]['new']}")


def print_leakage(report: dict[str, Any]) -> None:
    _say(f"{report['dataset']} {report['version']} ({report['path']})")
    within = report["within_release"]
    if not within["splits"]:
        _say(f"within the release: {within['note']}")
    else:
        _say("within the release (" + ", ".join(f"{s} {n}" for s, n in within["rows"].items())
              + " rows):")
    for kind in ("questions", "documents"):
        entry = within.get(kind)
        if entry is None:
            continue
        pairs = ", ".join(f"{p} {n}" for p, n in entry["pairs"].items())
        _say(f"  {kind} ({entry['column']}): {entry['count']} in two or more splits"
              + (f" ({entry['rows']} rows; {pairs})" if entry["count"] else ""))
        for example in entry["examples"]:
            ids = ", ".join(f"{r['split']} {r['id']}" for r in example["rows"])
            _say(f"    {json.dumps(example[kind[:-1]], ensure_ascii=False)}: {ids}")
    method = report["method"]
    checked = report["questions_checked"]
    if report["external"]:
        _say("checked against the sets: " + (", ".join(f"{t} ({c})" for t, c in checked.items())
                                              or "nothing, no table has a question column"))
    for external in report["external"]:
        _say(f"against {external['file']} ({external['questions']} questions, "
              f"{external['distinct']} distinct):")
        for kind, title in (("exact", "exact after normalization"),
                            ("near", f"near-duplicates (Jaccard >= {method['threshold']})")):
            entry = external[kind]
            tables = ", ".join(f"{t} {n}" for t, n in entry["by_table"].items())
            _say(f"  {title}: {entry['rows']} release rows match {entry['external_questions']} "
                  "of the set's questions" + (f" ({tables})" if tables else ""))
            for e in entry["examples"]:
                score = f" (Jaccard {e['jaccard']}, MinHash {e['estimated_jaccard']})" \
                    if kind == "near" else ""
                _say(f"    {e['table']} {e['id']}: {json.dumps(e['question'], ensure_ascii=False)}"
                      f" ~ {json.dumps(e['external_question'], ensure_ascii=False)}{score}")
        search = external["search"]
        if search["capped"]:
            _say(f"  !!! {search['capped']} of {search['queries']} release questions reached the "
                 f"cap of {search['max_candidates']} candidates: near-duplicates may be missed "
                 "(a lower bound; --max-candidates raises the cap)")


def _print_json(value: dict[str, Any], ascii_only: bool = True) -> None:
    print(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=ascii_only))


def _run(args: argparse.Namespace) -> int:
    if args.command == "browse":
        return _browse(args)
    if args.command == "publish":
        return run_publish(args)
    if args.command == "verify":
        reports = verify(args.paths, args.quick)
        if args.json:
            _print_json({"releases": reports})
        for report in [] if args.json else reports:
            name = printable(f"{report['dataset']} {report['version']} ({report['path']})"
                             if report["dataset"] else report["path"])
            if report["ok"]:
                print(f"ok: {name}: {report['files']} files match the manifest")
            for problem in report["problems"]:
                print(f"DAMAGED: {name}: {printable(problem['file'])}: "
                      f"{printable(problem['problem'])}")
        return EXIT_OK if all(r["ok"] for r in reports) else EXIT_DAMAGED
    if args.command == "diff":
        report = diff(args.old, args.new, verify=args.verify)
        if args.json:
            _print_json(report, ascii_only=False)
        else:
            print_diff(report)
        return EXIT_OK
    if args.command == "leakage":
        configure_logging(["--progress", str(args.progress)])
        report = leakage(args.path, args.against, question_field=args.question_field,
                         threshold=args.threshold, num_perm=args.num_perm,
                         examples=args.examples, verify=args.verify,
                         max_candidates=args.max_candidates)
        if args.json:
            _print_json(report, ascii_only=False)
        else:
            print_leakage(report)
        return EXIT_OK
    entries = list_releases(args.root, deep=args.deep)
    if args.json:
        _print_json({"root": args.root, "releases": entries})
        return EXIT_OK
    for entry in entries:
        mark = " LATEST" if entry["latest"] else ""
        print(printable(f"{entry['dataset']:24s} {entry['version']:16s} {entry['status']:9s}"
                        f"{mark:7s} {entry['created'] or '-':21s} {_rows(entry)}"
                        + (f"  (built on {entry['previous']})" if entry.get("previous")
                           else "")))
        if entry.get("problem"):
            print(f"  {printable(entry['problem'])}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """The command's ``main``; SIGINT and SIGTERM stop it with one line, exit 130 / 143, and
    a ``gs://`` path without the GCP extra is one line, exit 2 (``interruptible``)."""
    return interruptible(lambda: _main(argv), None if argv is None else list(argv))


def _main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # a bad option (2, its message printed) or --help (0)
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        return _run(args)
    except (NotAReleaseError, UsageError) as error:
        print(f"error: {printable(error)}", file=sys.stderr)
        return EXIT_USAGE
    except DamagedReleaseError as error:
        print(f"DAMAGED: {printable(error)}", file=sys.stderr)
        return EXIT_DAMAGED
    except (SiteExistsError, *loaded_classes(HUB_EXISTS)) as error:
        print(f"error: {printable(error)}", file=sys.stderr)
        return EXIT_RELEASE_EXISTS


if __name__ == "__main__":
    sys.exit(main())
