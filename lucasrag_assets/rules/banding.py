"""Temporal banding at ingestion (architecture §3.3). Pure functions, no Dagster."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from lucasrag.vocabulary import BANDS

#: Content cues for undated notes: (regex, band, why). Matched case-insensitively.
#: Only consulted when neither frontmatter nor a date decides, so the table can be
#: a little greedy: a dated diary entry saying "these days" is banded by its date.
CONTENT_CUES: tuple[tuple[str, str, str], ...] = (
    (r"\bwhen i was (?:a kid|a child|little|young|small|a boy|a girl|\d{1,2})\b", "archival", "childhood memory"),
    (r"\bas a (?:kid|child|boy|girl|teenager|teen)\b", "archival", "childhood memory"),
    (r"\bgrowing up\b", "archival", "childhood memory"),
    (r"\bin my (?:childhood|youth|teens|twenties)\b", "archival", "looking back"),
    (r"\bback then\b", "archival", "looking back"),
    (r"\bback in (?:the day|(?:19|20)\d\d)\b", "archival", "looking back"),
    (r"\bin those days\b", "archival", "looking back"),
    (r"\bused to live\b", "archival", "former home"),
    (r"\byears ago\b", "archival", "distant past"),
    (r"\bat school we\b", "archival", "school days"),
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
    rule: str  # one of vocabulary.BandRule: frontmatter, date, content, default


def _matches(text: str) -> list[tuple[int, str, str, str]]:
    """Every cue occurrence as (offset, band, matched text, why), in text order."""
    hits = [(m.start(), band, m.group(0), why) for rx, band, why in _COMPILED for m in rx.finditer(text)]
    return sorted(hits)


def explain_cues(text: str) -> list[str]:
    """Human-readable list of the cues that fired, e.g. ``archival: 'growing up' (childhood memory)``."""
    return [f"{band}: {matched!r} ({why})" for _, band, matched, why in _matches(text)]


def infer_band(text: str) -> str | None:
    """The band the content suggests, or None when the cues don't clearly lean one way."""
    hits = _matches(text)
    archival = sum(1 for h in hits if h[1] == "archival")
    present = len(hits) - archival
    if archival > present:
        return "archival"
    if present > archival:
        return "present"
    return None  # no cues, or a tie: content is no evidence either way


def decide_band(*, declared_band: str | None, note_date: dt.date | None, text: str, cutoff: dt.date) -> BandDecision:
    """Band by authority: frontmatter > date (before ``cutoff`` → archival) > content > present."""
    if declared_band is not None:
        if declared_band not in BANDS:
            raise ValueError(f"unknown band {declared_band!r}: expected one of {', '.join(BANDS)}")
        return BandDecision(declared_band, "frontmatter")
    if note_date is not None:
        return BandDecision("archival" if note_date < cutoff else "present", "date")
    inferred = infer_band(text)
    if inferred is not None:
        return BandDecision(inferred, "content")
    return BandDecision("present", "default")
