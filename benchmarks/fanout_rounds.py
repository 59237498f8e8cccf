"""Where a federated query's final top 25 come from, per workspace and over-fetch round, and what adaptive
fan-out could save (a diagnostic benchmark, not a test).

    nice -n 15 python benchmarks/fanout_rounds.py record --work /tmp/speed-scale --notes 10000 \\
        --to /tmp/diag-10000.pkl
    python benchmarks/fanout_rounds.py cost /tmp/diag-10000.pkl
    python benchmarks/fanout_rounds.py bound /tmp/diag-10000.pkl

``record`` reads the build ``benchmarks/scale.py --work DIR`` left (graph off, as in
``benchmarks/query_profile.py``) and asks each distinct generated question twice, keeping the second pass.
The query path is the product's: ``_fetch.fetch`` runs unchanged on a workspace whose index and chunk store
are wrapped to log each over-fetch round: the ``perf_counter`` time of the vector search and of the
synchronous work after it up to the next round's search or the fetch's end (keywords, fusion, rows,
candidates, policy: nothing in it awaits, so the spans of the concurrent workspaces do not overlap), the
round's fetch size and hit counts, the similarity of its last vector hit, which round first brought each
chunk, and which chunks the policy kept. The log (a pickle of plain dicts, one a question) also holds the
final results and their ``why`` signal ranks.

``cost``: the mean ``query()`` time, the fan-out's search and non-search time, and what an oracle that knew
which rounds place nothing in the final 25 would save. ``bound``: the adaptive rule of docs/benchmarks.md
(stop a workspace's over-fetch when the bound on its fused score from similarity and keyword ranks,
``1/(FUSION_K + 1 + A) + KEYWORD_WEIGHT/(FUSION_K + 1 + B)``, is below θ) for a range of θ: what it saves
and which top-25 items it would have lost, with their signal ranks.

Cited by docs/benchmarks.md, "Query speed at scale" ("Where the final top 25 come from") and "Tried and not
kept" (adaptive fan-out).
"""

from __future__ import annotations

import argparse
import logging
import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_scale_build_arguments, scale_build  # noqa: E402

THETAS = (0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15)


class _FetchLog:
    """One workspace's fetch for one question, round by round."""

    def __init__(self, need: int) -> None:
        self.need = need
        self.rounds: list[dict] = []
        self.first_round: dict[str, int] = {}  # chunk id → the round whose list first held it
        self.kept: set[str] = set()
        self.matched_first: set[str] = set()
        self._since: float | None = None  # the end of the last search (the current round's non-search work)

    def close_round(self) -> None:
        if self._since is not None:
            self.rounds[-1]["t_rest"] = time.perf_counter() - self._since
            self._since = None


class _LoggedIndex:
    def __init__(self, index, log: _FetchLog) -> None:
        self._index, self._log = index, log

    async def search(self, text, k, **kwargs):
        self._log.close_round()
        started = time.perf_counter()
        hits = await self._index.search(text, k, **kwargs)
        ended = time.perf_counter()
        last = hits[-1].chunk_id if hits else None
        self._log.rounds.append(dict(t_search=ended - started, fetch=k, hits=len(hits), matched=0, last_hit=last))
        self._log._since = ended
        return hits

    def __getattr__(self, name):
        return getattr(self._index, name)


class _LoggedStore:
    def __init__(self, store, log: _FetchLog) -> None:
        self._store, self._log = store, log

    def keyword_search(self, keywords, k):
        matched = self._store.keyword_search(keywords, k)
        self._log.rounds[-1]["matched"] = len(matched)
        if len(self._log.rounds) == 1:
            self._log.matched_first = set(matched[: self._log.need])
        return matched

    def get(self, ids):
        for chunk_id in ids:
            self._log.first_round.setdefault(chunk_id, len(self._log.rounds) - 1)
        return self._store.get(ids)

    def __getattr__(self, name):
        return getattr(self._store, name)


class _LoggedWorkspace:
    def __init__(self, ws, log: _FetchLog) -> None:
        self._ws = ws
        self.index, self.store = _LoggedIndex(ws.index, log), _LoggedStore(ws.store, log)

    def __getattr__(self, name):
        return getattr(self._ws, name)


def _logging_fetch(real_fetch, logs: list[dict]):
    async def fetch(ws, text, vector, need, keep, *args):
        log = _FetchLog(need)

        def logged_keep(candidates):
            kept = keep(candidates)
            log.kept.update(c.chunk_id for c in kept)
            return kept

        candidates, graphed = await real_fetch(_LoggedWorkspace(ws, log), text, vector, need, logged_keep, *args)
        log.close_round()
        # outside the timed spans: the similarities the bound needs
        for r in log.rounds:
            last = r.pop("last_hit")
            r["s_last"] = float(ws.store.vectors([last])[0] @ vector) if last else None
        kept = [c.chunk_id for c in candidates if c.chunk_id in log.kept]
        sims = ws.store.vectors(kept) @ vector if kept else []
        logs.append(
            dict(
                ws=ws.workspace,
                rounds=log.rounds,
                first_round=log.first_round,
                kept_sims={cid: float(s) for cid, s in zip(kept, sims)},
                matched_first=log.matched_first,
            )
        )
        return candidates, graphed

    return fetch


