"""Where a chunk is about a deference subject: mention resolution across a paragraph.

A subject is mentioned by its name or an alias, as written in any case, with or
without a possessive (``grandad's``, ``Maya\u2019s``), at a sentence start or in
a heading. The sentences *about* the subject are then:

* every sentence naming it, and its neighbours (one either side);
* later sentences of the same paragraph that refer back with a third-person
  pronoun (``he``/``him``/``his``/``she``/``her``/``hers``): "Grandad loved the
  garden. ... I can't believe he's gone.";
* the whole section under a heading that names the subject, or under a title
  line that does (a paragraph of one short line: a poem's "for Priya, in
  march", a letter's "Grandad,");
* the whole chunk when it is short (a one-line entry, a poem's few lines, a
  message): a few sentences, or a few words under no heading.

The *focus* is narrower: only the sentences, list items or lines that name the
subject or refer back to it. It is what a grief aside in a shopping list or a
bullet journal is, when the rest of the chunk is chores.

A name followed by a capitalised surname the subject does not have ("Maya Chen",
"Tom Hargreaves") is another person with the same first name: that mention, and
every bare mention of the same name in the chunk, is not the subject.
Pure functions, stdlib only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lucasrag.vocabulary import DeferenceSubject

_SENTENCE_END = re.compile(r"(?:(?<=[.!?;])|(?<=[.!?][\"'\u201d\u2019)]))\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_PRONOUN = re.compile(r"\b(?:he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
_SURNAME = re.compile(r"\s+([A-Z][a-z\u00e0-\u00ff]+(?:-[A-Z][a-z]+)?)")
#: Capitalised words that follow a name without being a surname.
_NOT_SURNAMES = frozenset(
    "I And But So Then When If The A On In At It He She We They You My Is Was Has Had Would Will Said".split()
)
#: At most this many sentences, or this many words: the whole chunk is about any subject it names.
SHORT_CHUNK_SENTENCES = 3
SHORT_CHUNK_WORDS = 40
#: A paragraph of one line of at most this many words is a title (of what follows, like a heading).
TITLE_WORDS = 6


@dataclass(frozen=True)
class Sentence:
    text: str
    paragraph: int
    heading: bool
    start: int = 0  # character offsets in the chunk text (``text == chunk[start:end]``)
    end: int = 0


@dataclass(frozen=True)
class SubjectContext:
    """What a chunk says about one subject: the mentions as written and the sentences about it."""

    subject: str
    mentions: tuple[str, ...]  # as written, in order ("Grandad", "grandad's", "he")
    sentences: tuple[str, ...]  # the sentences about the subject, in order
    others: tuple[str, ...] = ()  # same-name other people seen ("Tom Hargreaves")
    spans: tuple[tuple[int, int], ...] = ()  # where those sentences lie in the chunk text (start, end)
    #: The focus: only the sentences (list items, lines) that name the subject or refer back to it, without
    #: neighbours or the rest of a short chunk. In a list or a message thread a grief aside is one line among
    #: neutral ones, and the wider context is dominated by them; the focus is scored too (``detector``).
    focus_sentences: tuple[str, ...] = ()
    focus_spans: tuple[tuple[int, int], ...] = ()

    @property
    def text(self) -> str:
        return " ".join(self.sentences)

    @property
    def focus_text(self) -> str:
        return " ".join(self.focus_sentences)


def split_structured(text: str) -> list[Sentence]:
    """Sentences with their paragraph number; a Markdown line (heading, list item) is its own sentence."""
    out: list[Sentence] = []
    paragraph = 0
    at = 0  # pieces are stripped substrings of ``text`` in order: each is found after the last
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if not lines:
            continue
        for line in lines:
            heading = bool(_HEADING.match(line))
            for s in _SENTENCE_END.split(line.strip()):
                if s.strip():
                    start = text.find(s.strip(), at)
                    at = start + len(s.strip())
                    out.append(Sentence(s.strip(), paragraph, heading, start, at))
        paragraph += 1
    return out


@functools.lru_cache(maxsize=256)
def name_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``names`` as whole words (longest first), any case, any whitespace between words; a closing
    quote may follow ("'happy birthday Dev'"), a contraction may not ("Dev'll" is not a mention)."""
    alts = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    body = "|".join(r"\s+".join(re.escape(w) for w in n.split()) for n in alts)
    return re.compile(rf"(?<![\w-])(?:{body})(?:['\u2019]s\b)?(?![\w-]|['\u2019](?!s\b)\w)", re.IGNORECASE)


