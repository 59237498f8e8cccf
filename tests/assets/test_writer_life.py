"""The catalogue step's reading of the writer's birth year: its polars pre-filter lets through every note
``lucasrag.life.find_life`` would read."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from lucasrag_assets.assets.catalog import writer_life


@pytest.mark.parametrize(
    ("body", "properties", "born"),
    [
        ("I was born in 1990, in York.", "", 1990),
        ("Lisbon.", "born: 1987-03-02", 1987),
        ("Lisbon.", "birthday: 1986-01-09", 1986),
        ("Lisbon.", "date_of_birth: 1985-07-30", 1985),
        ("Lisbon.", "dob: 1984", 1984),
        ("Nothing about it.", "city: Lisbon", None),
    ],
    ids=["first-person", "born", "birthday", "date-of-birth", "dob", "nothing"],
)
def test_every_birth_property_reaches_the_reading(body, properties, born):
    routed = pl.DataFrame(
        {
            "path": ["about me.md"],
            "body": [body],
            "title": ["About me"],
            "aliases": [[]],
            "tags": [[]],
            "properties": [properties],
        },
        schema_overrides={"aliases": pl.List(pl.String), "tags": pl.List(pl.String)},
    )
    life = writer_life(routed, dt.date(2026, 6, 1))
    assert (life.born if life else None) == born
