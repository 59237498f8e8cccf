"""Same results before and after a speed change: dump ``query()`` for every generated question of a scale
build, then compare two dumps (a check that goes with the timing work, not a timing).

    python benchmarks/query_dump.py dump --work /tmp/speed-scale --notes 10000 --to /tmp/dumps/before-10000.jsonl
    python benchmarks/query_dump.py compare /tmp/dumps/before-10000.jsonl /tmp/dumps/after-10000.jsonl

``dump`` reads the build ``benchmarks/scale.py --work DIR`` left (``vault-n<N>-s7``, ``data-n<N>-s7``) and
writes one JSON line per distinct generated question, graph off then graph on:
``query(...).to_dict(why=True)`` without ``timings_ms``, keys sorted. Run it once with each tree (for the
base tree: ``PYTHONPATH=<its checkout>``) and ``cmp`` the two files, or ``compare`` them.

``compare`` counts the lines that are byte-identical, those that differ only in which exact copy stands at
a rank, and those that differ otherwise (each printed). The 10,000-note vault is the 1,000-note vault ten
times (``c0/`` … ``c9/``), so a chunk's copies have the same text (hence the same vector from the embedding
cache) and differ only in chunk id and the path's ``c<k>/`` prefix. "Copies only" = equal once every
result's chunk id is dropped and its path's ``c<k>/`` prefix removed; every score, rank, text, why block,
hint, warning and the temporal block is still compared.

Cited by docs/benchmarks.md, "Query speed at scale" ("Same results, checked": every change listed there was
checked this way).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_scale_build_arguments, scale_build  # noqa: E402

_COPY_PREFIX = re.compile(r"^c\d/")


def dump(work: Path, notes: int, to: Path) -> int:
    """Write the dump; the number of distinct questions."""
    from dataclasses import replace

    from lucasrag_query import query

    logging.getLogger("lightrag").setLevel(logging.ERROR)
    settings, cases = scale_build(work, notes)
    to.parent.mkdir(parents=True, exist_ok=True)
    with to.open("w") as out:
        for graph in (False, True):
            graphed = replace(settings, graph=graph)
            for case in cases:
                result = query(case.query, workspaces=case.workspaces, bridge=case.bridge, settings=graphed)
                row = result.to_dict(why=True)
                row.pop("timings_ms", None)
                out.write(json.dumps(row, sort_keys=True, default=str) + "\n")
    return len(cases)


def _without_copy_identity(row: dict) -> dict:
    for result in row["results"]:
        result.pop("chunk_id", None)
        result["path"] = _COPY_PREFIX.sub("", result["path"])
    return row


def compare(a: list[str], b: list[str]) -> dict[str, int]:
    """Counts of identical lines, lines differing only in which copy stands at a rank (and the result
    places that moved), and lines differing otherwise (each printed)."""
    if len(a) != len(b):
        sys.exit(f"the dumps have {len(a)} and {len(b)} lines: not dumps of the same questions")
    counts = dict(identical=0, copies=0, places=0, other=0)
    for line, (x, y) in enumerate(zip(a, b)):
        if x == y:
            counts["identical"] += 1
            continue
        dx, dy = json.loads(x), json.loads(y)
        ids_x, ids_y = [r["chunk_id"] for r in dx["results"]], [r["chunk_id"] for r in dy["results"]]
        if _without_copy_identity(dx) == _without_copy_identity(dy):
            counts["copies"] += 1
            counts["places"] += sum(p != q for p, q in zip(ids_x, ids_y))
        else:
            counts["other"] += 1
            print(f"REAL DIFFERENCE line {line}: {dx['query']}")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="dump query() for every distinct generated question, graph off and on")
    add_scale_build_arguments(d)
    d.add_argument("--to", type=Path, required=True, help="the JSON-lines file to write")
    c = sub.add_parser("compare", help="compare two dumps line by line")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.command == "dump":
        n = dump(args.work, args.notes, args.to)
        print(f"{n} questions x 2 (graph off/on) -> {args.to}")
    else:
        a, b = args.a.read_text().splitlines(), args.b.read_text().splitlines()
        counts = compare(a, b)
        print(
            f"{len(a)} lines: {counts['identical']} byte-identical, {counts['copies']} differ only in which exact "
            f"copy stands at a rank ({counts['places']} result places), {counts['other']} differ otherwise"
        )


if __name__ == "__main__":
    main()
