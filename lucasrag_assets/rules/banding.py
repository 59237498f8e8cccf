"""Temporal banding at ingestion (architecture §3.3). Pure functions, no Dagster.

Authority, highest first: the note's ``band:`` property > what the note is (rules/ageing.py): a
timeless note (a reference, a clipping, a recipe, a concept note) stays present; a time-bound one
(a diary entry, a meeting) ages by its date, or by a later ``updated:``/``modified:`` property >
a date that names the note's moment (``date:``, a dated file name) ages a note nothing else speaks
for; a date that only stamps when it was written (``created:``) does not > the content's cues
(CONTENT_CUES) > present. Every decision carries a one-line reason for ``lucasrag notes --json``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lucasrag.life import CHILDHOOD_CUES, SCHOOL_CUE
from lucasrag.vocabulary import BANDS
from lucasrag_assets.rules.ageing import Ageing
from lucasrag_assets.rules.dates import is_stamp

#: Content cues for undated notes: (regex, band, why). Matched case-insensitively.
#: Only consulted when neither frontmatter nor a date decides, so the table can be
#: a little greedy: a dated diary entry saying "these days" is banded by its date.
CONTENT_CUES: tuple[tuple[str, str, str], ...] = (
    *((rx, "archival", why) for rx, why in CHILDHOOD_CUES),
    (r"\bin my (?:youth|teens|twenties)\b", "archival", "looking back"),
    (r"\bback then\b", "archival", "looking back"),
    (r"\bback in (?:the day|(?:19|20)\d\d)\b", "archival", "looking back"),
    (r"\bin those days\b", "archival", "looking back"),
    (r"\bused to live\b", "archival", "former home"),
    (r"\b(?:we|i) lived (?:in|on|at|near|by|above)\b", "archival", "former home"),
    (r"\byears ago\b", "archival", "distant past"),
    (SCHOOL_CUE[0], "archival", SCHOOL_CUE[1]),
    (r"\bcurrently\b", "present", "present tense marker"),
    (r"\bthese days\b", "present", "present tense marker"),
    (r"\bright now\b", "present", "present tense marker"),
    (r"\bnowadays\b", "present", "present tense marker"),
    (r"\bthis week\b", "present", "present tense marker"),
    (r"\bat the moment\b", "present", "present tense marker"),
)

_COMPILED = tuple((re.compile(rx, re.IGNORECASE), band, why) for rx, band, why in CONTENT_CUES)


@dataclass(frozen=True)
class BandDecision:
    band: str  # one of vocabulary.BANDS
    rule: str  # one of vocabulary.BandRule: frontmatter, timeless, date, content, default
    reason: str = field(default="", compare=False)  # why, in a line (``lucasrag notes --json``: ``band_reason``)


def _matches(text: str) -> list[tuple[int, str, str, str]]:
    """Every cue occurrence as (offset, band, matched text, why), in text order."""
    hits = [(m.start(), band, m.group(0), why) for rx, band, why in _COMPILED for m in rx.finditer(text)]
    return sorted(hits)


def explain_cues(text: str) -> list[str]:
    """Human-readable list of the cues that fired, e.g. ``archival: 'growing up' (childhood memory)``."""
    return [f"{band}: {matched!r} ({why})" for _, band, matched, why in _matches(text)]


#: The minimum evidence for banding an undated note archival from its content: at least this many
#: independent archival cues (different rows of CONTENT_CUES: "growing up" twice is one cue), or one
#: cue and a mention of a year before the archival cutoff. One stray phrase is not enough ("when I was
#: growing up" in a recipe clipping stays present). Present needs one cue: it is the default anyway.
MIN_ARCHIVAL_CUES = 2
_YEAR = re.compile(r"(?<![\d£$€.,/-])(1[89]\d\d|20\d\d)(?![\d%])")


def past_years(text: str, cutoff: dt.date) -> list[int]:
    """Years mentioned in ``text`` that lie before the archival cutoff's year."""
    return sorted({int(y) for y in _YEAR.findall(text) if int(y) < cutoff.year})


#: Folders whose notes are kept memories: a cue like one in the text ("personal/memories/haxby.md").
MEMORY_FOLDERS = frozenset({"memories", "memory", "memoir", "memoirs", "childhood", "recollections"})


@dataclass(frozen=True)
class ContentEvidence:
    """What an undated note's content says, inspectably (see MIN_ARCHIVAL_CUES)."""

    archival_cues: tuple[str, ...]  # the distinct archival cues that fired ("why: phrase")
    present_cues: tuple[str, ...]
    past_years: tuple[int, ...]
    band: str | None  # the verdict; None: no evidence either way
    title_cue: str = ""  # an archival cue in the note's title: the note is about that time, which decides


