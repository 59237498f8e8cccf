"""Dates as people write them (rules/dates.py): every form, each source, and the ambiguous cases."""

import datetime as dt

import pytest

from lucasrag_assets.rules.dates import folder_date, frontmatter_date, name_date, note_date, parse_date_value

D = dt.date

VALUES = [
    pytest.param("2021-03-04", None, D(2021, 3, 4), "day", id="iso"),
    pytest.param(D(2021, 3, 4), None, D(2021, 3, 4), "day", id="yaml-native-date"),
    pytest.param(dt.datetime(2021, 3, 4, 10, 22), None, D(2021, 3, 4), "day", id="yaml-native-datetime"),
    pytest.param("2021-03-04T10:22:33", None, D(2021, 3, 4), "day", id="iso-datetime"),
    pytest.param("2021-03-04T10:22:33Z", None, D(2021, 3, 4), "day", id="iso-datetime-z"),
    pytest.param("2021-03-04 10:22:33 +0100", None, D(2021, 3, 4), "day", id="jekyll-hugo"),
    pytest.param("2021-03-04 10:22", None, D(2021, 3, 4), "day", id="datetime-no-seconds"),
    pytest.param("2021-3-4", None, D(2021, 3, 4), "day", id="iso-unpadded"),
    pytest.param("2021/03/04", None, D(2021, 3, 4), "day", id="slashes-ymd"),
    pytest.param("2021.03.04", None, D(2021, 3, 4), "day", id="dots-ymd"),
    pytest.param(20210304, None, D(2021, 3, 4), "day", id="compact-int"),
    pytest.param("20210304", None, D(2021, 3, 4), "day", id="compact-str"),
    pytest.param("202103041022", None, D(2021, 3, 4), "day", id="zettel-timestamp"),
    pytest.param("Jan 1, 2025", None, D(2025, 1, 1), "day", id="mon-d-yyyy"),
    pytest.param("March 4, 2021", None, D(2021, 3, 4), "day", id="month-d-yyyy"),
    pytest.param("4 March 2021", None, D(2021, 3, 4), "day", id="d-month-yyyy"),
    pytest.param("Thursday, March 4th, 2021", None, D(2021, 3, 4), "day", id="weekday-ordinal"),
    pytest.param("March 2021", None, D(2021, 3, 1), "month", id="month-name-year"),
    pytest.param("[[2021-03-04]]", None, D(2021, 3, 4), "day", id="daily-note-wikilink"),
    pytest.param([["2021-03-04"]], None, D(2021, 3, 4), "day", id="daily-note-wikilink-unquoted-yaml"),
    pytest.param("[[Daily/2021-03-04|Thursday]]", None, D(2021, 3, 4), "day", id="wikilink-with-folder-alias"),
    pytest.param("2023-09", None, D(2023, 9, 1), "month", id="month-precision"),
    pytest.param(2021, None, D(2021, 1, 1), "year", id="year-only"),
    pytest.param("25.03.2021", None, D(2021, 3, 25), "day", id="dmy-only-one-order-reads"),
    pytest.param("03/25/2021", None, D(2021, 3, 25), "day", id="mdy-only-one-order-reads"),
    pytest.param("04.04.2021", None, D(2021, 4, 4), "day", id="same-either-way"),
    pytest.param("04.03.2021", "DMY", D(2021, 3, 4), "day", id="ambiguous-dmy-setting"),
    pytest.param("04.03.2021", "MDY", D(2021, 4, 3), "day", id="ambiguous-mdy-setting"),
    pytest.param("3/4/2021", "MDY", D(2021, 3, 4), "day", id="ambiguous-slashes-mdy"),
]


@pytest.mark.parametrize("value, order, day, precision", VALUES)
def test_date_forms(value, order, day, precision):
    assert parse_date_value(value, order=order) == (day, precision)


UNREADABLE = [
    pytest.param("04.03.2021", None, "set date_order: DMY or MDY", id="ambiguous-without-setting"),
    pytest.param("2021-13-01", None, "not a real day", id="month-13"),
    pytest.param("2021-02-30", None, "not a real day", id="feb-30"),
    pytest.param("last tuesday", None, "not a date form", id="words"),
    pytest.param("{{date}}", None, "not a date form", id="template-placeholder"),
    pytest.param("March 4", None, "no year", id="no-year"),
    pytest.param("31.31.2021", "DMY", "either order", id="neither-order"),
    pytest.param(True, None, "not a date", id="bool"),
    pytest.param({"a": 1}, None, "not a date", id="mapping"),
]


