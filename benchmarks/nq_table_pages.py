"""Synthetic Wikipedia pages heavy in tables and lists, as an NQ original-format file.

    python benchmarks/nq_table_pages.py --out /tmp/nq_tables.jsonl.gz [--pages 7] [--kb 184]

For ``bench_nq_candidates.py --file`` where real NQ pages with many tables and lists are not
at hand: each page is a MediaWiki desktop page (``#mw-content-text``, a table of contents,
an infobox, "See also" and navboxes after the content) whose sections alternate sortable
``wikitable`` tables (links, flag images, reference superscripts, rowspans, entities) and
nested bulleted lists, with a few paragraphs, about ``--kb`` KB each. Seeded: the same
arguments write the same bytes. Each line carries ``example_id``, ``question_text``,
``document_title``, ``document_url`` and ``document_html`` (no tokens or candidates).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path

WORDS = ("the of and in to was for on by with as at from his her physics discovery "
         "theory electron radiation quantum field laureate prize award season episode "
         "river island wind current ocean pressure country united kingdom germany france "
         "research university institute laboratory professor").split()
COUNTRIES = ("Germany", "United Kingdom", "France", "United States", "Netherlands", "Japan",
             "Sweden", "Italy", "Austria", "Switzerland", "Canada", "Soviet Union")


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _name(rng: random.Random) -> str:
    return f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()}"


def _link(rng: random.Random, text: str) -> str:
    return f'<A href="/wiki/{text.replace(" ", "_")}" title="{text}">{text}</A>'


def _ref(rng: random.Random) -> str:
    n = rng.randrange(1, 300)
    return f'<SUP id="cite_ref-{n}" class="reference"><A href="#cite_note-{n}">[{n}]</A></SUP>'


def _table(rng: random.Random, rows: int) -> str:
    head = "".join(f'<TH class="headerSort" tabindex="0" role="columnheader button" '
                   f'title="Sort ascending">{h}</TH>\n'
                   for h in ("Year", "Laureate", "Country", "Rationale"))
    body = []
    year = rng.randrange(1900, 1990)
    for _ in range(rows):
        year += 1
        country = rng.choice(COUNTRIES)
        flag = country.replace(" ", "_")
        span = ' rowspan="2"' if rng.random() < 0.2 else ""
        body.append(
            f"<TR>\n<TD{span}>{year}</TD>\n<TD>{_link(rng, _name(rng))}</TD>\n"
            f'<TD><SPAN class="flagicon"><IMG alt="" src="//upload.wikimedia.org/wikipedia/'
            f'commons/thumb/Flag_of_{flag}.svg/23px-Flag_of_{flag}.svg.png" width="23" '
            f'height="15" class="thumbborder" /> </SPAN>{_link(rng, country)}</TD>\n'
            f"<TD>&quot;for {_words(rng, rng.randrange(6, 18))} "
            f"{_link(rng, _words(rng, 2))}&quot;{_ref(rng)}</TD>\n</TR>\n")
    return (f'<TABLE class="wikitable sortable jquery-tablesorter">\n<THEAD><TR>\n{head}'
            f"</TR></THEAD><TBODY>\n{''.join(body)}</TBODY></TABLE>\n")


def _list(rng: random.Random, items: int, depth: int = 0) -> str:
    out = ["<UL>\n"]
    for _ in range(items):
        nest = depth == 0 and rng.random() < 0.25
        nested = _list(rng, rng.randrange(2, 5), depth + 1) if nest else ""
        out.append(f"<LI>{_link(rng, _name(rng))} &#8211; {_words(rng, rng.randrange(3, 12))}"
                   f"{_ref(rng) if rng.random() < 0.3 else ''}{nested}</LI>\n")
    out.append("</UL>\n")
    return "".join(out)


def _paragraph(rng: random.Random) -> str:
    return (f"<P>{_words(rng, 12).capitalize()} {_link(rng, _name(rng))}, "
            f"{_words(rng, 30)}.{_ref(rng)} {_words(rng, 20).capitalize()}.</P>\n")


def page(rng: random.Random, title: str, target_bytes: int) -> str:
    """One desktop page of about ``target_bytes`` bytes."""
    sections: list[str] = []
    size = 0
    while size < target_bytes:
        heading = _words(rng, 2).title()
        block = (f'<H2><SPAN class="mw-headline" id="{heading.replace(" ", "_")}">{heading}'
                 f'</SPAN><SPAN class="mw-editsection"><SPAN class="mw-editsection-bracket">['
                 f'</SPAN><A href="#" title="Edit section">edit</A>'
                 f'<SPAN class="mw-editsection-bracket">]'
                 f"</SPAN></SPAN></H2>\n{_paragraph(rng)}"
                 + (_table(rng, rng.randrange(10, 40)) if rng.random() < 0.6
                    else _list(rng, rng.randrange(10, 40))))
        sections.append(block)
        size += len(block.encode("utf-8"))
    toc = "".join(f'<LI class="toclevel-1"><A href="#s{i}"><SPAN class="tocnumber">{i + 1}'
                  f'</SPAN> <SPAN class="toctext">Section</SPAN></A></LI>\n'
                  for i in range(len(sections)))
    infobox = ('<TABLE class="infobox vevent">\n<TR><TH colspan="2">Production</TH></TR>\n'
               + "".join(f"<TR><TH>{_words(rng, 1).title()}</TH><TD>{_link(rng, _name(rng))}"
                         f"</TD></TR>\n" for _ in range(8)) + "</TABLE>\n")
    navbox = f'<TABLE class="navbox"><TR><TD>{_list(rng, 20)}</TD></TR></TABLE>\n'
    return (f"<!DOCTYPE html>\n<HTML><HEAD><TITLE>{title} - Wikipedia</TITLE></HEAD><BODY>\n"
            f'<DIV id="mw-navigation">{_list(rng, 10)}</DIV>\n'
            f'<H1 id="firstHeading">{title}</H1>\n<DIV id="mw-content-text">\n{infobox}'
            f"{_paragraph(rng)}"
            f'<DIV id="toc" class="toc"><UL>\n{toc}</UL></DIV>\n{"".join(sections)}'
            f'<H2><SPAN class="mw-headline" id="See_also">See also</SPAN></H2>\n'
            f"{_list(rng, 8)}{navbox}</DIV>\n</BODY></HTML>\n")


def write_pages(out: Path, pages: int, kb: float, seed: int = 0) -> None:
    """Write ``pages`` pages of about ``kb`` KB to ``out`` (``.gz``: gzip)."""
    rng = random.Random(seed)
    opener = gzip.open if out.suffix == ".gz" else open
    with opener(out, "wt", encoding="utf-8") as handle:
        for n in range(pages):
            title = f"List of {_words(rng, 2)} {n}"
            handle.write(json.dumps({
                "example_id": n, "question_text": f"who won the {_words(rng, 3)}",
                "document_title": title,
                "document_url": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
                "document_html": page(rng, title, int(kb * 1024)),
            }) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pages", type=int, default=7)
    parser.add_argument("--kb", type=float, default=184.0, help="about this much HTML a page")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_pages(args.out, args.pages, args.kb, args.seed)
    print(f"wrote {args.pages} pages to {args.out}")


if __name__ == "__main__":
    main()
