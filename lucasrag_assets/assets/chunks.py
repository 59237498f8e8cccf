"""banded_chunks: routed notes cut into chunks, each with band, date and charged subjects."""

import polars as pl
from dagster import AssetExecutionContext, asset

from lucasrag import markup
from lucasrag.catalog import care_pending
from lucasrag.deference import load_deference
from lucasrag.embedding import get_embedder
from lucasrag.embedding_models import CALIBRATED_MODEL, embedding_model
from lucasrag.seen import RecentlyUsed
from lucasrag.settings import Settings
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.assets.notes import parse_key
from lucasrag_assets.memo import hashed_body, load_memo, memoised_rows, row_keys, save_memo, source_fingerprint
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules import ageing, banding, care, charged, chunk_table, chunking, dates, obsidian
from lucasrag_assets.rules.care.decisions import load_dismissals
from lucasrag_assets.rules.care.mentions import names_alternation, resolve_all, spellings
from lucasrag_assets.rules.care.model import shipped_model
from lucasrag_assets.rules.care.namesakes import WORK_WORKSPACES, workspace_namesakes
from lucasrag_assets.rules.care.unnamed import nearest_subjects
from lucasrag_assets.rules.care.vectors import vector_warning
from lucasrag_assets.rules.chunk_table import (
    CHUNK_SCHEMA,
    care_assessments,
    chunk_frame,
    chunk_memo_key,
    learned_examples,
    note_texts,
)


def _memo_keys(notes: pl.DataFrame) -> pl.Series:
    """:func:`chunk_memo_key` of each row (``content_hash``, ``path``)."""
    pairs = zip(notes["content_hash"].to_list(), notes["path"].to_list())
    return pl.Series("key", [chunk_memo_key(*pair) for pair in pairs], pl.String)


def _known_chunks(settings: Settings, notes: pl.DataFrame) -> dict[str, list[str]]:
    """The last run's chunk texts of ``notes`` (their :func:`chunk_memo_key`), where it holds them."""
    memo = load_memo(settings, "chunk_texts")
    if memo is None:
        return {}
    if "key" not in memo.columns:  # written before chunk_memo_key: texts of older rules
        return {}
    keys = _memo_keys(notes)
    same_size = memo.filter((pl.col("chunk_tokens") == settings.chunk_tokens) & pl.col("key").is_in(keys.implode()))
    return dict(zip(same_size["key"], same_size["texts"].to_list()))


def _remember_chunks(settings: Settings, frame: pl.DataFrame) -> None:
    """Keep this run's chunk texts per note (the memo ``_known_chunks`` reads): the last run's entries of the notes
    still there, and the texts of the notes it does not hold, gathered from ``frame``. Gathering every note's
    texts again took ≈ 0.3 s at 100,000 notes for a one-note change."""
    notes = frame.select("content_hash", "path").unique(maintain_order=True)
    keys = _memo_keys(notes)
    previous = load_memo(settings, "chunk_texts")
    kept = None
    if previous is not None and {"key", "texts", "chunk_tokens"} <= set(previous.columns):
        kept = previous.filter((pl.col("chunk_tokens") == settings.chunk_tokens) & pl.col("key").is_in(keys.implode()))
    new = ~keys.is_in(kept["key"].implode()) if kept is not None else pl.repeat(True, notes.height, eager=True)
    if kept is not None and kept.height == previous.height and not new.any():
        return  # the memo holds this run's notes and no other
    paths = notes.filter(new)["path"]
    per_note = (
        frame.filter(pl.col("path").is_in(paths.implode()))
        .sort("path", "chunk_index")
        .group_by("content_hash", "path", maintain_order=True)
        .agg(pl.col("text").alias("texts"))
    )
    fresh = per_note.select(
        _memo_keys(per_note),
        "texts",
        pl.lit(settings.chunk_tokens, pl.Int64).alias("chunk_tokens"),
    )
    save_memo(settings, "chunk_texts", fresh if kept is None else pl.concat([kept.select(fresh.columns), fresh]))


#: What a note's chunk rows depend on besides the settings, the deference list, its dismissals, the vault's
#: released examples and the rules' source (all in its memo key); its workspace is joined in afterwards.
CHUNK_INPUTS = (
    "path",
    "content_hash",
    "title",
    "body",
    "date",
    "declared_band",
    "declared_charged",
    "aliases",
    "tags",
    "properties",
    # what ages (rules/ageing.py, rules/banding.py): kind properties, a clipping's source, the date's source,
    # the latest updated:/modified: property
    "kinds",
    "source",
    "date_source",
    "updated",
)
#: The rules a chunk row is made by: a change to any of their source files redoes every note.
CHUNK_RULES = (chunk_table, chunking, obsidian, markup, ageing, banding, charged, dates, care)