@pytest.mark.parametrize("value, order, fragment", UNREADABLE)
def test_unreadable_values_raise_with_a_reason(value, order, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_date_value(value, order=order)


KEYS = [
    pytest.param({"date": "2021-03-04"}, D(2021, 3, 4), "frontmatter:date", None, id="date"),
    pytest.param({"created": "Jan 1, 2025"}, D(2025, 1, 1), "frontmatter:created", None, id="created"),
    pytest.param({"Created": "2025-01-01"}, D(2025, 1, 1), "frontmatter:Created", None, id="key-case-kept"),
    pytest.param({"updated": "2024-05-06"}, D(2024, 5, 6), "frontmatter:updated", None, id="updated-last-resort"),
    pytest.param(
        {"updated": "2024-05-06", "created": "2020-01-02"}, D(2020, 1, 2), "frontmatter:created", None, id="created>upd"
    ),
    pytest.param({"date": "2020-01-02", "created": "2019-01-01"}, D(2020, 1, 2), "frontmatter:date", None, id="date>c"),
    pytest.param({"date": "soon", "created": "2019-01-01"}, D(2019, 1, 1), "frontmatter:created", "soon", id="fall"),
    pytest.param({"date": "", "created": None}, None, None, None, id="blank-is-unset"),
    pytest.param({"date": "soon"}, None, None, "date: 'soon' is not a readable date", id="unreadable-warns"),
    pytest.param({"rating": 7}, None, None, None, id="no-date-keys"),
]


@pytest.mark.parametrize("meta, day, source, warning", KEYS)
def test_frontmatter_keys(meta, day, source, warning):
    got = frontmatter_date(meta)
    assert (got.date, got.source) == (day, source)
    assert (warning is None and got.warning is None) or (warning and warning in got.warning)


NAMES = [
    pytest.param("2021-03-04.md", D(2021, 3, 4), "filename", id="daily-note"),
    pytest.param("2021-03-04 moving day.md", D(2021, 3, 4), "filename", id="date-title"),
    pytest.param("2021_03_04 x.md", D(2021, 3, 4), "filename", id="underscores"),
    pytest.param("20210304 x.md", D(2021, 3, 4), "filename", id="compact"),
    pytest.param("202103041022 Title.md", D(2021, 3, 4), "zettel-id", id="zettel-12"),
    pytest.param("20210304102233 Title.md", D(2021, 3, 4), "zettel-id", id="zettel-14"),
    pytest.param("202103049999 Title.md", None, None, id="zettel-not-a-time"),
    pytest.param("2021-02-30 x.md", None, None, id="unreal-day"),
    pytest.param("12345 Title.md", None, None, id="just-a-number"),
    pytest.param("notes 2021-03-04.md", None, None, id="not-at-start"),
]


@pytest.mark.parametrize("name, day, source", NAMES)
def test_name_dates(name, day, source):
    got = name_date(name)
    assert (got.date, got.source) == (day, source)


FOLDERS = [
    pytest.param(("journal", "2021", "03", "04"), D(2021, 3, 4), "day", id="y-m-d"),
    pytest.param(("2021", "03"), D(2021, 3, 1), "month", id="y-m"),
    pytest.param(("Journal", "2021", "03-March"), D(2021, 3, 1), "month", id="named-month-folder"),
    pytest.param(("2021",), None, None, id="year-only-too-coarse"),
    pytest.param(("2021", "13"), None, None, id="not-a-month"),
    pytest.param(("projects", "alpha"), None, None, id="no-dates"),
]


@pytest.mark.parametrize("folders, day, precision", FOLDERS)
def test_folder_dates(folders, day, precision):
    got = folder_date(folders)
    assert got.date == day
    if day:
        assert (got.source, got.precision) == ("folder", precision)


AUTHORITY = [
    pytest.param({"date": "2020-01-01"}, "2021/03/04/2019-05-05 x.md", D(2020, 1, 1), "frontmatter:date", id="fm"),
    pytest.param({}, "2021/03/04/2019-05-05 x.md", D(2019, 5, 5), "filename", id="name-beats-folder"),
    pytest.param({}, "2021/03/04/x.md", D(2021, 3, 4), "folder", id="folder"),
    pytest.param({"date": "soon"}, "2019-05-05 x.md", D(2019, 5, 5), "filename", id="bad-fm-falls-to-name"),
    pytest.param({}, "x.md", None, None, id="undated"),
]


@pytest.mark.parametrize("meta, path, day, source", AUTHORITY)
def test_note_date_authority(meta, path, day, source):
    got = note_date(meta, path)
    assert (got.date, got.source) == (day, source)
