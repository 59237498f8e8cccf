"""query(): temporal detection → fan-out → policy → merged rerank → top k with hints."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from lucasrag.deference import deference_path, load_deference
from lucasrag.file_memo import read_when_changed
from lucasrag.lexical import query_terms
from lucasrag.life import Life, is_childhood_memory, life_path, read_life
from lucasrag.privacy import PRIVATE_FILE, load_privacy, private_now
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES, check_workspace
from lucasrag_query import _fetch, _loop
from lucasrag_query._indexes import open_workspaces
from lucasrag_query._ranking import rank_pool
from lucasrag_query.filters import FilterError, Filters, parse_filters
from lucasrag_query.options import DEFAULT_OPTIONS, QueryOptions
from lucasrag_query.policy import Candidate, Hint, apply_policy
from lucasrag_query.result import QueryResult, ResultItem
from lucasrag_query.temporal import (
    TemporalSignals,
    detect_temporal,
    load_cues,
    with_archive_opened,
    with_period_opened,
)
from lucasrag_query.why import matched_words, why_surfaced


class QueryError(ValueError):
    """The query itself is unusable (empty text, unknown workspace, bad top_k)."""


def _check_args(text: str, workspaces: Sequence[str] | None, top_k: int) -> tuple[str, ...]:
    if not text or not text.strip():
        raise QueryError("the query text is empty")
    if top_k < 1:
        raise QueryError(f"top_k must be at least 1 (got {top_k})")
    if workspaces is None:
        return WORKSPACES
    if isinstance(workspaces, str):
        workspaces = [workspaces]
    try:
        return tuple(dict.fromkeys(check_workspace(w) for w in workspaces))
    except ValueError as exc:
        raise QueryError(str(exc)) from None


def _vault_config(vault: Path) -> tuple:
    """The deference list and temporal cues, re-read only when their files change."""
    files = (deference_path(vault), vault / ".lucasrag" / "temporal.yaml")
    return read_when_changed(("config", vault), files, lambda: (load_deference(vault), load_cues(files[1])))


async def aquery(
    text: str,
    *,
    workspaces: Sequence[str] | None = None,
    bridge: Sequence[str] = (),
    top_k: int | None = None,
    settings: Settings | None = None,
    options: QueryOptions = DEFAULT_OPTIONS,
    archive: bool = False,
    after: str | None = None,
    before: str | None = None,
    folders: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    chunks: bool = False,
) -> QueryResult:
    settings = settings or Settings.from_env()
    top_k = settings.top_k if top_k is None else top_k
    selected = _check_args(text, workspaces, top_k)
    try:
        filters = parse_filters(after=after, before=before, folders=folders, tags=tags, now=settings.now)
    except FilterError as exc:
        raise QueryError(str(exc)) from None
    if isinstance(bridge, str):
        bridge = [bridge]
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    subjects, cues = _vault_config(settings.vault)
    temporal: TemporalSignals = detect_temporal(text, now=settings.now, cues=cues)
    in_words = temporal  # the archive as the words open it: only these release a charged archival chunk
    if archive:
        temporal = with_archive_opened(temporal)
    if (span := filters.period) is not None:  # an explicit period: the archive opens for it, as in the text
        temporal = with_period_opened(temporal, span, _filter_signal(filters))
    # The band filter sees an open archive when banding is switched off; ranking
    # keeps the query's own signals, so the ablation changes filtering only.
    # (An open gate without periods admits the whole archive.)
    gate = temporal if options.banding else TemporalSignals(True, temporal.signals, ())
    care_gate = None if temporal is in_words else in_words if options.banding else gate
    damaged: list = []  # workspaces whose files do not read: the others answer, a hint names the fix
    opened = await open_workspaces(settings, selected, damaged)
    from lucasrag.embedding import get_embedder

    vector = (await asyncio.to_thread(get_embedder(settings.embedding_model).embed_query, [text]))[0]
    keywords = query_terms(text, temporal.periods) if options.keywords else []
    timings["prepare"] = (time.perf_counter() - t0) * 1000

    def uncharged(cands: list[Candidate]) -> list[Candidate]:
        return cands if options.deference else [replace(c, charged=()) for c in cands]

    # A note made private since the last ingest (whose next ingest purges it) is never served: a pattern's
    # notes are left out before any policy counts them, a private: true one is checked among the results.
    private = read_when_changed(
        ("private", settings.vault), [settings.vault / PRIVATE_FILE], lambda: load_privacy(settings.vault)
    )

    tags_of = _tags_reader(settings) if filters.tags else (lambda path: ())
    admitted: dict[str, list[str]] = {}  # chunk id → why the filters admit it
    life = _life(settings) if temporal.periods else None
    childhood = life.childhood if life is not None else None

    def place(cands: list[Candidate]) -> list[Candidate]:
        """An undated childhood memory is about the writer's childhood (for the period gate and time fit)."""
        return cands if childhood is None else [_placed(c, childhood) for c in cands]

    def public(cands: list[Candidate]) -> list[Candidate]:
        if private.lines:
            cands = [c for c in cands if not private.matches(c.path)]
        if not filters.active:
            return cands
        kept = []
        for c in cands:  # a filter narrows what the policy sees; it lifts nothing
            if (why := filters.admits(c.path, c.date, tags_of)) is not None:
                admitted[c.chunk_id] = why
                kept.append(c)
        return kept

    def keep(cands: list[Candidate]) -> list[Candidate]:
        return apply_policy(
            public(place(cands)), temporal=gate, subjects=subjects, bridge=bridge, care_temporal=care_gate
        ).kept

    t0 = time.perf_counter()
    need = settings.candidates_per_workspace
    fetched = await asyncio.gather(
        *(
            _fetch.fetch(
                ws,
                text,
                vector,
                need,
                keep,
                temporal.periods,
                options.graph,
                keywords,
                gate,
                filters,
            )
            for ws in opened
        )
    )
    reached = {cid for _, ids in fetched for cid in ids}
    fetched = [place(uncharged(per_ws)) for per_ws, _ in fetched]
    everything = public([c for per_ws in fetched for c in per_ws])
    outcome = apply_policy(everything, temporal=gate, subjects=subjects, bridge=bridge, care_temporal=care_gate)
    kept_ids = {c.chunk_id for c in outcome.kept}
    pool = [c for per_ws in fetched for c in [c for c in per_ws if c.chunk_id in kept_ids][:need]]
    timings["fan_out"] = (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()
    stores = {ws.workspace: ws.store for ws in opened}
    ranked = await asyncio.to_thread(
        rank_pool, text, vector, pool, stores, settings, temporal, options, keywords, reached
    )
    timings["rerank"] = (time.perf_counter() - t0) * 1000

    vault, cap, shown = settings.vault.resolve(), settings.max_note_bytes, []
    from lucasrag.catalog import catalog_written_at

    ingested = catalog_written_at(settings)  # a note not modified since had its header read by that ingest
    # One note, one place in the list: a note's best passage stands for it and counts the others that
    # matched (chunks=True: every passage in its own place).
    per_note = Counter(c.path for c, _ in ranked.items)
    listed: set[str] = set()
    for c, score in ranked.items:  # each result's note, only as far as top_k needs
        if len(shown) == top_k:
            break
        if not chunks and c.path in listed:
            continue
        if not private_now(vault, c.path, private, max_bytes=cap, unchanged_since=ingested):
            shown.append((c, score))
            listed.add(c.path)
    results = [
        ResultItem(
            i + 1,
            c.chunk_id,
            c.workspace,
            c.path,
            c.band,
            c.date,
            round(score, 4),
            c.text,
            _with_placement(
                _with_filters(
                    why_surfaced(ranked.signals.get(c.chunk_id, {}), len(pool), matched_words(text, c.text, c.date)),
                    admitted.get(c.chunk_id),
                ),
                c,
                life,
            ),
            0 if chunks else per_note[c.path] - 1,
        )
        for i, (c, score) in enumerate(shown[:top_k])
    ]
    return QueryResult(
        query=text,
        results=results,
        hints=[*outcome.hints, *vault_hints(settings), *(Hint(None, "damaged", 0, str(exc)) for exc in damaged)],
        archival_open=gate.archival_open,
        signals=tuple(temporal.signals),
        temporal=temporal.to_dict(opened=options.banding and temporal.archival_open),
        temporal_line=temporal.summary() if options.banding else "archive open (banding switched off)",
        reranker=ranked.reranker,
        reranker_note=ranked.note,
        timings_ms={k: round(v, 2) for k, v in timings.items()},
        warnings=list(outcome.warnings),
        filters={**filters.to_dict(), **({"archive": True} if archive else {})} or None,
    )


def _filter_signal(filters: Filters) -> str:
    """The filter's period as a temporal signal's text ("after=2019", "after=2019 before=2021-06-30")."""
    return " ".join(f"{k}={filters.given[k]}" for k in ("after", "before") if k in filters.given)


def _with_filters(why: dict, admitted: list[str] | None) -> dict:
    if admitted:
        why = {**why, "filters": admitted}
        why["summary"] = f"{why.get('summary', '')}; filters: {', '.join(admitted)}".lstrip("; ")
    return why


def _tags_reader(settings: Settings):
    """path → the note's tags, from the last ingest's catalogue (re-read only when it changes)."""
    from lucasrag.catalog import CatalogMissing, catalog_path, scan_catalog

    def load() -> dict[str, list[str]]:
        try:
            frame = scan_catalog(settings)
        except CatalogMissing:
            return {}
        if "tags" not in frame.collect_schema().names():  # written before tags were kept: re-ingest to filter
            return {}
        return {p: list(t or ()) for p, t in frame.select("path", "tags").collect().iter_rows()}

    tags = read_when_changed(("tags", settings.data), [catalog_path(settings)], load)
    return lambda path: tags.get(path, ())


def _life(settings: Settings) -> Life | None:
    """The last ingest's reading of the writer's birth year, or None."""
    return read_when_changed(("life", settings.data), [life_path(settings)], lambda: read_life(settings))


def _with_placement(why: dict, c: Candidate, life: Life | None) -> dict:
    """Say so when an undated chunk was placed in time by the writer's childhood (see ``lucasrag.life``)."""
    if c.about is None or life is None:
        return why
    lo, hi = c.about
    return {
        **why,
        "placed": f"an undated childhood memory, placed in your childhood ({lo.year}–{hi.year}; {life.evidence})",
    }


def _placed(c: Candidate, childhood: tuple[dt.date, dt.date]) -> Candidate:
    if c.date is not None or c.band != "archival" or c.about is not None or not is_childhood_memory(c.text):
        return c
    return replace(c, about=childhood)


def vault_hints(settings: Settings) -> list[Hint]:
    """A hint when the last ingest left most of the vault unsearchable (counts and cause, no note text)."""
    from lucasrag.vault_health import health_path, read_health, unsearchable_warning

    health = read_when_changed(("health", settings.data), [health_path(settings)], lambda: read_health(settings))
    message = unsearchable_warning(health) if health is not None else None
    return [] if message is None else [Hint(None, "vault", health.unsearchable, message)]


def query(
    text: str,
    *,
    workspaces: Sequence[str] | None = None,
    bridge: Sequence[str] = (),
    top_k: int | None = None,
    settings: Settings | None = None,
    options: QueryOptions = DEFAULT_OPTIONS,
    archive: bool = False,
    after: str | None = None,
    before: str | None = None,
    folders: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    chunks: bool = False,
) -> QueryResult:
    """Answer ``text`` from the materialised indexes (see ``lucasrag_query`` for the contract).

    Each note takes one place in the list (its best passage; ``more`` counts its other matching passages);
    ``chunks=True`` lists every passage in its own place.

    ``archive``: open the whole archive although the text names no period (the person asked about the past
    in other words). ``after``/``before`` (an ISO date or a period: "2019", "April 2024"), ``folders``
    (vault-relative prefixes) and ``tags`` narrow the results (:mod:`lucasrag_query.filters`). Care,
    privacy and workspaces apply as ever: no filter lifts a withholding."""
    return _loop.run(
        aquery(
            text,
            workspaces=workspaces,
            bridge=bridge,
            top_k=top_k,
            settings=settings,
            options=options,
            archive=archive,
            after=after,
            before=before,
            folders=folders,
            tags=tags,
            chunks=chunks,
        )
    )