def chunk_rows_salt(settings: Settings, subjects, vector_evidence: str) -> str:
    """Everything vault-wide a chunk row depends on: the rules' source, chunk size, archive cutoff,
    the deference list, the care model (its evidence and cuts) and the parse (a row key names a note's body by
    its content hash: ``memo.hashed_body``)."""
    rules = source_fingerprint(*CHUNK_RULES)
    cuts = (shipped_model().version, shipped_model().release_rule(True), shipped_model().release_rule(False))
    parse = parse_key(settings)
    return repr((rules, settings.chunk_tokens, settings.archive_cutoff, subjects, vector_evidence, cuts, parse))


def learned_keys(routed: pl.DataFrame, subjects, dismissed) -> pl.Series:
    """Per note, what the release step learned that can touch it: for each subject the note's text names
    (a loose, case-insensitive match: a superset of its references), the notes released for that subject
    and their bytes. A decision then redoes the notes that name its subject, not the whole vault."""
    hashes = dict(zip(routed["path"], routed["content_hash"]))
    parts = []
    for s in subjects:
        released = sorted((p, hashes.get(p, "")) for p, names in dismissed.items() if s.name in names)
        if not released:
            continue
        key = f"{s.name}={released}"
        parts.append(pl.when(_names(s)).then(pl.lit(key)).otherwise(pl.lit("")))
    if not parts:
        return pl.Series("learned", [""] * routed.height, dtype=pl.String)
    return routed.select(pl.concat_str(parts, separator="|").alias("learned"))["learned"]


def _names(subject) -> pl.Expr:
    """Whether a note's text names any spelling of ``subject`` (a loose, case-insensitive match over everything
    of the note that may name it: a superset of its references)."""
    text = pl.concat_str(
        [
            pl.col("title").fill_null(""),
            pl.col("path"),
            pl.col("aliases").list.join(" ").fill_null(""),
            pl.col("tags").list.join(" ").fill_null(""),
            pl.col("properties").fill_null(""),
            pl.col("body").fill_null(""),
        ],
        separator="\n",
    )
    return text.str.contains(rf"(?i)(?:{names_alternation(spellings(subject))})")


def vault_namesakes(routed: pl.DataFrame, subjects) -> dict[str, dict[str, tuple[str, ...]]]:
    """``care.namesakes.workspace_namesakes`` of the routed notes: only the technical notes that name a
    subject's spelling are read."""
    if not subjects or routed.is_empty():
        return {}
    names = names_alternation([n for s in subjects for n in spellings(s)])
    text = pl.concat_str([pl.col("title").fill_null(""), pl.col("body").fill_null("")], separator="\n")
    named = routed.filter(pl.col("workspace").is_in(list(WORK_WORKSPACES))).select("workspace", text.alias("text"))
    named = named.filter(pl.col("text").str.contains(rf"(?i)(?:{names})"))
    return workspace_namesakes(named.iter_rows(), subjects)


def namesake_keys(routed: pl.DataFrame, subjects, namesakes: dict[str, dict[str, tuple[str, ...]]]) -> pl.Series:
    """Per note, the namesakes its workspace gives the subjects its text names: a namesake found or lost redoes
    only the notes of that workspace that name the subject."""
    parts = []
    for s in subjects:
        for workspace, by_subject in namesakes.items():
            if s.name in by_subject:
                key = f"{s.name}@{workspace}={by_subject[s.name]}"
                there = _names(s) & (pl.col("workspace") == workspace)
                parts.append(pl.when(there).then(pl.lit(key)).otherwise(pl.lit("")))
    if not parts:
        return pl.Series("namesakes", [""] * routed.height, dtype=pl.String)
    return routed.select(pl.concat_str(parts, separator="|").alias("namesakes"))["namesakes"]


#: Per deference list and parse: whether each note (path, content hash) names any subject (the loose match of
#: :func:`_names`): a long-lived process matches only the notes it has not met (≈ 0.2 s of text at 100,000 notes).
_NAMING_SEEN: RecentlyUsed[str, pl.DataFrame] = RecentlyUsed(4)


