"""A caller's filters (§3.7): ``after``, ``before``, ``folders``, ``tags`` — one meaning for ``query()``, the CLI
and the MCP ``search`` tool.

* ``after`` / ``before``: an ISO date (``2019-04-01``) or a period the temporal parser reads ("2019",
  "April 2024", "last summer"). Both bounds include the period they name: ``after="2019"`` admits notes
  dated 2019-01-01 or later, ``before="2019"`` notes dated up to 2019-12-31. A note without a date is not
  admitted by a date filter. The range is an explicit period: it opens the archive for itself only, exactly
  as a period in the query's text does.
* ``folders``: vault-relative folder prefixes (``journal`` admits ``journal/…`` and ``journal/2024/…``).
* ``tags``: a note's tags (from the last ingest's catalogue), case-insensitive, a leading ``#`` optional; a
  tag admits its nested tags too (``travel`` admits ``travel/lisbon``).

Several values of one filter are alternatives; different filters must all hold. A filter narrows what
the policy sees: it never lifts a withholding (care) and never reaches a private note.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lucasrag.vault_files import folder_of
from lucasrag_query.temporal import detect_temporal


class FilterError(ValueError):
    """A filter value that cannot be used; the message says what was expected."""


@dataclass(frozen=True)
class Filters:
    after: dt.date | None = None
    before: dt.date | None = None
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    given: dict = field(default_factory=dict, compare=False)  # the caller's values, echoed in the result

    @property
    def active(self) -> bool:
        return bool(self.after or self.before or self.folders or self.tags)

    @property
    def period(self) -> tuple[dt.date, dt.date] | None:
        """The date range of ``after``/``before`` (None without either)."""
        if self.after is None and self.before is None:
            return None
        return self.after or dt.date.min, self.before or dt.date.max

    @property
    def iso_period(self) -> tuple[str, str] | None:
        """:attr:`period` as ISO bounds the stores compare as text (an open end: the widest date)."""
        if (span := self.period) is None:
            return None
        return _bound(span[0]) or "0000-01-01", _bound(span[1]) or "9999-12-31"

    def admits(self, path: str, date: str | None, tags_of: Callable[[str], Sequence[str]]) -> list[str] | None:
        """Why each filter admits the note at ``path`` (dated ``date``, ISO), or None if one does not."""
        why = []
        if (span := self.period) is not None:
            if not date or not (span[0].isoformat() <= date[:10] <= span[1].isoformat()):
                return None
            why.append(f"dated {date[:10]}, within {_span_text(span)}")
        if self.folders:
            folder = folder_of(path, self.folders)
            if folder is None:
                return None
            why.append(f"in folder {folder}/")
        if self.tags:
            own = [t.lower().lstrip("#") for t in tags_of(path)]
            tag = next((t for t in self.tags for o in own if o == t or o.startswith(t + "/")), None)
            if tag is None:
                return None
            why.append(f"tagged #{tag}")
        return why

    def to_dict(self) -> dict:
        out = dict(self.given)
        if (span := self.period) is not None:
            out["dates"] = {"from": _bound(span[0]), "to": _bound(span[1])}
        return out


def _bound(day: dt.date) -> str | None:
    return None if day in (dt.date.min, dt.date.max) else day.isoformat()


def _span_text(span: tuple[dt.date, dt.date]) -> str:
    start, end = _bound(span[0]), _bound(span[1])
    return f"{start or 'the beginning'}..{end or 'now'}"


def _bound_period(name: str, value: str, now: dt.date) -> tuple[dt.date, dt.date]:
    text = value.strip()
    try:
        day = dt.date.fromisoformat(text)
        return day, day
    except ValueError:
        pass
    periods = detect_temporal(text, now=now).periods if text else ()
    if len(periods) != 1:
        raise FilterError(
            f"{name}={value!r}: expected an ISO date (2019-04-01) or one period such as '2019', 'April 2024' or "
            "'last summer'"
        )
    return periods[0]


def _words(name: str, values: Sequence[str] | str | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    out = []
    for value in values:
        if not isinstance(value, str) or not value.strip().strip("/#"):
            raise FilterError(f"{name}: expected non-empty strings, got {value!r}")
        out.append(value)
    return tuple(out)


def parse_filters(
    *,
    after: str | dt.date | None = None,
    before: str | dt.date | None = None,
    folders: Sequence[str] | str | None = None,
    tags: Sequence[str] | str | None = None,
    now: dt.date,
) -> Filters:
    """The filters of a query, checked; :class:`FilterError` names the bad value and what was expected."""
    given: dict = {}
    start = end = None
    if after is not None and after != "":
        given["after"] = str(after)
        start = after if isinstance(after, dt.date) else _bound_period("after", after, now)[0]
    if before is not None and before != "":
        given["before"] = str(before)
        end = before if isinstance(before, dt.date) else _bound_period("before", before, now)[1]
    if start and end and start > end:
        raise FilterError(f"after={given['after']!r} is later than before={given['before']!r}: nothing can match")
    folder_values = _words("folders", folders)
    tag_values = _words("tags", tags)
    if folder_values:
        given["folders"] = list(folder_values)
    if tag_values:
        given["tags"] = list(tag_values)
    return Filters(
        after=start,
        before=end,
        folders=tuple(dict.fromkeys(f.strip().strip("/") for f in folder_values)),
        tags=tuple(dict.fromkeys(t.strip().lstrip("#").strip("/").lower() for t in tag_values)),
        given=given,
    )
