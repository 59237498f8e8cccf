"""The rule-based proper-name recogniser: capitalised runs, split at stop words, typed by cues."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from lucasrag.entities._lexicon import (
    _AFTER_NAME,
    _CONNECTORS,
    _HONORIFICS,
    _KINSHIP,
    _MESSAGE_WORDS,
    _MOVE_WORDS,
    _ORG_PRE,
    _ORG_WORDS,
    _PERSON_POST,
    _PERSON_PRE,
    _PLACE_PRE,
    _PLACE_WORDS,
    _ROLE_NOUNS,
    _STOP,
    _VERB_STARTERS,
    _WORK_WORDS,
)
from lucasrag.entities._text import _analyse, _Analysis, _is_cap, _Token


@dataclass(frozen=True)
class _Run:
    tokens: tuple[_Token, ...]

    @property
    def name(self) -> str:
        return " ".join(t.text for t in self.tokens)

    @property
    def at_start(self) -> bool:
        return self.tokens[0].at_start


def _gap_ok(text: str, a: _Token, b: _Token) -> bool:
    gap = text[a.end : b.start]
    if gap == " " or gap == "\u00a0":
        return True
    return gap == ". " and a.text.lower() in _HONORIFICS


def _runs(an: _Analysis) -> list[_Run]:
    text, toks = an.text, an.tokens
    runs: list[_Run] = []
    i = 0
    while i < len(toks):
        if not _is_cap(toks[i].text):
            i += 1
            continue
        current = [toks[i]]
        j = i + 1
        while j < len(toks) and not current[-1].possessive:
            t = toks[j]
            if t.sentence != current[-1].sentence or not _gap_ok(text, current[-1], t):
                break
            if _is_cap(t.text):
                current.append(t)
                j += 1
                continue
            # a connector joins two capitalised words
            if (
                t.text in _CONNECTORS
                and j + 1 < len(toks)
                and _is_cap(toks[j + 1].text)
                and toks[j + 1].sentence == t.sentence
                and _gap_ok(text, t, toks[j + 1])
            ):
                current.extend([t, toks[j + 1]])
                j += 2
                continue
            break
        runs.extend(_split_stop(current))
        i = j
    return runs


def _split_stop(tokens: list[_Token]) -> list[_Run]:
    """Split a run at stoplisted words; drop connectors left at the edges."""
    parts: list[list[_Token]] = [[]]
    for t in tokens:
        if t.text.lower() in _STOP and t.text not in _CONNECTORS:
            parts.append([])
        else:
            parts[-1].append(t)
    runs = []
    for p in parts:
        if len(p) >= 2 and p[0].at_start and p[0].text.lower() in _VERB_STARTERS:
            p = p[1:]
        while p and not _is_cap(p[0].text):
            p = p[1:]
        while p and not _is_cap(p[-1].text):
            p = p[:-1]
        if p and len(p[0].text) + (len(p) - 1) >= 2:
            runs.append(_Run(tuple(p)))
    return runs


def _title_case_words(run: _Run) -> bool:
    caps = [t for t in run.tokens if _is_cap(t.text)]
    return len(caps) >= 2


def _prev_words(an: _Analysis, token: _Token, n: int) -> list[str]:
    k = an.tokens.index(token)
    out = []
    for t in reversed(an.tokens[max(0, k - n) : k]):
        if t.sentence != token.sentence:
            break
        out.append(t.text.lower())
    return out  # nearest first


def _next_word(an: _Analysis, token: _Token) -> tuple[str, str]:
    """(the gap text, the next word) after ``token`` within its sentence."""
    k = an.tokens.index(token)
    if k + 1 < len(an.tokens) and an.tokens[k + 1].sentence == token.sentence:
        nxt = an.tokens[k + 1]
        return an.text[token.end : nxt.start], nxt.text.lower()
    return "", ""


_APPOSITIVE = re.compile(
    r",\s+(?:his|her|my|our|their|the)\s+(?:\w+\s+)?(?:father|mother|dad|mum|mom|son|daughter|"
    r"wife|husband|partner|friend|boss|manager|colleague|sister|brother|aunt|uncle|cousin|"
    r"grandad|grandma|landlady|landlord|neighbour|neighbor|teacher|doctor|lead|keeper|captain|"
    r"girlfriend|boyfriend|flatmate|housemate)\b"
)
_PAREN_PERSON = re.compile(r"\s*\((?:\d{1,3}|[a-z][a-z ]{1,20})\)")


def _person_after(an: _Analysis, run: _Run) -> bool:
    """A cue after the name that only a person takes: "Ana (12)", "Joaquim, her father", "Rosa said"."""
    last = run.tokens[-1]
    gap, nxt = _next_word(an, last)
    after = an.text[last.end : last.end + 60]
    return bool(
        _APPOSITIVE.match(after) or _PAREN_PERSON.match(after) or (nxt in _PERSON_POST and gap.strip() in ("", ","))
    )


def _votes(an: _Analysis, run: _Run) -> dict[str, int]:
    votes = {"person": 0, "place": 0, "organization": 0}
    words = [t.text.lower() for t in run.tokens]
    first, last = run.tokens[0], run.tokens[-1]
    if len(words) >= 2 and words[0] in _HONORIFICS:
        votes["person"] += 2
    if len(words) == 1 and words[0] in _KINSHIP:
        votes["person"] += 2
    if any(w in _PLACE_WORDS for w in words[1:]) or (
        len(words) >= 2 and words[0] in {"rua", "avenida", "praça", "largo", "cais", "mount", "lake", "port"}
    ):
        votes["place"] += 2
    if any(w in _ORG_WORDS for w in words[1:]) or (len(words) >= 2 and words[0] in {"bank", "university"}):
        votes["organization"] += 2
    prev = _prev_words(an, first, 3)
    gap, nxt = _next_word(an, last)
    after = an.text[last.end : last.end + 60]
    # "with Rosa." / "with Rosa about …" — but not "with Python workers" (a modifier)
    if prev[:1] and prev[0] in _PERSON_PRE and (not nxt or gap.strip() or nxt in _AFTER_NAME):
        votes["person"] += 1
    if prev[:1] and prev[0] in _ROLE_NOUNS:
        votes["person"] += 1
    if nxt in _PERSON_POST and gap.strip() in ("", ","):
        votes["person"] += 1
    if _APPOSITIVE.match(after) or _PAREN_PERSON.match(after):
        votes["person"] += 1
    demonym = len(words) == 1 and (words[0].endswith("ese") or words[0].endswith("ish"))
    if prev[:1] and not demonym and not (len(words) == 1 and words[0] in _KINSHIP):
        p = prev[0]
        if p in _PLACE_PRE:
            votes["place"] += 1
        elif p in ("to", "into", "from") and (p == "from" or any(w in _MOVE_WORDS for w in prev[1:3])):
            if not (p == "from" and any(w in _MESSAGE_WORDS for w in prev[1:3])):
                votes["place"] += 1
        elif p in ("at", "for") and any(w in _WORK_WORDS for w in prev[1:3]):
            votes["organization"] += 1
        elif p in _ORG_PRE:
            votes["organization"] += 1
    return votes


def _decide(votes: dict[str, int]) -> str:
    best = max(("person", "organization", "place"), key=lambda k: votes[k])
    return best if votes[best] > 0 else "concept"


@dataclass(frozen=True)
class Name:
    """A proper name the recogniser accepted in a text, with its best type."""

    name: str
    type: str


def recognise_names(text: str, *, known: Iterable[str] = (), query: bool = False) -> list[Name]:
    """Proper names in ``text``, in order of first appearance.

    A capitalised run at the start of a sentence counts only if the text
    repeats it or uses it mid-sentence, ``known`` names it, or it is two or
    more title-case words (headings excepted). ``query=True`` (a short
    question) accepts sentence-start words too, the stoplist aside."""
    an = _analyse(text)
    runs = _runs(an)
    known = set(known)
    count: dict[str, int] = {}
    mid: set[str] = set()
    for r in runs:
        count[r.name] = count.get(r.name, 0) + 1
        if not r.at_start:
            mid.add(r.name)
    heading_sentences = {si for _, si in an.headings}
    votes: dict[str, dict[str, int]] = {}
    order: list[str] = []
    for r in runs:
        n = r.name
        if r.at_start and not query and n not in mid and count[n] < 2 and n not in known:
            if r.tokens[0].sentence in heading_sentences:
                continue
            acronym = len(r.tokens) == 1 and n.isupper()
            if not _title_case_words(r) and not _person_after(an, r) and not acronym:
                continue
        if len(r.tokens) == 1 and n.lower() in _STOP:
            continue
        if n not in votes:
            votes[n] = {"person": 0, "place": 0, "organization": 0}
            order.append(n)
        for k, v in _votes(an, r).items():
            votes[n][k] += v
    return [Name(n, _decide(votes[n])) for n in order]