def _title_cue(title: str) -> str:
    for rx, band, why in _COMPILED:
        if band == "archival" and (m := rx.search(title)) is not None:
            return f"its title: {why}: {m.group(0).lower()!r}"
    return ""


def content_evidence(
    text: str, cutoff: dt.date | None = None, *, title: str = "", folders: Sequence[str] = ()
) -> ContentEvidence:
    """Distinct cues per band (a table row counts once however often it fires), past years, verdict.

    ``title`` (the note's title or file name): an archival cue there decides alone — a note called
    "Growing up" is about growing up, where the same phrase in a recipe's story is an aside.
    ``folders``: a folder of kept memories (MEMORY_FOLDERS) counts as one archival cue.
    """
    fired: dict[str, dict[object, str]] = {"archival": {}, "present": {}}
    for row, (rx, band, why) in enumerate(_COMPILED):
        if (m := rx.search(text)) is not None:
            fired[band][row] = f"{why}: {m.group(0).lower()!r}"
    if memory := next((f for f in folders if f.lower() in MEMORY_FOLDERS), None):
        fired["archival"]["folder"] = f"kept memory: folder {memory!r}"
    title_cue = _title_cue(title)
    archival, present = tuple(fired["archival"].values()), tuple(fired["present"].values())
    years = tuple(past_years(text, cutoff)) if cutoff is not None else ()
    enough = bool(title_cue) or len(archival) >= MIN_ARCHIVAL_CUES or (len(archival) >= 1 and bool(years))
    archival = (title_cue, *archival) if title_cue else archival  # the deciding cue names the reason first
    if enough and (title_cue or len(archival) > len(present)):
        band = "archival"
    elif len(present) > len(archival):
        band = "present"
    else:
        band = None
    return ContentEvidence(archival, present, years, band, title_cue)


def infer_band(text: str, cutoff: dt.date | None = None) -> str | None:
    """The band the content suggests, or None when it is no evidence either way (see MIN_ARCHIVAL_CUES)."""
    return content_evidence(text, cutoff).band


UNKNOWN = Ageing("unknown", "")


def _aged(note_date: dt.date, updated: dt.date | None, cutoff: dt.date, why: str) -> BandDecision:
    if note_date >= cutoff:
        return BandDecision("present", "date", f"{why}, dated {note_date}: after the archive cutoff {cutoff}")
    if updated is not None and updated >= cutoff:
        return BandDecision(
            "present", "date", f"{why}, dated {note_date} but updated {updated}: after the cutoff {cutoff}"
        )
    return BandDecision("archival", "date", f"{why}, dated {note_date}: before the archive cutoff {cutoff}")


def decide_band(
    *,
    declared_band: str | None,
    note_date: dt.date | None,
    text: str,
    cutoff: dt.date,
    ageing: Ageing = UNKNOWN,
    date_source: str | None = None,
    updated: dt.date | None = None,
    title: str = "",
    folders: Sequence[str] = (),
) -> BandDecision:
    """Band by authority (see the module docstring). ``ageing``: what the note is (rules/ageing.py);
    ``date_source``: where ``note_date`` was read (``DateReading.source``); ``updated``: its latest
    ``updated:``/``modified:`` property; ``title``, ``folders``: see :func:`content_evidence`."""
    if declared_band is not None:
        if declared_band not in BANDS:
            raise ValueError(f"unknown band {declared_band!r}: expected one of {', '.join(BANDS)}")
        return BandDecision(declared_band, "frontmatter", f"its band: property says {declared_band}")
    if ageing.kind == "timeless":
        return BandDecision("present", "timeless", f"timeless ({ageing.evidence}): does not age")
    if note_date is not None and ageing.kind == "time-bound":
        return _aged(note_date, updated, cutoff, f"time-bound ({ageing.evidence})")
    if note_date is not None and not is_stamp(date_source):
        return _aged(note_date, updated, cutoff, f"dated by {date_source or 'its date'}")
    evidence = content_evidence(text, cutoff, title=title, folders=folders)
    if evidence.band is not None:
        cues = evidence.archival_cues if evidence.band == "archival" else evidence.present_cues
        return BandDecision(evidence.band, "content", f"its content: {'; '.join(cues)}")
    if note_date is not None:
        return BandDecision("present", "default", f"{date_source} only says when it was written; nothing says it ages")
    return BandDecision("present", "default", "undated, and nothing says it ages")