def _naming_any(notes: pl.DataFrame, subjects, parse: str) -> pl.Series:
    """Per note of ``notes``, whether its text names any spelling of any of ``subjects`` (:func:`_names`). What a
    note's text is comes from its bytes (its content hash), its path and the parse."""
    match = pl.any_horizontal([_names(s) for s in subjects]).alias("names")
    if "content_hash" not in notes.columns:  # a frame that does not say what the notes' bytes are: matched afresh
        return notes.select(match)["names"]
    seen_as = repr((parse, subjects))
    ids = notes.select("path", "content_hash")
    seen = _NAMING_SEEN.get(seen_as)
    if seen is None:
        naming = pl.Series("names", [None] * notes.height, pl.Boolean)
    else:  # a note without a content hash (none read) matches nothing here: it is matched afresh
        naming = ids.join(seen, on=["path", "content_hash"], how="left", maintain_order="left")["names"]
    todo = naming.is_null()
    if todo.any():
        matched = notes.filter(todo).select(match)
        naming = naming.scatter(todo.arg_true(), matched["names"])
    known = ids.with_columns(naming).filter(pl.col("content_hash").is_not_null())
    _NAMING_SEEN.put(seen_as, known)  # a path is one row of ``notes`` (the routed notes)
    return naming


def vault_named_nearby(
    settings: Settings, routed: pl.DataFrame, subjects, namesakes: dict[str, dict[str, tuple[str, ...]]] | None = None
) -> dict[str, str]:
    """Per dated note, the subject the vault names nearest in time (``care.unnamed.nearest_subjects``): whom a loss
    written in it without a name is about. A subject's dates are those of the notes that refer to it by name —
    resolved as a chunk's mentions are (``mentions.resolve_all``: "olive oil" and "Dan from accounts" are not
    Olive and Dan), remembered per note in the memo ``named_subjects`` (a note is read again only when it
    changed, or the deference list, its workspace's namesakes or the rules did)."""
    if not subjects or routed.is_empty():
        return {}
    namesakes = namesakes or {}
    every = routed.filter(pl.col("date").is_not_null())
    dated = every.filter(_naming_any(every, subjects, parse_key(settings)))  # the loose match first: cheap
    if dated.is_empty():
        return {}
    by_name = {s.name: s for s in subjects}

    def named(notes: pl.DataFrame) -> pl.DataFrame:
        found = []
        for title, body, workspace in notes.select("title", "body", "workspace").iter_rows():
            contexts = resolve_all(f"{title or ''}\n{body or ''}", subjects, namesakes.get(workspace, {}))
            found.append(sorted(c.subject for c in contexts if c.mentions and c.subject in by_name))
        return pl.DataFrame({"named": found}, schema={"named": pl.List(pl.String)})

    salt = repr(
        (
            source_fingerprint(care),
            parse_key(settings),
            subjects,
            sorted((w, sorted(n.items())) for w, n in namesakes.items()),
        )
    )
    keys = row_keys(dated, hashed_body(dated, ["title", "body", "workspace"]), salt)
    rows, _ = memoised_rows(settings, "named_subjects", dated, keys, named, {"named": pl.List(pl.String)})
    subject_dates: dict[str, list] = {}
    for note_date, names in zip(dated["date"], rows["named"].to_list()):
        for name in names or ():
            subject_dates.setdefault(name, []).append(note_date)
    return nearest_subjects(every, subject_dates)


def remembered_chunk_frame(
    settings: Settings, routed: pl.DataFrame, salt: str, dismissed, compute, subjects=(), namesakes=None, nearby=None
) -> tuple[pl.DataFrame, int]:
    """``compute(notes)`` (their chunk rows) for the routed notes whose key the last run's memo does
    not hold (``salt``: :func:`chunk_rows_salt`, which names the parse the keys rely on); the others' rows come
    from the memo, with this run's workspace. Rows in ``routed``'s order, as :func:`chunk_frame` makes them.
    Returns the frame and how many notes were chunked afresh."""
    # each note's dismissed subjects, sorted ([] for most): joined by path, not built note by note
    by_path = pl.DataFrame(
        {"path": list(dismissed), "dismissed": [sorted(subjects) for subjects in dismissed.values()]},
        schema={"path": pl.String, "dismissed": pl.List(pl.String)},
    )
    keyed = routed.join(by_path, on="path", how="left", maintain_order="left").with_columns(
        pl.col("dismissed").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    )
    nearby = nearby or {}
    keyed = keyed.with_columns(
        learned_keys(routed, subjects, dismissed),
        namesake_keys(routed, subjects, namesakes or {}),
        pl.Series("nearby", [nearby.get(p, "") for p in routed["path"]], dtype=pl.String),
    )
    columns = hashed_body(keyed, [*CHUNK_INPUTS, "dismissed", "learned", "namesakes", "nearby"])
    keys = row_keys(keyed, columns, salt)
    # a note's workspace is not stored: a note that only moved keeps its rows
    stored = {c: dtype for c, dtype in CHUNK_SCHEMA.items() if c != "workspace"}
    rows, chunked = memoised_rows(
        settings, "chunk_rows", routed, keys, compute, stored, by="path", sort_within="chunk_index"
    )
    # this run's workspace, looked up on the paths alone (a join of the wide rows copied every one)
    workspace = rows.select("path").join(
        routed.select("path", "workspace"), on="path", how="left", maintain_order="left"
    )
    return rows.with_columns(workspace["workspace"]).select(list(CHUNK_SCHEMA)), chunked


