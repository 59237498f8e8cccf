"""Routed notes' wikilinks without those that reach a private note: the same frame with or without the shortcut
taken when the vault has no private note."""

from __future__ import annotations

import polars as pl
import pytest

from lucasrag_assets.assets.routing import without_private_links

ROUTED = pl.DataFrame(
    {"path": ["a.md", "b.md", "c.md"], "links": [["therapy notes", "Plans|plans"], None, ["journal/therapy notes#x"]]},
    schema={"path": pl.String, "links": pl.List(pl.String)},
)


@pytest.mark.parametrize(
    ("statuses", "links", "private_links"),
    [
        (
            {"therapy notes.md": "indexed"},
            [["therapy notes", "Plans|plans"], [], ["journal/therapy notes#x"]],
            [[], [], []],
        ),
        (
            {"journal/therapy notes.md": "private"},
            [["Plans|plans"], [], []],
            [["therapy notes"], [], ["journal/therapy notes#x"]],
        ),
    ],
    ids=["no-private-note", "a-private-note"],
)
def test_links_to_a_private_note_are_set_apart(statuses, links, private_links):
    notes = pl.DataFrame({"path": list(statuses), "status": list(statuses.values())})
    out = without_private_links(ROUTED, notes)
    assert out["links"].to_list() == links and out["private_links"].to_list() == private_links
    assert out.schema["links"] == out.schema["private_links"] == pl.List(pl.String)
