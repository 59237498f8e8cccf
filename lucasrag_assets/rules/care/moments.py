"""A note is one moment: a subject one of its chunks refers to and the detector reads as charged is withheld in
every chunk of the note. Pure functions, no Dagster (``rules/chunk_table.py`` calls it once per note)."""

from __future__ import annotations

from collections.abc import Sequence

from .detector import CareAssessment
from .mentions import WHOLE_CHUNK_MENTION

#: The releases a charged reading elsewhere in the note overrides (:func:`one_moment`): the detector's own, what a
#: dismissal taught, a subject's policy. Not the person's decision, nor "not the subject".
_ONE_MOMENT_OVERRIDES = ("inferred", "learned", "policy")


def one_moment(chunks: Sequence[Sequence[CareAssessment]]) -> list[list[CareAssessment]]:
    """A note is one moment: a subject one of its chunks refers to and the detector reads as charged is withheld
    in every chunk of the note. A long diary entry is cut into chunks by length, and its first chunk ("Back to
    school after Easter. 73 emails.") is the same day as the chunk where the news of the ex comes; on a vault
    written by someone else such first chunks answered almost every everyday question. ``chunks``: each chunk's
    assessments (:func:`assess_chunk`), in order; returns them with the note's charged subjects added."""
    charged: dict[str, int] = {}
    for i, care in enumerate(chunks):
        for a in care:
            if a.withheld and a.source == "inferred" and a.mention and a.inferred in ("charged", "uncertain"):
                charged.setdefault(a.subject, i)
    out = []
    for care in chunks:
        by = {a.subject: a for a in care}
        for name, at in charged.items():
            a = by.get(name)
            if a is None or (not a.withheld and a.source in _ONE_MOMENT_OVERRIDES):
                why = f"chunk {at + 1} of the note reads as charged for {name}, and a note is one moment"
                by[name] = CareAssessment(
                    name, "withheld", "inferred", why, mention=a.mention if a else WHOLE_CHUNK_MENTION, reference=why
                )
        out.append([by[n] for n in sorted(by, key=str.casefold)])
    return out
