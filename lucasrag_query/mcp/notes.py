"""``read_note``: one note by vault path, through the same care policy as ``query()``.

The text served is the text as indexed (its chunks, in order), because that is the
text the care rule has judged: a passage charged for a deference subject is
replaced by a withholding notice unless the caller bridges the subject — decided
by :func:`lucasrag_query.policy.apply_policy`, passage by passage. The person
named the note, so the band gate is not asked (an archival note is served, and
marked as archival); naming a note is not a temporal signal, so charged archival
passages stay withheld until bridged. A note edited since the last ingest is
served as indexed and marked ``stale``.

Refused, with the reason: paths that are not vault-relative, that leave the vault
(``..``, a symlink out), that are hidden (``.obsidian/``, ``.lucasrag/``), that
are not ``*.md``, and notes that are quarantined, invalid or not ingested yet. A private note
(lucasrag/privacy.py: a pattern of ``.lucasrag/private`` or ``private: true``, as the vault is now) is
refused with the hidden path's message: its privacy is not announced either.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from lucasrag.catalog import CatalogMissing, catalog_path, read_catalog
from lucasrag.deference import load_deference
from lucasrag.index.stores import open_chunk_store
from lucasrag.privacy import private_now
from lucasrag.safe_read import UnreadableEntry, read_regular
from lucasrag.settings import Settings
from lucasrag.vault_files import is_hidden
from lucasrag.vocabulary import doc_id
from lucasrag_query.policy import Candidate, apply_policy
from lucasrag_query.temporal import TemporalSignals

#: read_note asks care with a closed archive: naming a note is not a temporal signal.
_NOT_TEMPORAL = TemporalSignals(archival_open=False, signals=(), periods=())


class NoteRefused(ValueError):
    """The path is not a note this server may serve; the message says why and what to do."""


def _not_served(raw: str) -> str:
    # One message for a hidden path and a private note: privacy hides the fact too (lucasrag/privacy.py).
    return (
        f"{raw!r} is hidden or private (.obsidian, .lucasrag, .trash, or a note the person keeps private): not served"
    )


def vault_relative(path: str) -> PurePosixPath:
    """``path`` as a clean vault-relative POSIX path, or NoteRefused with the reason."""
    raw = (path or "").strip()
    if not raw:
        raise NoteRefused("the path is empty: give a vault-relative path such as 'journal/2024-05-12.md'")
    if "\\" in raw or "\x00" in raw:
        raise NoteRefused(f"{raw!r} is not a vault path: use '/' between folders")
    rel = PurePosixPath(raw)
    if rel.is_absolute() or (rel.parts and rel.parts[0].endswith(":")):
        raise NoteRefused(f"{raw!r} is absolute: paths are relative to the vault root, as search results give them")
    if ".." in rel.parts:
        raise NoteRefused(f"{raw!r} leaves the vault: only notes inside the vault are served")
    if is_hidden(rel):
        raise NoteRefused(_not_served(raw))
    if rel.suffix != ".md":
        raise NoteRefused(f"{raw!r} is not a note: notes are Markdown files ending in .md")
    return rel


_catalog_cache: dict[Path, tuple[int, dict[str, dict]]] = {}


def catalog_rows(settings: Settings) -> dict[str, dict]:
    """path → catalogue row, re-read only when an ingest has rewritten the catalogue."""
    path = catalog_path(settings)
    stamp = path.stat().st_mtime_ns if path.is_file() else None
    cached = _catalog_cache.get(path)
    if cached is None or cached[0] != stamp:
        cached = (stamp, {row["path"]: row for row in read_catalog(settings).to_dicts()})
        _catalog_cache[path] = cached
    return cached[1]


def _row(settings: Settings, rel: PurePosixPath) -> dict:
    vault = settings.vault.resolve()
    full = (vault / rel).resolve()
    if not full.is_relative_to(vault):
        raise NoteRefused(f"'{rel}' resolves outside the vault (a symbolic link): not served")
    try:
        row = catalog_rows(settings).get(rel.as_posix())
    except CatalogMissing as exc:
        raise NoteRefused(f"no index yet: {exc}") from None
    if row is None:
        if full.is_file():
            raise NoteRefused(f"'{rel}' is not ingested yet: run `lucasrag ingest` (or serve with --watch)")
        raise NoteRefused(f"no note at '{rel}' in the vault (paths are case-sensitive; search gives exact paths)")
    if row["status"] == "quarantined":
        raise NoteRefused(
            f"'{rel}' is quarantined, awaiting a person's review: {row['reason']}. It is in no index and is not "
            f"served. The person approves it with `lucasrag quarantine approve '{rel}' --workspace "
            f"{row.get('suggestion') or 'WORKSPACE'}` (the router's best guess: {row.get('suggestion')})."
        )
    if row["status"] == "private":  # private at the last ingest, and no longer: not re-read yet
        raise NoteRefused(f"'{rel}' is not ingested yet: run `lucasrag ingest` (or serve with --watch)")
    if row["status"] != "indexed":
        raise NoteRefused(f"'{rel}' is not a valid note, so it is not indexed: {row['reason']}")
    return row


def _notice(subjects: Sequence[str], path: str, count: int) -> str:
    names = ", ".join(subjects)
    bridge = json.dumps(list(subjects), ensure_ascii=False)
    return (
        f"[{count} passage{'s' if count != 1 else ''} about {names} withheld out of care. Only if the person "
        f"asks about {names}: read_note(path={json.dumps(path, ensure_ascii=False)}, bridge={bridge}).]"
    )


def read_note(settings: Settings, path: str, bridge: Sequence[str] = ()) -> dict:
    """The note at ``path`` as indexed, charged passages withheld unless bridged (see module doc)."""
    rel = vault_relative(path)
    if private_now(settings.vault.resolve(), rel.as_posix(), max_bytes=settings.max_note_bytes):
        raise NoteRefused(_not_served(path.strip()))
    row = _row(settings, rel)
    store = open_chunk_store(settings, row["workspace"])
    try:
        records = sorted(store.get(store.chunk_ids_of([doc_id(rel.as_posix())])).values(), key=lambda r: r.chunk_index)
    finally:
        store.close()
    if not records:
        raise NoteRefused(f"'{rel}' is catalogued but its passages are not in the index: run `lucasrag ingest`")
    subjects = load_deference(settings.vault)
    passages: list[dict] = []
    withheld_total, hints = 0, {}
    for record in records:
        # The band gate is not asked (the note was named); care is, passage by passage.
        candidate = replace(Candidate.from_record(record), band="present")
        outcome = apply_policy([candidate], temporal=_NOT_TEMPORAL, subjects=subjects, bridge=bridge)
        if outcome.kept:
            passages.append({"index": record.chunk_index, "text": record.text})
            continue
        names = [h.subject for h in outcome.hints if h.kind == "deference"]
        withheld_total += 1
        for name in names:
            hints[name] = hints.get(name, 0) + 1
        last = passages[-1] if passages else None
        if last is not None and last.get("withheld") and last["subjects"] == names:
            last["count"] += 1  # consecutive passages withheld for the same subjects: one notice
        else:
            passages.append({"index": record.chunk_index, "withheld": True, "subjects": names, "count": 1})
    for p in passages:
        if p.get("withheld"):
            p["notice"] = _notice(p["subjects"], rel.as_posix(), p["count"])
    vault = settings.vault.resolve()
    try:  # as hostile as the ingest reads it: a FIFO or a symlink swapped in since is not followed
        raw = read_regular(vault, vault / rel, limit=settings.max_note_bytes)
        stale = hashlib.sha256(raw).hexdigest() != records[0].content_hash
    except UnreadableEntry:
        stale = True  # deleted or replaced since the last ingest
    band = records[0].band
    return {
        "path": rel.as_posix(),
        "workspace": row["workspace"],
        "band": band,
        "archival": band == "archival",
        "date": records[0].date,
        "stale": stale,
        "passages": passages,
        "withheld": withheld_total,
        "hints": [
            {
                "subject": name,
                "kind": "deference",
                "withheld": n,
                "message": _notice([name], rel.as_posix(), n).strip("[]"),
                "reach": {"tool": "read_note", "arguments": {"path": rel.as_posix(), "bridge": [name]}},
            }
            for name, n in sorted(hints.items(), key=lambda kv: kv[0].casefold())
        ],
        "text": "\n\n".join(p["notice"] if p.get("withheld") else p["text"] for p in passages),
    }
