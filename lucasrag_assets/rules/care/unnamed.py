"""A chunk that names no subject and still refers to one: by its date, or by the loss it speaks of.

Writing about a loss often names no one: "wore his watch to the farmers market … i cant make myself take it in",
"the ultrasound photo is still on the fridge. neither of us will take it down", "would have been 27 wks today".
Such a chunk has no name for reference resolution to find, and the detector's scores say nothing without one
(on everyday text that names no subject they run high for diaries and poems alike: 0.99 for "Slept badly; too much
coffee"). Two narrow kinds of evidence stand in:

* **its date**: written on the anniversary of a subject's ``since:`` and speaking of a date coming round or a
  loss (:func:`holding.holding_cue`) — that subject (:func:`anniversary_references`);
* **words of a loss** (:data:`LOSS_CUES`): an age or a day someone did not reach, "the anniversary", the first
  season without them, something of theirs the writer cannot part with, a loss named (a miscarriage, "no
  heartbeat", "passed away"). Then the chunk is withheld for the subject the vault names nearest in time
  (``named_nearby``: the subject's notes lie around the same weeks as the loss is written about), and the hint
  counts it there; with no dated note naming a subject, for every subject;
* **a poem that speaks to someone it does not name** ("you had the top because you were older"): in a vault with
  painful subjects, a poem in the second person is as often to one of them as not (on the test vaults every such
  poem was), and withholding it costs little — a poem rarely answers an everyday question. Withheld like a loss.

The words are few and specific because a chunk they match is withheld with nothing else to go on: on the
generated 1,000-note vault's 1,545 chunks that name no subject, the claire and small test vaults and the LoCoMo
conversations (7,588 texts in all) they match only passages about a death ("my grandma passed away"), none
about anything else. They recognise a loss, so they miss what they do not recognise; docs/care.md says how much.
Pure functions, no Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import polars as pl

from lucasrag.vocabulary import DeferenceSubject

from .collisions import KINSHIP
from .holding import holding_cue

_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty)"
_WOULD_HAVE = r"\bwould(?:\s+have|['’]ve)\s+"
_THEIR = r"(?:his|her|their|your|our)"
_SEASON = (
    r"(?:christmas|birthday|spring|summer|autumn|fall|winter|easter|mother['’]s day|father['’]s day|year|holiday|"
    r"new year)"
)
_GONE = r"(?:without\s+(?:him|her|them|you)|(?:you|he|she|they)['’]?re\s+not\s+here|(?:you|he|she)\s+(?:is|are)n['’]?t\s+here)"
#: (pattern, what it says, whether it points at someone by a pronoun). Case-insensitive; matched against the chunk
#: as written. A cue that points at someone is not taken when the sentence or the one before names someone
#: (:func:`someone_named_before`): "Dad finally put Biscuit's basket up. It's almost a year since he died" is the
#: dog's death, and the dog is not on the list.
LOSS_CUES: tuple[tuple[str, str, bool], ...] = (
    (
        rf"{_WOULD_HAVE}(?:been|turned)\s+(?:{_NUMBER}\s*(?:today|this year|years?\s+old|wks|weeks|months)\b"
        rf"|{_THEIR}\s+(?:\d+\w*\s+)?birthday\b)",
        "an age or a day they did not reach",
        True,
    ),
    (
        rf"{_WOULD_HAVE}been\s+{_THEIR}\s+(?:\d+\w*\s+)?(?:wedding\s+)?anniversary\b",
        "a day that would have been theirs",
        True,
    ),
    (
        r"\bthe anniversary\b(?!\s+(?:party|dinner|sale|edition|issue|release|of the company|of the firm))",
        "a date coming round",
        False,
    ),
    (rf"\b(?:first|second)\s+{_SEASON}\s+{_GONE}", "a time without them", True),
    (r"\bcan['’]?t\s+(?:make|bring)\s+myself\b|\bcan['’]?t\s+throw\s+(?:it|them|his|her)\b", "something kept", False),
    (
        r"\bcan['’]?t\s+delete\s+(?:his|her|their|the\s+(?:app|number|voicemail|messages|texts|photos|contact))\b"
        r"|\bneither of us (?:will|can|could)\s+(?:say|take|touch|move|mention|bring|talk|look)\b",
        "something kept",
        False,
    ),
    (
        r"\b(?:i|we)\s+still\s+(?:have|keep|wear|use)\s+(?:his|her|their)\s+(?!own\b)\w+",
        "something of theirs kept",
        True,
    ),
    (
        r"(?:^|[.!?\n])\s*(?:[-*]\s+)?(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+years?\s+today\s*(?:[.!\n]|$)",
        "a date coming round",
        False,
    ),
    (r"\bfirst\b[^.!?\n]{0,40}\bon my own in\s+\w+\s+years\b", "a time without them", False),
    (
        r"\b(?:scatter(?:ed|ing)?|collect(?:ed|ing)?|pick(?:ed|ing)? up|bur(?:y|ied))\s+(?:the|his|her|their)\s+ashes\b",
        "a loss",
        False,
    ),
    (r"\bno heartbeat\b|\bstillborn\b|\bmiscarri(?:age|ed)\b|\bwe lost (?:her|him|the baby)\b", "a loss", False),
    (
        r"\b(?:since|before|after|when|the day)\s+(?:he|she|you)\s+(?:died|passed|left us)\b|\bpassed away\b",
        "a death",
        True,
    ),
)
_LEAD = ".!?-* \n"  # what a cue may match before its words (a sentence's end, a list's bullet)
_LOSS = tuple((re.compile(rx, re.IGNORECASE), why, whose) for rx, why, whose in LOSS_CUES)
_MONTHS_AND_DAYS = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday".split()
)
#: Someone named: a capitalised word inside a sentence ("put Biscuit's basket up", "rang Aoife"), a capitalised
#: possessive anywhere ("Biscuit's"), a relation ("Dad", "my grandma").
_CAPITALISED_INSIDE = re.compile(r"(?<=[a-z0-9,;)]\s)[A-Z][a-z][\w'’-]*")
_POSSESSIVE = re.compile(r"\b[A-Z][a-z]+['’]s\b")
_RELATION = re.compile(rf"\b(?:{'|'.join(sorted(KINSHIP))})\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]\s+|\n+")


def someone_named_before(text: str, end: int) -> str | None:
    """Someone the sentence ending at ``end``, or the sentence before it, names (the likely referent of a "he" or
    "her" there), or None. Headings are titles, not people."""
    before = "\n".join(line for line in text[:end].split("\n") if not line.lstrip().startswith("#"))
    starts = [m.end() for m in _SENTENCE_END.finditer(before)]
    window = before[starts[-2] if len(starts) > 1 else 0 :]
    for rx in (_POSSESSIVE, _CAPITALISED_INSIDE, _RELATION):
        for m in rx.finditer(window):
            if m.group(0).casefold() not in _MONTHS_AND_DAYS:
                return m.group(0)
    return None


@dataclass(frozen=True)
class UnnamedCue:
    """What makes a chunk that names no one refer to a subject: the words shown to the person, where they are,
    and whether they hold the chunk whatever the detector's scores (words of a loss do; a poem's "you" is read
    like any reference, and released when the detector is confident it is neutral)."""

    words: str  # "'no heartbeat' (a loss)"
    span: tuple[int, int]
    holds: bool

    @property
    def evidence(self) -> str:
        kind = "speaks of a loss" if self.holds else "speaks to someone"
        return f"names no one but {kind}, {self.words}"


def loss_words(text: str) -> UnnamedCue | None:
    """The first of :data:`LOSS_CUES` in ``text`` (its words hold the chunk), or None. A cue that points at someone
    by a pronoun counts only where the text names no one just before it."""
    for rx, why, whose in _LOSS:
        for m in rx.finditer(text):
            if whose and someone_named_before(text, m.start()):
                continue
            words = m.group(0).lstrip(_LEAD)
            return UnnamedCue(f"'{words.rstrip()}' ({why})", (m.end() - len(words), m.end()), True)
    return None


def loss_cue(text: str) -> str | None:
    """The words of a loss in ``text`` as the person is shown them ("'no heartbeat' (a loss)"), or None."""
    found = loss_words(text)
    return found.words if found else None


def anniversary_references(text: str, subjects: Sequence[DeferenceSubject], note_date: date | None) -> dict[str, str]:
    """The subjects a chunk that refers to no one refers to by its date: written on the anniversary of a subject's
    ``since:`` (the same month, the day within one, a later year) and speaking of a date coming round or a loss
    (:func:`holding.holding_cue`: "left standup early, it's the anniversary"). Canonical name → the evidence."""
    if note_date is None:
        return {}
    out = {}
    for s in subjects:
        since = s.since
        if since is None or note_date.year <= since.year or note_date.month != since.month:
            continue
        if abs(note_date.day - since.day) <= 1 and (cue := holding_cue(text)):
            out[s.name] = f"written on the anniversary of {since.isoformat()} (its since:) and says {cue}"
    return out


#: A note that is a poem or a song, by its tags or folders ("poems/arroios.md", ``tags: [lyrics]``).
_POEM_WORDS = frozenset("poem poems poetry verse verses lyrics lyric song songs songwriting haiku sonnet".split())
#: Words that speak to someone: a poem in the second person.
_ADDRESSED = re.compile(r"\b(?:you['’](?:d|re|ve|ll)|yours|your|you)\b", re.IGNORECASE)


def is_poem(path: str, tags: Sequence[str]) -> bool:
    """Whether a note is a poem or a song: a tag or a folder of its path says so."""
    words = {w for t in tags for w in re.split(r"[/_\s-]+", t.casefold())}
    folders = {w for part in path.casefold().split("/")[:-1] for w in re.split(r"[_\s-]+", part)}
    return bool((words | folders) & _POEM_WORDS)


def addressed_poem(text: str) -> UnnamedCue | None:
    """The first words in which a poem speaks to someone ("'you' (a poem to someone it does not name)"), or None:
    read like any reference, not held."""
    m = _ADDRESSED.search(text)
    return UnnamedCue(f"'{m.group(0)}' (a poem to someone it does not name)", m.span(), False) if m else None


def unnamed_cue(text: str, *, poem: bool = False) -> UnnamedCue | None:
    """Words of a loss (:func:`loss_words`) in ``text``, else, in a poem, its words to someone
    (:func:`addressed_poem`), or None."""
    return loss_words(text) or (addressed_poem(text) if poem else None)


def unnamed_references(
    text: str,
    subjects: Sequence[DeferenceSubject],
    note_date: date | None,
    named_nearby: str | None,
    *,
    poem: bool = False,
) -> tuple[dict[str, str], UnnamedCue | None]:
    """The subjects a chunk that refers to no one refers to all the same (canonical name → the evidence), and the
    words that make it (None when it refers by its date): by its date (:func:`anniversary_references`), else by
    :func:`unnamed_cue` — for ``named_nearby``, the subject the vault names nearest in time to the note, or for
    every subject when none is known. ``detector.assess_chunk`` asks only for a chunk that refers to no subject:
    "he would have hated the fence" in a note that names Dad is about Dad."""
    if by_date := anniversary_references(text, subjects, note_date):
        return by_date, None
    cue = unnamed_cue(text, poem=poem)
    if cue is None:
        return {}, None
    names = {s.name for s in subjects}
    if named_nearby in names:
        return {named_nearby: f"{cue.evidence}; {named_nearby} is the subject named nearest in time"}, cue
    return dict.fromkeys(
        sorted(names), f"{cue.evidence}; no dated note names a subject, so it is withheld for each"
    ), cue


def nearest_subject(note_date: date | None, subject_dates: Mapping[str, Sequence[date]]) -> str | None:
    """The subject whose dated notes lie nearest ``note_date`` (``subject_dates``: each subject's note dates), the
    first in name order on a tie; None when the note or every subject is undated (:func:`nearest_subjects`)."""
    if note_date is None:
        return None
    one = pl.DataFrame({"path": [""], "date": [note_date]}, schema={"path": pl.String, "date": pl.Date})
    return nearest_subjects(one, subject_dates).get("")


def nearest_subjects(notes: pl.DataFrame, subject_dates: Mapping[str, Sequence[date]]) -> dict[str, str]:
    """:func:`nearest_subject` for many notes at once (``notes``: ``path`` and a non-null ``date``): path → the
    subject, by one as-of join per subject (100,000 notes: 0.17 s)."""
    if notes.is_empty():
        return {}
    ordered = notes.select("path", "date").sort("date")
    gaps = []
    for i, name in enumerate(sorted((n for n, ds in subject_dates.items() if ds), key=str.casefold)):
        dates = pl.DataFrame({"at": list(subject_dates[name])}, schema={"at": pl.Date}).sort("at")
        joined = ordered.join_asof(dates, left_on="date", right_on="at", strategy="nearest")
        gaps.append(
            joined.select(
                "path",
                (pl.col("at") - pl.col("date")).dt.total_days().abs().alias("gap"),
                pl.lit(i).alias("rank"),
                pl.lit(name).alias("subject"),
            )
        )
    if not gaps:
        return {}
    best = pl.concat(gaps).sort("gap", "rank").unique("path", keep="first")
    return dict(zip(best["path"], best["subject"]))
