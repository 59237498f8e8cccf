"""How much memory a query process holds at scale (a benchmark, not a test).

    python benchmarks/query_memory.py --work /tmp/scale --notes 20000 [--queries 50]

Reads the build ``benchmarks/scale.py --work DIR`` left (``vault-n<N>-s7``, ``data-n<N>-s7``). In this fresh
process: the resident set after the imports, after opening the four workspaces' indexes (nothing asked), and
after the vault's first ``--queries`` generated questions through ``query()`` (what an MCP server holds),
with the peak. Figures in MB, from ``/proc/self/status`` (VmRSS, VmHWM).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import add_scale_build_arguments, scale_build  # noqa: E402


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scale_build_arguments(ap)
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    settings, cases = scale_build(args.work, args.notes, graph=True)

    from lucasrag.vocabulary import WORKSPACES
    from lucasrag_query import _indexes, _loop, query

    imported = _status_mb("VmRSS")
    _loop.run(_indexes.open_workspaces(settings, WORKSPACES))
    opened = _status_mb("VmRSS")
    for case in cases[: args.queries]:
        query(case.query, workspaces=case.workspaces, bridge=case.bridge, settings=settings)
    asked = _status_mb("VmRSS")
    print(f"notes {args.notes}, load {os.getloadavg()[0]:.2f}, {min(args.queries, len(cases))} questions")
    print(f"RSS MB: imports {imported:.0f}, four workspaces opened {opened:.0f}, after the questions {asked:.0f}")
    print(f"peak RSS MB: {_status_mb('VmHWM'):.0f}")


if __name__ == "__main__":
    main()
