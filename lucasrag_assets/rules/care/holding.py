"""Words that speak of a subject as gone, missed or counterfactual: a passage that has them is never released
as confidently neutral, whatever the detector's scores. Pure functions, no Dagster.

Why a table beside a trained model: the model scores what a passage says, and a short, understated line says
almost nothing — "Mum would have loved this." scores 0.08, "Pearl would've loved this garden." 0.07, both
below the release cut, because nothing in them is sad in words. These few forms are how grief is written when
it is written briefly, and they cost almost nothing in neutral writing: on the care corpus's tuning half the
table matches 90 charged passages and 9 neutral ones (funny dreams), none of which the scores released. The
person's own decision still releases such a passage.

Matched against the pair's masked context (``detector.masked_context``: each mention of the subject replaced by
``features.SUBJECT_TOKEN``), so "<subject>" below is the subject however the note names it.
"""

from __future__ import annotations

import re

from .features import SUBJECT_TOKEN

_S = re.escape(SUBJECT_TOKEN)
#: the subject, or a pronoun that refers back to it (bounded here: ``\b`` does not work beside "<" and ">")
_WHO = rf"(?:{_S}|(?<!\w)(?:he|she|they|you)\b)"
_HAVE = r"(?:\s+have|['’]ve|\s+of)"  # "would have", "would've", "would of"
#: what follows "would have" when it is not a counterfactual about a person ("they would have the forms")
_NOT_A_PARTICIPLE = r"(?:the|a|an|to|it|this|that|these|those|them|him|her|me|us|some|no|any|one|more|less)\b"
_POSSESSOR = rf"(?:{_S}['’]s|his|her|their|your)"

#: (pattern, what it says of the subject). Case-insensitive.
HOLDING_CUES: tuple[tuple[str, str], ...] = (
    (rf"{_WHO}\s+(?:would|could|should)n?['’]?t?{_HAVE}\s+(?!{_NOT_A_PARTICIPLE})\w+", "what they would have done"),
    (rf"\bwould{_HAVE}\s+been\s+{_POSSESSOR}\s+(?:birthday|anniversary|\d+)", "a day that would have been theirs"),
    (rf"\bwould(?:{_HAVE})?\s+(?:been|be|turn|turned)\s+(?:{_POSSESSOR}\s+)?\d+", "an age they did not reach"),
    (rf"\bwish(?:ed)?\s+(?:{_WHO}|I)\s+(?:could|was|were|had|would|did)\b", "a wish"),
    (r"\bif only\b", "a wish"),
    (rf"{_WHO}\s+should\s+(?:be|have\s+been)\s+here\b", "their absence"),
    (
        rf"\bnot the same without\b|\b(?:first|second|another|\d+(?:st|nd|rd|th)?)\b[^.!?\n]{{0,30}}\bwithout\s+{_S}",
        "a time without them",
    ),
    (rf"\b(?:years?|months?|weeks?)\s+without\s+{_S}", "a time without them"),
    (
        r"\b(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:years?|months?|weeks?)\s+(?:ago\s+)?today\b",
        "a date coming round",
    ),
    (rf"\b(?:years?|months?|weeks?)\s+since\s+(?:{_S}|we lost|I lost)", "a date coming round"),
    (rf"{_S}['’]s\s+anniversary\b|\banniversary\s+(?:of|for)\s+{_S}|\bthe anniversary\b", "a date coming round"),
    (rf"\bmiss(?:ed|ing|es)?\s+{_S}", "missing them"),
    (rf"\bstill\s+(?:have|has|keep|kept|got|wear|wearing|use)\s+{_POSSESSOR}", "something of theirs kept"),
    (r"\bcan['’]?t\s+(?:bring myself|throw|delete|let go|get rid)\b", "something of theirs kept"),
    (r"\bdream(?:s|t|ed|ing)?\b", "a dream"),
)

_CUES = tuple((re.compile(rx, re.IGNORECASE), why) for rx, why in HOLDING_CUES)


def holding_cue(masked: str) -> str | None:
    """``"'<text as written>' (<what it says>)"`` for the first cue in ``masked`` (a pair's masked context),
    or ``None``."""
    for rx, why in _CUES:
        if m := rx.search(masked):
            return f"'{m.group(0)}' ({why})"
    return None
