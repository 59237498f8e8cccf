"""Charged-subject detection (architecture §3.5). Pure functions, no Dagster.

A subject is charged in a text when the text names it (name or alias) close to
an emotionally charged cue. A bare mention is not enough: a recipe or an
insurance valuation naming the subject stays uncharged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lucasrag.vocabulary import DeferenceSubject

_APOS = "['\u2019]"  # straight or typographic apostrophe

#: Emotionally charged context cues: (regex, why). Matched case-insensitively.
CHARGED_CONTEXT_CUES: tuple[tuple[str, str], ...] = (
    (r"\bgrie(?:f|ve|ves|ved|ving)\b", "grief"),
    (r"\bmourn(?:s|ed|ing)?\b", "mourning"),
    (r"\bloss\b", "loss"),
    (r"\blost (?:him|her|them)\b", "loss"),
    (r"\bfuneral\b", "funeral"),
    (r"\b(?:memorial|eulogy|burial|buried|cremation|cremated|condolences)\b", "funeral"),
    (r"\b(?:died|dying|death)\b", "death"),
    (r"\bpassed (?:away|on)\b", "death"),
    (r"\bmiss(?:ing)? (?:him|her|them)\b", "missing someone"),
    (rf"\bcan{_APOS}?t believe (?:he|she|they){_APOS}?(?:s| is| are|re)? gone\b", "disbelief at a loss"),
    (r"\bcannot believe (?:he|she|they)(?: is| are)? gone\b", "disbelief at a loss"),
    # the name where the pronoun would be: "can't believe grandad is gone", "Maya's gone"
    (rf"\b(?:is|{_APOS}s|was) (?:really |actually |just )?gone\b", "disbelief at a loss"),
    (r"\bbreak-?ups?\b", "breakup"),
    (r"\b(?:broke|split) up\b", "breakup"),
    (r"\bdivorce[ds]?\b", "breakup"),
    (r"\bheart-?(?:broken|break)\b", "heartbreak"),
    (r"\b(?:crying|cried|sobbing|sobbed|in tears)\b", "crying"),  # not bare "cry": "a far cry from"
    (r"\bdevastated\b", "devastation"),
)

_CUES = tuple((re.compile(rx, re.IGNORECASE), why) for rx, why in CHARGED_CONTEXT_CUES)

#: How many sentences away a cue may be and still charge a mention. Two, so that
#: diary lines like "Maya got engaged. I still look. Three years since the
#: breakup..." are caught; care errs towards withholding (always announced).
NEIGHBOUR_SENTENCES = 2

# Sentences end at . ! ? (plus closing quotes) or at a line break: Markdown lines
# (headings, list items) are separate statements even without punctuation.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'\u201d\u2019)]))\s+|\n+")


@dataclass(frozen=True)
class ChargeEvidence:
    subject: str  # canonical subject name
    mention: str  # the name or alias as written
    cue: str  # the cue text as written
    why: str  # the cue's category, e.g. "funeral"
    sentence: str  # the sentence naming the subject
    cue_sentence: str  # the sentence holding the cue (may be the same one)


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


@functools.lru_cache(maxsize=256)
def _name_pattern(name: str) -> re.Pattern[str]:
    # Whole words, any run of whitespace between words: "Tom" must not match
    # "Tomato", while "grandad's" still names "grandad".
    words = [re.escape(w) for w in name.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def charging_evidence(text: str, subjects: Sequence[DeferenceSubject]) -> dict[str, list[ChargeEvidence]]:
    """Per canonical subject name, every (mention, cue) pair that charges it."""
    patterns_of = {subject: [_name_pattern(n) for n in subject.names if n.strip()] for subject in subjects}
    named = [(s, pats) for s, pats in patterns_of.items() if any(p.search(text) for p in pats)]
    if not named:  # most chunks name no subject: skip sentence splitting and cue scanning
        return {}
    sentences = split_sentences(text)
    cues = [[(m.group(0), why) for rx, why in _CUES for m in rx.finditer(s)] for s in sentences]
    found: dict[str, list[ChargeEvidence]] = {}
    for subject, patterns in named:
        for i, sentence in enumerate(sentences):
            mention = next((m.group(0) for p in patterns if (m := p.search(sentence))), None)
            if mention is None:
                continue
            lo, hi = max(0, i - NEIGHBOUR_SENTENCES), min(len(sentences), i + NEIGHBOUR_SENTENCES + 1)
            for j in range(lo, hi):
                for cue, why in cues[j]:
                    found.setdefault(subject.name, []).append(
                        ChargeEvidence(subject.name, mention, cue, why, sentence, sentences[j])
                    )
    return found


def canonical_name(name: str, subjects: Sequence[DeferenceSubject]) -> str:
    """The subject's canonical name when ``name`` is its name or alias, else ``name`` as written."""
    return next((s.name for s in subjects if s.matches(name)), name.strip())


def charged_subjects(text: str, subjects: Sequence[DeferenceSubject], declared: Sequence[str] = ()) -> tuple[str, ...]:
    """Declared subjects (normalised) plus subjects inferred from charged context; sorted, unique."""
    names = {canonical_name(d, subjects) for d in declared if d and d.strip()}
    names.update(charging_evidence(text, subjects))
    return tuple(sorted(names))
