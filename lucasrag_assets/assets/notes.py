"""vault_notes: every note file of the vault, parsed, with invalid files and their reasons."""

import json
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl
from dagster import AssetExecutionContext, MetadataValue, asset

from lucasrag.entities import entity_properties
from lucasrag.privacy import load_privacy
from lucasrag.safe_read import UnreadableEntry, regular_file, vault_relpath
from lucasrag.settings import Settings
from lucasrag.vault_files import Listing, fingerprint_of, vault_file_stats
from lucasrag_assets.assets._metadata import markdown_table
from lucasrag_assets.memo import load_memo, save_memo
from lucasrag_assets.resources import LucasragSettings
from lucasrag_assets.rules.conventions import load_conventions
from lucasrag_assets.rules.obsidian import properties_text
from lucasrag_assets.rules.vault_scan import Note, parse_note

#: Bump when parsing changes what a note becomes, so last run's memo is not reused.
#: 3: hostile-vault reading (regular files only, bounded frontmatter, non-UTF-8 names).
#: 4: the kind properties and a clipping's source address reach the router (``kinds``, ``source``).
#: 6: the latest updated:/modified: property (``updated``: a recent edit keeps a time-bound note present).
#: 7: TOML frontmatter (+++) is read: a site generator's pages (Hugo, Zola) kept as a vault.
PARSE_VERSION = 8

NOTE_SCHEMA = {
    "path": pl.String,
    "status": pl.String,
    "reason": pl.String,
    "title": pl.String,
    "body": pl.String,
    "date": pl.Date,
    "date_source": pl.String,
    "declared_workspace": pl.String,
    "declared_band": pl.String,
    "declared_charged": pl.List(pl.String),
    "tags": pl.List(pl.String),
    "content_hash": pl.String,
    "size": pl.Int64,
    "aliases": pl.List(pl.String),
    "links": pl.List(pl.String),
    "warnings": pl.List(pl.String),
    "kinds": pl.List(pl.String),
    "source": pl.String,
    #: the frontmatter's other properties as "key: value" lines (``obsidian.properties_text``): a ``people:``
    #: list or a ``with:`` property can make a note refer to a deference subject (rules/care/mentions)
    "properties": pl.String,
    "updated": pl.Date,
    #: the frontmatter the entity graph reads (title, tags, aliases, people) as JSON: the index step takes it
    #: from here rather than opening the note again
    "entity_properties": pl.String,
}


def notes_frame(notes: list[Note]) -> pl.DataFrame:
    rows = [
        {
            "path": n.path,
            "status": n.status,
            "reason": n.reason,
            "title": n.title,
            "body": n.body,
            "date": n.date,
            "date_source": n.date_source,
            "declared_workspace": n.workspace,
            "declared_band": n.band,
            "declared_charged": list(n.charged),
            "tags": [str(t) for t in n.tags],
            "content_hash": n.content_hash,
            "size": n.size,
            "aliases": list(n.aliases),
            "links": list(n.links),
            "warnings": list(n.warnings),
            "kinds": list(n.kinds),
            "source": n.source,
            "properties": properties_text(n.frontmatter) if n.frontmatter else "",
            "updated": n.updated,
            "entity_properties": json.dumps(entity_properties(n.frontmatter), ensure_ascii=False),
        }
        for n in notes
    ]
    return pl.DataFrame(rows, schema=NOTE_SCHEMA)


def parse_key(settings: Settings, conventions=None, privacy=None) -> str:
    """What a note's parse depends on besides its file's bytes: the parser, the size cap, the vault's
    settings (date order, templates folder) and private patterns. A note's ``body`` is a function of its
    ``content_hash`` and this key, so a memo keyed by both need not hash the body again."""
    conventions = conventions or load_conventions(settings.vault)
    privacy = privacy or load_privacy(settings.vault)
    return f"{PARSE_VERSION}:{settings.max_note_bytes}:{conventions.fingerprint}:{privacy.fingerprint}"


#: The listing a long-lived writer gives this process's next scans of a vault (:func:`listing_given`).
_GIVEN_LISTINGS: dict[Path, Listing] = {}


@contextmanager
def listing_given(vault: Path, listing: Listing) -> Iterator[None]:
    """Within the block, ``vault_notes`` of ``vault`` (as the run's settings spell it: resolved) in this process
    takes ``listing`` instead of listing the vault: a long-lived writer keeps it up to date from the file
    system's change events (``long_lived.ingest_kept_warm``). A step in another process lists for itself."""
    _GIVEN_LISTINGS[vault] = listing
    try:
        yield
    finally:
        _GIVEN_LISTINGS.pop(vault, None)