@asset(
    group_name="ingest",
    description="Chunks of routed notes with band (and the rule that set it), date, charged subjects.",
)
def banded_chunks(
    context: AssetExecutionContext, lucasrag: LucasragSettings, routed_documents: pl.DataFrame
) -> pl.DataFrame:
    settings = lucasrag.get()
    # Chunk sizes are counted in MiniLM tokens and the care detector's vector weights were trained on
    # MiniLM vectors (as routing's prototypes were), whichever model the index is built with.
    # The model is loaded only when a note is chunked afresh (its tokenizer counts the tokens).
    vector_off = vector_warning(shipped_model().vector, embedding_model(CALIBRATED_MODEL).name)
    if vector_off:
        context.log.warning(vector_off)
    subjects = load_deference(settings.vault)
    dismissed = load_dismissals(settings.vault)

    def count_tokens(text: str) -> int:
        return len(get_embedder(CALIBRATED_MODEL).tokenizer.encode(text))

    # What the person released teaches the release step about the notes that name the same subject.
    labelled = routed_documents.filter(pl.col("path").is_in(list(dismissed)))
    # a bare first name in technical notes that name a namesake in full is the namesake (rules/care/namesakes.py)
    namesakes = vault_namesakes(routed_documents, subjects)
    nearby = vault_named_nearby(settings, routed_documents, subjects, namesakes)  # whom an unnamed loss is about
    salt = chunk_rows_salt(settings, subjects, vector_off or f"on ({shipped_model().vector.embedding_model})")
    cache = lucasrag.embedding_cache(CALIBRATED_MODEL)
    misses = cache.misses
    try:

        def compute(notes: pl.DataFrame) -> pl.DataFrame:
            if notes.is_empty():
                return pl.DataFrame(schema=CHUNK_SCHEMA)
            known_chunks = _known_chunks(
                settings, pl.concat([f.select("content_hash", "path") for f in (notes, labelled)])
            )
            texts = note_texts(labelled, settings, count_tokens=count_tokens, known_chunks=known_chunks)
            return chunk_frame(
                notes,
                settings,
                subjects,
                count_tokens=count_tokens,
                known_chunks=known_chunks,
                dismissed=dismissed,
                embed=None if vector_off else cache.embed_spans,
                examples=learned_examples(texts, subjects, dismissed),
                workspace_namesakes=namesakes,
                named_nearby=nearby,
            )

        frame, chunked = remembered_chunk_frame(
            settings, routed_documents, salt, dismissed, compute, subjects, namesakes, nearby
        )
        care_embedded = cache.misses - misses
    finally:
        cache.close()
    _remember_chunks(settings, frame)
    pairs = [a for (a,) in care_assessments(frame)]
    context.add_output_metadata(
        {
            "chunks": frame.height,
            "notes_chunked_afresh": chunked,  # the others' rows came from the memo (same inputs, same rules)
            **{f"chunks_{ws}": frame.filter(pl.col("workspace") == ws).height for ws in WORKSPACES},
            "archival": frame.filter(pl.col("band") == "archival").height,
            "charged": frame.filter(pl.col("charged").list.len() > 0).height,
            "care_pending_pairs": sum(care_pending(a) for a in pairs),
            "care_released_pairs": sum(a["outcome"] == "released" for a in pairs),
            "archive_cutoff": settings.archive_cutoff.isoformat(),
            "care_model": shipped_model().version,
            "care_vector_evidence": vector_off or f"on ({shipped_model().vector.embedding_model})",
            "care_texts_embedded": care_embedded,
        }
    )
    return frame
