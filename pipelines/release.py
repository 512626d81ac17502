"""Check and list published releases.

    python -m pipelines.release verify DIR [DIR ...] [--quick] [--json]
    python -m pipelines.release list ROOT [--deep] [--json]

``verify`` re-hashes every file of each release against its manifest and checks row counts
and schemas; it prints one line per problem, naming the file, and exits 5 when any release
is damaged (0 when all match). A dataset root with ``LATEST`` means its latest version.
``list`` shows each dataset version under a release root: status (complete, damaged,
staging, missing), whether ``LATEST`` points at it, creation time and rows per split; it
checks sizes only unless ``--deep``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pipelines.cli.errors import EXIT_DAMAGED, EXIT_OK, EXIT_USAGE
from transforms.release import NotAReleaseError, list_releases, resolve_release, verify_release


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipelines.release",
                                     description="Verify and list published releases.")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check releases against their manifests")
    verify.add_argument("paths", nargs="+", metavar="DIR")
    verify.add_argument("--quick", action="store_true",
                        help="compare sizes and Parquet footers only, without hashing")
    verify.add_argument("--json", action="store_true", help="print one JSON object")
    listing = commands.add_parser("list", help="the releases under a release root")
    listing.add_argument("root", metavar="ROOT")
    listing.add_argument("--deep", action="store_true", help="hash every file (slow)")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def verify(paths: list[str], quick: bool = False) -> list[dict[str, Any]]:
    """Verification reports of the releases at ``paths`` (``NotAReleaseError`` for a path
    that is no release)."""
    return [verify_release(resolve_release(path), deep=not quick).to_dict() for path in paths]


def _rows(entry: dict[str, Any]) -> str:
    return ", ".join(f"{split} {n}" for split, n in entry["rows_per_split"].items()) or "-"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "verify":
            reports = verify(args.paths, args.quick)
            if args.json:
                print(json.dumps({"releases": reports}, indent=2, sort_keys=True))
            for report in [] if args.json else reports:
                name = f"{report['dataset']} {report['version']} ({report['path']})"
                if report["ok"]:
                    print(f"ok: {name}: {report['files']} files match the manifest")
                for problem in report["problems"]:
                    print(f"DAMAGED: {name}: {problem['file']}: {problem['problem']}")
            return EXIT_OK if all(r["ok"] for r in reports) else EXIT_DAMAGED
        entries = list_releases(args.root, deep=args.deep)
    except NotAReleaseError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps({"root": args.root, "releases": entries}, indent=2, sort_keys=True))
        return EXIT_OK
    for entry in entries:
        mark = " LATEST" if entry["latest"] else ""
        print(f"{entry['dataset']:24s} {entry['version']:16s} {entry['status']:9s}"
              f"{mark:7s} {entry['created'] or '-':21s} {_rows(entry)}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
