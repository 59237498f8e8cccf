"""What ages: is a note time-bound (about a moment: a diary entry, a meeting, a trip) or timeless
(a reference, a clipping, a recipe, a concept note), from what the person wrote?

Only time-bound content ages into the archive by its date (rules/banding.py); a timeless note stays
present however old it is. The evidence, strongest first, and the first that speaks decides:

1. the note's own kind: its ``type``/``categories``/``kind`` properties and its tags
   (``categories: [[Meetings]]``, ``tags: [journal]``, ``#evergreen``);
2. the folders it sits in (``Daily/``, ``Journal/`` · ``References/``, ``Recipes/``);
3. a web source property: a clipping keeps what a page said;
4. a file name that is a date and nothing else (``2023-09-12.md``): a daily note;
5. the text itself: how diary entries and meetings are written ("this morning", "I went",
   "Attendees") against how explanations are ("## Ingredients", numbered steps, "you can",
   "is defined as"). The text needs two different cues and more of them than of the other kind;
6. a file name that starts with a date (``2021-03-04 bread pudding.md``): most such notes are
   entries, but a vault that dates every title says nothing by it, so the text speaks first.

Within one source a time-bound word wins over a timeless one (``tags: [journal, books]`` is a
reading diary): care for recency errs towards closing. A note nothing speaks for is ``unknown``;
rules/banding.py says what its date then means. Plain functions, no Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

Kind = Literal["time-bound", "timeless", "unknown"]

#: Names people give time-bound notes (kinds, tags, folders), singular and lower case; a name of
#: several words matches as a phrase. Not "review" (a book review is timeless), "status" or "update"
#: (tag namespaces: ``status/seedling``), "holiday" or "call" (a film's genre, "Call of Duty").
TIME_BOUND_NAMES: frozenset[str] = frozenset(
    """daily dailies journal journaling diary log logbook meeting minute standup stand-up 1on1 1:1 retro
    retrospective weekly monthly periodic now today letter event trip conference interview appointment
    gratitude dream check-in checkin""".split()
) | frozenset(
    (
        "daily note",
        "one on one",
        "weekly review",
        "weekly note",
        "monthly review",
        "quarterly review",
        "yearly review",
        "annual review",
        "status update",
        "now page",
        "job interview",
        "morning page",
        "log entry",
    )
)
#: Names people give timeless notes.
TIMELESS_NAMES: frozenset[str] = frozenset(
    """reference clipping clipped article bookmark recipe how-to howto guide tutorial book reading
    literature concept evergreen permanent zettel zettelkasten wiki glossary definition term person
    people contact author place city country movie film album song show series game podcast episode
    product company app tool snippet cheatsheet quote quotation resource moc index hub garden seedling
    sapling budding post essay paper course lecture lesson principle framework method technique skill
    checklist runbook playbook manual documentation faq til""".split()
) | frozenset(
    (
        "web clip",
        "literature note",
        "board game",
        "cheat sheet",
        "map of content",
        "mental model",
        "how to",
        "today i learned",
    )
)
#: Garden growth stages written as emoji (``#🌱``, kepano's ``0🌲``): a gardener's timeless notes.
GARDEN_EMOJI = frozenset("🌱🌿🌲🌳🪴🍂")

_WORD = re.compile(r"[a-z0-9:]+(?:-[a-z0-9]+)*")


def _forms(word: str) -> set[str]:
    """A word and its possible singulars: movies → movie, movy; diaries → diary; classes stays."""
    forms = {word}
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        forms.add(word[:-1])
        if len(word) > 4 and word.endswith("ies"):
            forms.add(word[:-3] + "y")
    return forms


def _singular(word: str) -> str:
    return word[:-3] + "y" if len(word) > 4 and word.endswith("ies") else min(_forms(word), key=len)


def _names_in(value: str) -> set[str]:
    """The words of ``value`` (and their singulars) and its two- and three-word phrases, singular:
    ``Podcast episodes`` → {podcast, episodes, episode, podcast episode}; ``Job-Interview`` →
    {job-interview, job, interview, job interview}."""
    text = value.lower().replace("_", " ").replace("/", " ")
    found: set[str] = set()
    for words in (_WORD.findall(text), _WORD.findall(text.replace("-", " "))):
        found |= {f for w in words for f in _forms(w)}
        singular = [_singular(w) for w in words]
        for n in (2, 3):
            found |= {" ".join(singular[i : i + n]) for i in range(len(singular) - n + 1)}
    return found


def _kind_of_names(values: Iterable[str]) -> tuple[Kind, str] | None:
    """The kind a group of names says, with the name that said it; time-bound first."""
    values = [v for v in values if v]
    for kind, vocabulary in (("time-bound", TIME_BOUND_NAMES), ("timeless", TIMELESS_NAMES)):
        for value in values:
            if hit := sorted(_names_in(value) & vocabulary, key=len, reverse=True):
                return kind, f"{value!r} ({hit[0]})"  # type: ignore[return-value]
            if kind == "timeless" and GARDEN_EMOJI & set(value):
                return kind, f"{value!r} (a garden stage)"  # type: ignore[return-value]
    return None


# Text cues (matched case-insensitively); each row counts once however often it fires.
TIME_BOUND_CUES: tuple[tuple[str, str], ...] = (
    (r"\b(?:today|yesterday|tonight|last night|this (?:morning|afternoon|evening))\b", "the day itself"),
    (r"\bdear diary\b", "a diary's address"),
    (r"\b(?:on|last|this|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", "a weekday"),
    (r"\bI (?:went|woke|got|met|saw|spent|felt|finally|just|walked|drove|arrived|cooked|called)\b", "what I did"),
    (r"\bwe (?:went|got|met|spent|moved|drove|walked|arrived|talked|agreed|decided|discussed)\b", "what we did"),
    (r"^\W*(?:attendees|agenda|action items|minutes|participants)\b", "a meeting's record"),
    (r"\b(?:last|this|next) (?:week|weekend|month)\b", "a week's news"),
)
TIMELESS_CUES: tuple[tuple[str, str], ...] = (
    (
        r"^#+\s*(?:ingredients|method|steps|instructions|summary|key (?:ideas|points|takeaways)|definition"
        r"|see also|references|further reading|examples?|how to\b|usage|overview|quotes|highlights|related)",
        "an explanation's heading",
    ),
    (r"\byou (?:can|should|need|will|might|may|want|have to)\b", "advice to anyone"),
    (
        r"\b(?:is|are) (?:defined as|a (?:way|method|technique|principle|concept|practice|process|tendency))\b",
        "a definition",
    ),
    (r"\b(?:refers to|in other words|for example|for instance|e\.g\.)", "an explanation"),
    (r"^\s*1[.)]\s.*\n\s*2[.)]\s", "numbered steps"),
    (r"\b(?:serves|makes|yields?) (?:\d+|two|three|four|five|six|eight|ten|twelve)\b", "a recipe's yield"),
)
_TIME_BOUND_RX = tuple((re.compile(rx, re.IGNORECASE | re.MULTILINE), why) for rx, why in TIME_BOUND_CUES)
_TIMELESS_RX = tuple((re.compile(rx, re.IGNORECASE | re.MULTILINE), why) for rx, why in TIMELESS_CUES)
MIN_TEXT_CUES = 2
_NAME_DATE = re.compile(r"^\d{4}[-_.]?\d{2}[-_.]?\d{2}(?!\d)")
_BARE_DATE = re.compile(r"^\d{4}[-_.]?\d{2}[-_.]?\d{2}(?:[ T_]\d{2}[-:.]?\d{2}(?:[-:.]?\d{2})?)?\.md$", re.IGNORECASE)


def _fired(text: str, table: Sequence[tuple[re.Pattern, str]]) -> list[str]:
    return [f"{why}: {m.group(0).strip().lower()!r}" for rx, why in table if (m := rx.search(text))]


def text_kind(text: str) -> tuple[Kind, str] | None:
    """What the writing says: at least MIN_TEXT_CUES different cues of one kind, and more than of the other."""
    bound, timeless = _fired(text, _TIME_BOUND_RX), _fired(text, _TIMELESS_RX)
    if len(bound) >= MIN_TEXT_CUES and len(bound) > len(timeless):
        return "time-bound", "written as an entry (" + "; ".join(bound) + ")"
    if len(timeless) >= MIN_TEXT_CUES and len(timeless) > len(bound):
        return "timeless", "written as an explanation (" + "; ".join(timeless) + ")"
    return None


@dataclass(frozen=True)
class Ageing:
    """Whether a note's content ages, and the evidence (shown by ``lucasrag notes --json``)."""

    kind: Kind
    evidence: str  # "" for unknown


def note_ageing(
    path: str,
    *,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    source: str | None = None,
    text: str = "",
) -> Ageing:
    """The first source of evidence that speaks decides (see the module docstring)."""
    if found := _kind_of_names([*kinds, *tags]):
        return Ageing(found[0], f"its kind {found[1]}")
    parts = PurePosixPath(path).parts
    if found := _kind_of_names(parts[:-1]):
        return Ageing(found[0], f"its folder {found[1]}")
    if source:
        return Ageing("timeless", f"a clipping of {source}")
    if _BARE_DATE.match(parts[-1]):
        return Ageing("time-bound", "its file name is a date: a daily note")
    if found := text_kind(text):
        return Ageing(*found)
    if _NAME_DATE.match(parts[-1]):
        return Ageing("time-bound", "its file name starts with a date")
    return Ageing("unknown", "")
