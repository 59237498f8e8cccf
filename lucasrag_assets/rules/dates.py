"""Dates as people write them: frontmatter values, file names, folder paths and zettel ids.

Pure functions, no Dagster. A value that cannot be read never makes a note invalid:
:func:`read_date` returns ``None`` with a warning, and the note is undated.

Numeric forms are read by the regular expressions below, so that the day/month order
is never guessed: ``04.03.2021`` is ambiguous and needs the vault's ``date_order``
setting (``<vault>/.lucasrag/vault.yaml``, ``DMY`` or ``MDY``); without it the value is
left undated with a warning that names the setting. A form that only one order can
read (``25.03.2021``) is read that way. Forms with a month name (``Jan 1, 2025``,
``4 March 2021``) go to python-dateutil (about 60 µs a value), whose reading of a
named month is unambiguous.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from dateutil import parser as dateutil_parser

from lucasrag.markup import single_link

DateOrder = Literal["DMY", "MDY"]
DATE_ORDERS: tuple[str, ...] = ("DMY", "MDY")
Precision = Literal["day", "month", "year"]

#: Frontmatter keys that date a note, most authoritative first (matched case-insensitively).
#: ``date`` is when the note is about; created-style keys say when it was written;
#: updated-style keys are a last resort (a late edit of an old note still dates it late).
DATE_KEYS: tuple[str, ...] = (
    "date",
    "created",
    "created_at",
    "createdat",
    "creation_date",
    "date_created",
    "datecreated",
    "created_on",
    "published",
    "day",
    "start",
    "updated",
    "updated_at",
    "modified",
    "last_modified",
    "date_modified",
    "lastmod",
)

#: The keys among DATE_KEYS that say when a note was written or edited, not what moment it is about:
#: such a date ages a note only when something says the note is time-bound (rules/banding.py).
STAMP_KEYS: frozenset[str] = frozenset(
    {"created", "created_at", "createdat", "creation_date", "date_created", "datecreated", "created_on", "published"}
)
#: The keys that say when a note was last edited: a recent edit keeps a time-bound note present.
UPDATE_KEYS: tuple[str, ...] = ("updated", "updated_at", "modified", "last_modified", "date_modified", "lastmod")

_TIME = r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*(?:[AaPp][Mm]))?(?:\s*(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?)?"
# Year first is never ambiguous: 2021-03-04, 2021/3/4, 2021.03.04, optionally with a time.
_YMD = re.compile(rf"(\d{{4}})([-/.])(\d{{1,2}})\2(\d{{1,2}}){_TIME}")
_YM = re.compile(r"(\d{4})[-/.](\d{1,2})")
_YEAR = re.compile(r"(1[89]\d\d|2\d\d\d)")
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})(?:\d{2}(?:\d{2}(?:\d{2})?)?)?")  # 20210304, zettel 202103041022
# Day and month in either order, year last: 04.03.2021, 3/4/2021, 4-3-21 is not read (2-digit year).
_XYY = re.compile(rf"(\d{{1,2}})([-/.])(\d{{1,2}})\2(\d{{4}}){_TIME}")
_HAS_MONTH_NAME = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b", re.IGNORECASE)

# File and folder names.
_NAME_DATE = re.compile(r"^(\d{4})[-_.](\d{2})[-_.](\d{2})(?!\d)")
_ZETTEL = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(?:\d{2})?(?!\d)")  # 12 or 14 digits, then the title
_COMPACT_NAME = re.compile(r"^(\d{4})(\d{2})(\d{2})(?!\d)")
_YEAR_DIR = re.compile(r"^(1[89]\d\d|2\d\d\d)$")
_TWO_DIGITS = re.compile(r"^(\d{1,2})(?:[-_ ].*)?$")  # "03" or "03-March"


@dataclass(frozen=True)
class DateReading:
    """One successful reading, or ``date`` None with the ``warning`` that says why."""

    date: dt.date | None
    source: str | None = None  # "frontmatter:<key>", "filename", "zettel-id", "folder"
    precision: Precision = "day"
    warning: str | None = None


def _day(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _flatten(value: object) -> object:
    # ``date: [[2021-03-04]]`` unquoted is YAML for a list holding a list.
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value


def parse_date_value(value: object, *, order: DateOrder | None = None) -> tuple[dt.date, Precision]:
    """Read one frontmatter value; raises ``ValueError`` with a readable reason."""
    value = _flatten(value)
    if isinstance(value, dt.datetime):
        return value.date(), "day"
    if isinstance(value, dt.date):
        return value, "day"
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict, float)):
        raise ValueError("not a date")
    text = str(value).strip().strip("\"'").strip()
    if (linked := single_link(text)) is not None:  # a link to a daily note
        text = linked
    if (m := _YMD.fullmatch(text)) is not None:
        day = _day(int(m.group(1)), int(m.group(3)), int(m.group(4)))
        if day is None:
            raise ValueError("not a real day")
        return day, "day"
    if (m := _COMPACT.fullmatch(text)) is not None:
        day = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day is None:
            raise ValueError("not a real day")
        return day, "day"
    if (m := _YM.fullmatch(text)) is not None:
        day = _day(int(m.group(1)), int(m.group(2)), 1)
        if day is None:
            raise ValueError("not a real month")
        return day, "month"
    if _YEAR.fullmatch(text):
        return dt.date(int(text), 1, 1), "year"
    if (m := _XYY.fullmatch(text)) is not None:
        return _day_month(int(m.group(1)), int(m.group(3)), int(m.group(4)), order), "day"
    if _HAS_MONTH_NAME.search(text):
        try:
            parsed = dateutil_parser.parse(text, default=dt.datetime(1, 1, 1))
        except (ValueError, OverflowError):
            raise ValueError("a month name, but not a date dateutil can read") from None
        if parsed.year == 1:
            raise ValueError("no year")
        has_day = bool(re.search(r"(?<![\d:])\d{1,2}(?:st|nd|rd|th)?(?![\d:])", text))
        return parsed.date(), "day" if has_day else "month"
    raise ValueError("not a date form LucasRAG reads (see docs/vaults.md)")


def _day_month(a: int, b: int, year: int, order: DateOrder | None) -> dt.date:
    dmy, mdy = _day(year, b, a), _day(year, a, b)
    if dmy is None and mdy is None:
        raise ValueError("not a real day in either order")
    if dmy is not None and mdy is not None and dmy != mdy:
        if order is None:
            raise ValueError(
                "day and month could be either way round; set date_order: DMY or MDY in .lucasrag/vault.yaml"
            )
        return dmy if order == "DMY" else mdy
    return dmy or mdy  # type: ignore[return-value]  # only one order reads it: not a guess


def frontmatter_date(
    meta: Mapping[str, object], *, order: DateOrder | None = None, keys: tuple[str, ...] = DATE_KEYS
) -> DateReading:
    """The first of ``keys`` that reads, in :data:`DATE_KEYS` order. Unreadable keys warn."""
    by_key = {str(k).strip().lower(): k for k in meta}
    warnings: list[str] = []
    for key in keys:
        original = by_key.get(key)
        if original is None:
            continue
        value = meta[original]
        if value is None or (isinstance(value, str) and not value.strip()):
            continue  # left blank by a template: not set
        try:
            day, precision = parse_date_value(value, order=order)
        except ValueError as exc:
            warnings.append(f"{original}: {value!r} is not a readable date ({exc})")
            continue
        return DateReading(day, f"frontmatter:{original}", precision, "; ".join(warnings) or None)
    return DateReading(None, None, warning="; ".join(warnings) or None)


def is_stamp(source: str | None) -> bool:
    """Whether a date read from ``source`` (``DateReading.source``) only stamps when the note was
    written (``created:``, ``published:``, an edit date, a zettel id) rather than naming its moment."""
    if source == "zettel-id":
        return True
    key = (source or "").removeprefix("frontmatter:").strip().lower()
    return (source or "").startswith("frontmatter:") and (key in STAMP_KEYS or key in UPDATE_KEYS)


def updated_date(meta: Mapping[str, object], *, order: DateOrder | None = None) -> dt.date | None:
    """The latest readable edit date among UPDATE_KEYS, or None (unreadable values are ignored here:
    frontmatter_date already warns about them when they date the note)."""
    by_key = {str(k).strip().lower(): v for k, v in meta.items()}
    days = []
    for key in UPDATE_KEYS:
        try:
            days.append(parse_date_value(by_key[key], order=order)[0])
        except (KeyError, ValueError):
            continue
    return max(days, default=None)


def name_date(name: str) -> DateReading:
    """A date at the start of a file name: ``2021-03-04 …``, ``20210304 …`` or a zettel id."""
    if (m := _NAME_DATE.match(name)) is not None:
        day = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return DateReading(day, "filename") if day else DateReading(None)
    if (m := _ZETTEL.match(name)) is not None:
        day = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if day and int(m.group(4)) < 24 and int(m.group(5)) < 60:
            return DateReading(day, "zettel-id")
        return DateReading(None)
    if (m := _COMPACT_NAME.match(name)) is not None:
        day = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return DateReading(day, "filename") if day else DateReading(None)
    return DateReading(None)


def folder_date(folders: tuple[str, ...]) -> DateReading:
    """``2021/03/04/…`` (or ``2021/03/…``, month precision) in the folder path, innermost run wins.

    A single year folder (``Journal/2021/``) is too coarse to band by and is not read.
    """
    for i in range(len(folders) - 2, -1, -1):
        if not _YEAR_DIR.match(folders[i]):
            continue
        month = _TWO_DIGITS.match(folders[i + 1])
        if month is None or not 1 <= int(month.group(1)) <= 12:
            continue
        year, mon = int(folders[i]), int(month.group(1))
        if i + 2 < len(folders) and (day_m := _TWO_DIGITS.match(folders[i + 2])) is not None:
            if (day := _day(year, mon, int(day_m.group(1)))) is not None:
                return DateReading(day, "folder")
        return DateReading(dt.date(year, mon, 1), "folder", "month")
    return DateReading(None)


def note_date(meta: Mapping[str, object], rel_path: str, *, order: DateOrder | None = None) -> DateReading:
    """A note's date by authority: frontmatter keys > file name / zettel id > folder path > an edit date
    (``updated:``, ``modified:``: when it was last touched, not when it was written; rules/banding.py
    reads it separately as a recent edit).

    An unreadable frontmatter date falls through to the next source and keeps its warning.
    """
    parts = tuple(rel_path.split("/"))
    found = frontmatter_date(meta, order=order, keys=tuple(k for k in DATE_KEYS if k not in UPDATE_KEYS))
    if found.date is not None:
        return found
    edited = frontmatter_date(meta, order=order, keys=UPDATE_KEYS)
    warning = "; ".join(w for w in (found.warning, edited.warning) if w) or None
    for reading in (name_date(parts[-1]), folder_date(parts[:-1]), edited):
        if reading.date is not None:
            return DateReading(reading.date, reading.source, reading.precision, warning)
    return DateReading(None, None, warning=warning)
