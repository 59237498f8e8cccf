"""The writer's own timeline: the year they were born, so that an undated childhood memory has a place in time.

"What was I doing in the 90s?" names a decade; a note called "Growing up" names no year at all, yet for a
writer born in 1990 it is about exactly that decade. The ingest reads the birth year from what the person
wrote about themselves and keeps it in ``catalog/life.json``; a query that names a period then places an
undated childhood memory in the writer's childhood (born … born + 17) — for the archive's period gate and
for time fit alike (``lucasrag_query.policy``).

Evidence, strongest first (a different year in two places of one strength: no year, nothing is placed):

1. a first-person statement anywhere: "I was born in 1990", "I was born on 14 May 1990";
2. a note about the writer (its title, file name or tags: "about me", "facts about me", "profile", "bio"):
   its first "born … 1990" ("- **Name:** Lucas Hale, born 14 May 1990 in York"), or a ``born:`` /
   ``birthday:`` / ``date_of_birth:`` property.

Plain functions; the write side finds the year, the read side only reads the file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from lucasrag.settings import Settings

#: What a childhood memory says of itself, as (regex, why) rows matched case-insensitively. The banding
#: rules count each row as one content cue (``lucasrag_assets.rules.banding.CONTENT_CUES``); here any of
#: them marks a passage as a childhood memory.
CHILDHOOD_CUES: tuple[tuple[str, str], ...] = (
    (r"\bwhen i was (?:a kid|a child|little|young|small|a boy|a girl|\d{1,2})\b", "childhood memory"),
    (r"\bas a (?:kid|child|boy|girl|teenager|teen)\b", "childhood memory"),
    (r"\bwhen we were (?:kids|children|little|young|small|teenagers)\b", "childhood memory"),
    (r"\bas (?:kids|children|teenagers)\b", "childhood memory"),
    (r"\bgrowing up\b", "childhood memory"),
    (r"\bmy (?:childhood|boyhood|girlhood)\b", "childhood memory"),
)
SCHOOL_CUE: tuple[str, str] = (r"\b(?:at school we|(?:primary|junior|infant|grammar|nursery) school)\b", "school days")
CHILDHOOD = re.compile("|".join(rx for rx, _ in (*CHILDHOOD_CUES, SCHOOL_CUE)), re.IGNORECASE)
#: Years of childhood counted from the birth year (born … born + 17).
CHILDHOOD_YEARS = 18

_YEAR = r"(1[89]\d\d|20\d\d)"
_FIRST_PERSON = re.compile(rf"\bI was born\b[^.\n]{{0,40}}?\b{_YEAR}\b", re.IGNORECASE)
_BORN = re.compile(rf"\bborn\b[^.\n]{{0,30}}?\b{_YEAR}\b", re.IGNORECASE)
_BORN_PROPERTY = re.compile(
    rf"^\s*(?:born|birthday|birth_?date|date_of_birth|dob)\s*:\s*[^\n]*?\b{_YEAR}\b", re.I | re.M
)
_ABOUT_ME = re.compile(
    r"^(?:about[ _-]?me|facts about me|me|myself|profile|my profile|bio|biography|who i am|personal facts)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Life:
    born: int
    evidence: str  # "personal/facts.md: 'born 14 May 1990'"

    @property
    def childhood(self) -> tuple[dt.date, dt.date]:
        return dt.date(self.born, 1, 1), dt.date(self.born + CHILDHOOD_YEARS - 1, 12, 31)


def is_childhood_memory(text: str) -> bool:
    return CHILDHOOD.search(text) is not None


def is_about_the_writer(names: Sequence[str]) -> bool:
    """Whether a note's title, file name or tags (``about-me``, ``facts/about-me``) say it is about the writer."""
    return any(_ABOUT_ME.match(re.sub(r"[_-]+", " ", part).strip()) for n in names for part in n.split("/"))


def _first_year(rx: re.Pattern[str], text: str, now_year: int) -> tuple[int, str] | None:
    for m in rx.finditer(text):
        year = int(m.group(1))
        if year <= now_year:
            return year, m.group(0).strip()
    return None


def find_life(notes: Iterable[tuple[str, str, Sequence[str]]], now: dt.date) -> Life | None:
    """The writer's birth year from ``(path, text, names)`` of the indexed notes (names: title, file name,
    tags, property lines), or None when nothing says it or two places disagree (see the module doc)."""
    first_person: dict[int, str] = {}
    about_me: dict[int, str] = {}
    for path, text, names in notes:
        if (found := _first_year(_FIRST_PERSON, text, now.year)) is not None:
            first_person.setdefault(found[0], f"{path}: {found[1]!r}")
        if is_about_the_writer(names):
            props = "\n".join(names)
            found = _first_year(_BORN_PROPERTY, props, now.year) or _first_year(_BORN, text, now.year)
            if found is not None:
                about_me.setdefault(found[0], f"{path}: {found[1]!r}")
    for evidence in (first_person, about_me):
        if len(evidence) == 1:
            ((born, where),) = evidence.items()
            return Life(born, where)
        if evidence:
            return None  # two years in evidence of one strength: placing memories by either would be a guess
    return None


def life_path(settings: Settings) -> Path:
    return settings.data / "catalog" / "life.json"


def write_life(settings: Settings, life: Life | None) -> None:
    path = life_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(life) if life else {}, ensure_ascii=False))
    tmp.replace(path)


def read_life(settings: Settings) -> Life | None:
    """The last ingest's reading, or None (none found, no ingest yet, or an unreadable file)."""
    try:
        data = json.loads(life_path(settings).read_text())
        return Life(int(data["born"]), str(data["evidence"])) if data else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


__all__ = [
    "CHILDHOOD",
    "CHILDHOOD_CUES",
    "CHILDHOOD_YEARS",
    "SCHOOL_CUE",
    "Life",
    "find_life",
    "is_about_the_writer",
    "is_childhood_memory",
    "life_path",
    "read_life",
    "write_life",
]