def _is_other_person(sentence: str, end: int, subject: DeferenceSubject) -> str | None:
    """The other person's full name when the mention ending at ``end`` continues with a foreign surname."""
    m = _SURNAME.match(sentence, end)
    if not m or m.group(1) in _NOT_SURNAMES:
        return None
    full = sentence[: m.end()].split()[-2:]
    candidate = " ".join(full)
    known = {w.casefold() for n in subject.names for w in n.split()}
    if m.group(1).casefold() in known:
        return None
    return candidate


def _is_title(sentences: list[Sentence], i: int) -> bool:
    """A paragraph that is one short sentence, followed by more text: a poem's or letter's title line."""
    s = sentences[i]
    alone = all(t.paragraph != s.paragraph for j, t in enumerate(sentences) if j != i)
    return alone and i + 1 < len(sentences) and len(s.text.split()) <= TITLE_WORDS


def resolve(text: str, subject: DeferenceSubject) -> SubjectContext | None:
    """The chunk's sentences about ``subject``, or None when it never mentions the subject."""
    pattern = name_pattern(subject.names)
    if not pattern.search(text):
        return None
    sentences = split_structured(text)
    mentions: list[tuple[int, str]] = []
    others: list[str] = []
    for i, s in enumerate(sentences):
        for m in pattern.finditer(s.text):
            other = _is_other_person(s.text, m.end(), subject)
            if other:
                others.append(other)
            else:
                mentions.append((i, m.group(0)))
    if others:  # bare names in a chunk about a namesake are the namesake's
        full = name_pattern((subject.name,))
        mentions = [(i, w) for i, w in mentions if full.fullmatch(w) and " " in subject.name.strip()]
    if not mentions:
        return SubjectContext(subject.name, (), (), tuple(others)) if others else None
    about: set[int] = set()
    focus = {i for i, _ in mentions}
    written = [w for _, w in mentions]
    few_words = len(text.split()) <= SHORT_CHUNK_WORDS and not any(s.heading for s in sentences)
    if len(sentences) <= SHORT_CHUNK_SENTENCES or few_words:
        about.update(range(len(sentences)))
    for i, _ in mentions:
        about.update(range(max(0, i - 1), min(len(sentences), i + 2)))
        if sentences[i].heading or _is_title(sentences, i):  # the section under it
            j = i + 1
            while j < len(sentences) and not sentences[j].heading:
                about.add(j)
                j += 1
        # later sentences of the paragraph that refer back by pronoun
        for j in range(i + 1, len(sentences)):
            if sentences[j].paragraph != sentences[i].paragraph:
                break
            if p := _PRONOUN.search(sentences[j].text):
                about.add(j)
                focus.add(j)
                written.append(p.group(0))
    ordered, focused = sorted(about), sorted(focus)
    return SubjectContext(
        subject.name,
        tuple(written),
        tuple(sentences[i].text for i in ordered),
        tuple(others),
        tuple((sentences[i].start, sentences[i].end) for i in ordered),
        tuple(sentences[i].text for i in focused),
        tuple((sentences[i].start, sentences[i].end) for i in focused),
    )


def resolve_all(text: str, subjects: Sequence[DeferenceSubject]) -> list[SubjectContext]:
    return [c for s in subjects if (c := resolve(text, s)) is not None and c.mentions]
