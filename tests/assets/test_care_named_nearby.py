"""Whom a loss that names no one is about: the subject the vault refers to by name nearest in time, its notes read
as reference resolution reads them and remembered per note (assets/chunks.py ``vault_named_nearby``)."""

from __future__ import annotations

from datetime import date

import polars as pl

from lucasrag.settings import Settings
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.assets.chunks import _names, vault_named_nearby

SUBJECTS = (DeferenceSubject("Olive"), DeferenceSubject("Nora"), DeferenceSubject("the baby", ("june",)))
D = date.fromisoformat


def _routed(rows) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {"path": p, "date": d, "title": "", "body": body, "workspace": "personal", "aliases": [], "tags": []}
            | {"properties": ""}
            for p, d, body in rows
        ],
        schema={
            "path": pl.String,
            "date": pl.Date,
            "title": pl.String,
            "body": pl.String,
            "workspace": pl.String,
            "aliases": pl.List(pl.String),
            "tags": pl.List(pl.String),
            "properties": pl.String,
        },
    )


ROWS = [
    ("a.md", D("2025-03-28"), "Accounts to separate w/ Nora."),
    ("b.md", D("2026-02-15"), "We're going with June for the name."),
    ("c.md", D("2026-03-10"), "the ultrasound photo is still on the fridge"),
    ("d.md", None, "undated, names Olive"),
    ("e.md", D("2025-04-01"), "long run, 14k"),
    ("f.md", D("2026-03-09"), "Olive oil, garlic, a tin of tomatoes."),  # the word: no date for Olive
]


def test_each_dated_note_gets_the_subject_named_nearest_in_time(tmp_path):
    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=D("2026-12-06"))
    nearby = vault_named_nearby(settings, _routed(ROWS), SUBJECTS)
    assert nearby == {"a.md": "Nora", "b.md": "the baby", "c.md": "the baby", "e.md": "Nora", "f.md": "the baby"}
    assert vault_named_nearby(settings, _routed(ROWS), ()) == {}


def test_a_note_is_read_again_only_when_it_changed(tmp_path):
    settings = Settings(vault=tmp_path / "vault", data=tmp_path / "data", now=D("2026-12-06"))
    vault_named_nearby(settings, _routed(ROWS), SUBJECTS)
    memo = pl.read_parquet(next((tmp_path / "data").rglob("named_subjects*")))
    assert memo.height == 3  # the notes that name a subject's spelling and are dated (a, b, f)
    changed = [*ROWS[:5], ("f.md", D("2026-03-09"), "Walked Olive's old route.")]
    assert vault_named_nearby(settings, _routed(changed), SUBJECTS)["c.md"] == "Olive"


def test_a_long_lived_process_matches_names_again_only_for_notes_whose_bytes_changed():
    """The loose match (does a note name any subject's spelling) is kept per path and content hash: the same
    answers as matching every note, through a change that adds a name, one that removes it and a new note."""
    from lucasrag_assets.assets.chunks import _naming_any

    def hashed(rows):
        return _routed(rows).with_columns(pl.Series("content_hash", [str(hash(body)) for _, _, body in rows]))

    runs = [
        ROWS,
        [*ROWS[:4], ("e.md", D("2025-04-01"), "long run with Nora, 14k"), ROWS[5]],
        [*ROWS[:4], ROWS[4], ("f.md", D("2026-03-09"), "garlic, a tin of tomatoes"), ("g.md", None, "Olive")],
    ]
    for rows in runs:
        notes = hashed(rows)
        expected = _routed(rows).select(pl.any_horizontal([_names(s) for s in SUBJECTS]))[:, 0].to_list()
        assert _naming_any(notes, SUBJECTS, "parse").to_list() == expected