def record(work: Path, notes: int) -> list[dict]:
    """Each distinct question asked twice (the second pass kept), with its per-workspace fetch log."""
    from lucasrag_query import _fetch, query

    logging.getLogger("lightrag").setLevel(logging.ERROR)
    settings, cases = scale_build(work, notes, graph=False)
    logs: list[dict] = []
    real, _fetch.fetch = _fetch.fetch, _logging_fetch(_fetch.fetch, logs)
    out = []
    try:
        for case in cases + cases:
            logs.clear()
            started = time.perf_counter()
            r = query(case.query, workspaces=case.workspaces, bridge=case.bridge, settings=settings)
            took = time.perf_counter() - started
            out.append(
                dict(
                    tq=took,
                    timings=r.timings_ms,
                    query=case.query,
                    kind=case.kind,
                    per_ws=list(logs),
                    results=[(x.chunk_id, x.workspace, x.path) for x in r.results],
                    why=[{k: v["rank"] for k, v in x.why["signals"].items()} for x in r.results],
                    expect=case.expect_paths,
                )
            )
    finally:
        _fetch.fetch = real
    return out[len(cases) :]


def print_record_summary(out: list[dict]) -> None:
    rounds = [len(w["rounds"]) for q in out for w in q["per_ws"]]
    print(
        f"workspace-questions {len(rounds)}, rounds {sum(rounds)}, extra over-fetch rounds {sum(rounds) - len(rounds)}"
    )
    later = contributing_nothing = 0
    for q in out:
        top = {cid for cid, _, _ in q["results"]}
        for w in q["per_ws"]:
            later += any(r > 0 and cid in top for cid, r in w["first_round"].items())
            contributing_nothing += not any(cid in top for cid in w["first_round"])
    print(f"workspace-questions where a later round placed a top-25 item: {later}")
    print(f"workspace-questions contributing nothing to the top 25: {contributing_nothing} of {len(rounds)}")


def cost(out: list[dict]) -> None:
    n = len(out)
    spans = [(w, r) for q in out for w in q["per_ws"] for r in w["rounds"]]
    search = sum(r["t_search"] for _, r in spans) / n * 1000
    rest = sum(r["t_rest"] for _, r in spans) / n * 1000
    later_rest = sum(r["t_rest"] for q in out for w in q["per_ws"] for r in w["rounds"][1:]) / n * 1000
    later_nothing = ws_nothing = 0.0  # the oracle's savings
    for q in out:
        top = {cid for cid, _, _ in q["results"]}
        for w in q["per_ws"]:
            placed = [cid for cid in w["first_round"] if cid in top]
            if not any(w["first_round"][cid] > 0 for cid in placed):
                later_nothing += sum(r["t_rest"] for r in w["rounds"][1:])
            if not placed:
                ws_nothing += sum(r["t_rest"] for r in w["rounds"])
    print(
        f"query {sum(q['tq'] for q in out) / n * 1000:.1f} ms; fan-out search {search:.2f}, non-search {rest:.2f} "
        f"(later rounds {later_rest:.2f}); oracle saves: later rounds placing nothing {later_nothing / n * 1000:.2f} "
        f"ms, non-search work of workspaces placing nothing {ws_nothing / n * 1000:.2f} ms"
    )
    for stage in ("prepare", "fan_out", "rerank"):
        print(stage, round(statistics.mean(q["timings"].get(stage, 0) for q in out), 2))


def _bounded(out: list[dict]):
    """(question, workspace log, its bound) for every workspace that over-fetched."""
    from lucasrag_query._ranking import FUSION_K, KEYWORD_WEIGHT

    for q in out:
        first = [s for w in q["per_ws"] for cid, s in w["kept_sims"].items() if w["first_round"][cid] == 0]
        for w in q["per_ws"]:
            if len(w["rounds"]) < 2:
                continue
            head = w["rounds"][0]
            above = sum(s > head["s_last"] for s in first) if head["s_last"] is not None else 0
            full = head["matched"] >= head["fetch"]
            own = sum(1 for cid in w["matched_first"] if cid in w["kept_sims"] and w["first_round"][cid] == 0)
            yield q, w, 1 / (FUSION_K + 1 + above) + (KEYWORD_WEIGHT / (FUSION_K + 1 + own) if full else 0)


def bound(out: list[dict], thetas=THETAS, show: float = 0.03) -> None:
    rows = []
    for q, w, ub in _bounded(out):
        top = [cid for cid, _, _ in q["results"]]
        later = [top.index(c) + 1 for c in top if w["first_round"].get(c, 0) > 0]
        rows.append((ub, min(later, default=None), sum(r["t_rest"] for r in w["rounds"][1:])))
    print(f"{len(rows)} over-fetching workspace-questions")
    for theta in thetas:
        stop = [r for r in rows if r[0] < theta]
        lost = [r[1] for r in stop if r[1] is not None]
        print(
            f"  theta {theta}: stop {len(stop)}, saving {sum(r[2] for r in stop) / len(out) * 1000:.2f} ms/q; "
            f"stopped with later top-25 items: {len(lost)} best ranks {lost[:12]}"
        )
    print(f"signal ranks of the later-round items placed by workspaces the rule at theta {show} would stop:")
    for q, w, ub in _bounded(out):
        if ub < show:
            for i, c in enumerate(cid for cid, _, _ in q["results"]):
                if w["first_round"].get(c, 0) > 0:
                    print("  ", q["kind"], "rank", i + 1, q["why"][i])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="ask every distinct generated question twice, logging each fetch round")
    add_scale_build_arguments(r)
    r.add_argument("--to", type=Path, required=True, help="the log (a pickle) to write")
    for name, text in (("cost", "time per stage, and the oracle's savings"), ("bound", "the adaptive rule's θ")):
        sub.add_parser(name, help=text).add_argument("log", type=Path, help="a log written by record")
    args = ap.parse_args()
    if args.command == "record":
        out = record(args.work, args.notes)
        args.to.parent.mkdir(parents=True, exist_ok=True)
        args.to.write_bytes(pickle.dumps(out))
        print_record_summary(out)
        return
    out = pickle.loads(args.log.read_bytes())
    cost(out) if args.command == "cost" else bound(out)


if __name__ == "__main__":
    main()
