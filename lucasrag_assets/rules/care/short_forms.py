"""Shortenings of a subject's name that a writer uses without listing them: "Ror" for Rory, "Chlo" for Chloe.

People shorten the names of the people closest to them, and a deference list rarely holds every shortening
(the corpus's own lists are full of them: "cal", "chlo", "kier", "marc"). A shortening that is missed is a
reference not found, and under withheld-until-released that is the one way a passage leaks. So a
capitalised *truncation* of a listed name (three letters or more, shorter than the name) refers to the
subject too, unless it is a word or a name of its own: "Dan" and "Cal" are names other people have, "May"
and "Call" are words — those a person lists as aliases when they mean the subject. What counts as a word
of its own is the English vocabulary of the shipped MiniLM tokenizer (whole words only), so the rule needs
no list of its own.

A shortening is matched only as written with a capital ("Ror's bike", not "ror"), and every rule of
``mentions`` applies to it as to a listed name (a surname after it is another person, and so on).
"""

from __future__ import annotations

import functools
import json

from lucasrag.embedding_models import MINILM_TOKENIZER
from lucasrag.vocabulary import DeferenceSubject

#: Shortest shortening taken: two letters ("Ro", "Ch") are initials or syllables, not names.
MIN_LETTERS = 3


@functools.cache
def english_words() -> frozenset[str]:
    """The whole-word entries of the shipped MiniLM WordPiece vocabulary (lower case): ~22,000 words and
    common names."""
    vocab = json.loads(MINILM_TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha())


def _given_names(subject: DeferenceSubject, kinship: frozenset[str]) -> list[str]:
    """The words of the subject's name and aliases that are given names: each alias's and the name's first word,
    alphabetic, not a kinship word ("Grandad Tom" gives "Tom"; "my twin" gives nothing)."""
    out: list[str] = []
    for name in subject.names:
        words = [w for w in name.split() if w.casefold() not in kinship and w.casefold() not in ("my", "our", "baby")]
        if words and words[0].isalpha():
            out.append(words[0])
    return out


@functools.lru_cache(maxsize=256)
def short_forms(subject: DeferenceSubject, kinship: frozenset[str]) -> tuple[str, ...]:
    """The capitalised truncations of the subject's given names that are no word or name of their own, and
    are not already one of its names: ``Rory`` → ``("Ror",)``, ``Chloe`` → ``("Chl", "Chlo")``."""
    words = english_words()
    listed = {n.casefold() for n in subject.names}
    out: dict[str, None] = {}
    for given in _given_names(subject, kinship):
        for end in range(MIN_LETTERS, len(given)):
            short = given[:end]
            if short.casefold() not in words and short.casefold() not in listed:
                out.setdefault(short[:1].upper() + short[1:].lower())
    return tuple(out)