def scan_with_memo(settings: Settings, listing: Listing | None = None) -> tuple[pl.DataFrame, int, str]:
    """Parse every note, reusing last run's result for files whose size and mtime
    are unchanged. Returns the frame, how many files were parsed afresh and the vault's fingerprint as listed
    (``vault_files.vault_fingerprint``). ``listing``: the vault's notes as a long-lived writer keeps them
    (:func:`listing_given`); None: list the vault."""
    stats, unreadable = {}, set()
    listing = vault_file_stats(settings.vault) if listing is None else listing
    for path, st in listing:  # names, not a Path per file: most are only stat'ed
        rel, utf8 = vault_relpath(settings.vault, path)
        if not utf8:
            st = None
        elif st is None or not stat.S_ISREG(st.st_mode):  # a symlink, or not a file: regular_file says
            try:
                st = regular_file(settings.vault, path)[1]
            except UnreadableEntry:
                st = None
        if st is None:  # FIFO, symlink loop or out of the vault, odd name...: parse_note says why, every time
            unreadable.add(rel)
        stats[rel] = (path, st.st_size if st else -1, st.st_mtime_ns if st else -1, st)
    keys = pl.DataFrame(
        {"path": list(stats), "size": [s[1] for s in stats.values()], "mtime_ns": [s[2] for s in stats.values()]},
        schema={"path": pl.String, "size": pl.Int64, "mtime_ns": pl.Int64},
    )
    conventions, privacy = load_conventions(settings.vault), load_privacy(settings.vault)
    # A changed cap, parser, vault setting (date order, templates folder) or private pattern re-parses every note.
    key = parse_key(settings, conventions, privacy)
    previous = load_memo(settings, "vault_notes")
    reused = pl.DataFrame(schema={**NOTE_SCHEMA, "mtime_ns": pl.Int64})
    # A memo written by another parse version may lack columns; its parse_key differs anyway.
    if previous is not None and {"parse_key", *NOTE_SCHEMA} <= set(previous.columns):
        same_key = previous.filter(pl.col("parse_key") == key).drop("parse_key")
        reused = same_key.join(keys, on=["path", "size", "mtime_ns"], how="semi")
    reused = reused.filter(~pl.col("path").is_in(list(unreadable)))
    unchanged = set(reused["path"])  # once: built per path, it made the scan quadratic (36 s at 10,000 notes)
    todo = [stats[p] for p in keys["path"] if p not in unchanged]
    fresh = notes_frame(
        [
            parse_note(
                settings.vault,
                Path(p),
                max_bytes=settings.max_note_bytes,
                conventions=conventions,
                scanned=st,
                privacy=privacy,
            )
            for p, _, _, st in todo
        ]
    )
    fresh = fresh.join(keys.select("path", "mtime_ns"), on="path", how="left")
    frame = pl.concat([reused.select(fresh.columns), fresh]).sort("path")
    save_memo(settings, "vault_notes", frame.with_columns(pl.lit(key).alias("parse_key")))
    return frame.drop("mtime_ns"), len(todo), fingerprint_of(settings.vault, listing)


@asset(group_name="ingest", description="Every Markdown note of the vault, parsed; bad files carry a reason.")
def vault_notes(context: AssetExecutionContext, lucasrag: LucasragSettings) -> pl.DataFrame:
    settings = lucasrag.get()
    if not settings.vault.is_dir():
        raise FileNotFoundError(f"vault folder {settings.vault} does not exist (set LUCASRAG_VAULT or --vault)")
    frame, parsed, fingerprint = scan_with_memo(settings, _GIVEN_LISTINGS.get(settings.vault))
    for warning in load_conventions(settings.vault).warnings:  # e.g. a date_order that is not DMY or MDY
        context.log.warning(warning)
    invalid = frame.filter(pl.col("status") == "invalid").select("path", "reason")
    context.add_output_metadata(
        {
            "notes": len(frame),
            "parsed_afresh": parsed,
            "skipped": frame.filter(pl.col("status") == "skipped").height,
            "with_warnings": frame.filter(pl.col("warnings").list.len() > 0).height,
            "invalid": len(invalid),
            "private": frame.filter(pl.col("status") == "private").height,  # a count: their paths are no one's business
            "invalid_files": MetadataValue.md(markdown_table(invalid)),
            # what this run listed: a watcher takes it as the state it has seen (lucasrag.vault_watch)
            "vault_fingerprint": fingerprint,
        }
    )
    return frame
