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

Some mentions only look like the subject — another person of the same name, someone else's relation, a
common word — and are *collisions* (:mod:`.collisions`, each with the reason shown to the person).

A chunk may also refer to a subject without naming it: a note whose title or first
line names the subject refers to it in every chunk (:func:`note_reference`).
Pure functions, stdlib only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lucasrag.vocabulary import DeferenceSubject

from .collisions import KINSHIP, SOMEONE_ELSES, collision, other_person
from .short_forms import short_forms

_SENTENCE_END = re.compile(r"(?:(?<=[.!?;])|(?<=[.!?][\"'\u201d\u2019)]))\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_PRONOUN = re.compile(r"\b(?:he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
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
    #: Why mentions that look like the subject are not it ("another person: Maya Chen", "a common word: a pip").
    collisions: tuple[str, ...] = ()
    #: How the chunk refers to the subject: "names it" or where the note names it (see :func:`note_reference`).
    reference: str = "names it"

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


def names_alternation(names: Sequence[str]) -> str:
    """``names`` as one regex alternation, longest first, any whitespace between words (no flags, no
    look-arounds: polars' regex engine reads it too)."""
    alts = sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(w) for w in n.split()) for n in alts)


@functools.lru_cache(maxsize=256)
def name_pattern(names: tuple[str, ...], capitalised: tuple[str, ...] = (), raw: str = "") -> re.Pattern[str]:
    """Any of ``names`` as whole words (longest first), any case, any whitespace between words, and any of
    ``capitalised`` only as written (capital first); a closing quote may follow ("'happy birthday Dev'"), a
    contraction may not ("Dev'll" is not a mention). ``raw``: one more alternative, a regex of its own
    (:func:`initial_pattern`)."""
    body = names_alternation(names)
    if capitalised:
        body = "|".join(b for b in (body, rf"(?-i:{names_alternation(capitalised)})") if b)
    if raw:
        body = "|".join(b for b in (body, raw) if b)
    # After a hyphen only when written with a capital: "dating-after-Daniel" names him, "pre-dev" is a word.
    return re.compile(
        rf"(?<!\w)(?<!\w-(?=(?-i:[a-z])))(?:{body})(?:['\u2019]s\b)?(?![\w-]|['\u2019](?!s\b)\w)", re.IGNORECASE
    )


#: The days that are a parent's: for a subject named "Dad" or "my mother", "Father's Day" or "Mothering Sunday"
#: refers to them ("Father's Day. Kept busy in the garden." is as much about a dead father as his name).
_OCCASIONS = (
    ("dad daddy father papa pa pops da dada", ("Father's Day", "Father’s Day", "Fathers Day", "Fathers' Day")),
    (
        "mum mummy mother mom mommy mam mammy mama ma",
        ("Mother's Day", "Mother’s Day", "Mothers Day", "Mothers' Day", "Mothering Sunday"),
    ),
)


def occasions(subject: DeferenceSubject) -> tuple[str, ...]:
    """The days that are the subject's when it is the writer's parent: a name or alias that is a word for a
    father or a mother, alone or after "my"."""
    names = {n.casefold().removeprefix("my ").strip() for n in subject.names}
    return tuple(day for words, days in _OCCASIONS if names & set(words.split()) for day in days)


def spellings(subject: DeferenceSubject) -> tuple[str, ...]:
    """Every way a chunk may name the subject: its names and aliases, the days that are theirs
    (:func:`occasions`), then its shortenings (``short_forms``)."""
    return (*subject.names, *occasions(subject), *short_forms(subject, KINSHIP))


#: Before a lone initial, a word that takes a person: "me and N", "texted N", "missed N".
_BEFORE_AN_INITIAL = ("me and", "texted", "told", "saw", "called", "missed", "miss", "without", "dreamt about")


@functools.lru_cache(maxsize=256)
def initial_pattern(name: str) -> str:
    """The subject's initial written alone where a person goes — "N and I had our first date", "N's mum", "me and
    N", "texted N" — as people write an ex or a sister they would rather not name (case-sensitive; not "I" or
    "A", not a kinship word, not a name under three letters). Empty when the name has no such initial."""
    first = name.split()[0] if name.split() else ""
    if len(first) < 3 or first.casefold() in KINSHIP or not first[0].isupper() or first[0] in "IA":
        return ""
    x = re.escape(first[0])
    before = "|".join(f"(?<=\\b{re.escape(w)} )" for w in _BEFORE_AN_INITIAL)
    return rf"(?-i:{x}(?=\s+(?:and|&)\s+(?:I|me)\b)|{x}(?=['’]s\b)|(?:{before}){x}(?![\w.'’/=&-]))"


def subject_pattern(subject: DeferenceSubject) -> re.Pattern[str]:
    """The subject's names and aliases, the days that are theirs, the shortenings of them it is known by, and its
    initial where a person goes (:func:`initial_pattern`)."""
    return name_pattern(
        (*subject.names, *occasions(subject)), short_forms(subject, KINSHIP), initial_pattern(subject.name)
    )


def _is_title(sentences: list[Sentence], i: int) -> bool:
    """A paragraph that is one short sentence, followed by more text: a poem's or letter's title line."""
    s = sentences[i]
    alone = all(t.paragraph != s.paragraph for j, t in enumerate(sentences) if j != i)
    return alone and i + 1 < len(sentences) and len(s.text.split()) <= TITLE_WORDS


def resolve(text: str, subject: DeferenceSubject, namesakes: Sequence[str] = ()) -> SubjectContext | None:
    """The chunk's sentences about ``subject``, or None when it never mentions the subject. ``namesakes``: other
    people with the subject's name that the note names at its head (:func:`note_namesakes`) or its workspace names
    in full (``namesakes.workspace_namesakes``), each with where ("Dan Okafor, named at the note's head")."""
    pattern = subject_pattern(subject)
    if not pattern.search(text):
        return None
    sentences = split_structured(text)
    mentions: list[tuple[int, str]] = []
    others: list[str] = list(namesakes)  # each with where it was named: the note's head, the workspace
    collisions: list[str] = []
    for i, s in enumerate(sentences):
        for m in pattern.finditer(s.text):
            titled = s.heading or _is_title(sentences, i)  # title case: a capital word after a name may be a word
            other = other_person(s.text, m.end(), subject, titled=titled)
            why = None if other else collision(s.text, m.start(), m.end(), subject)
            if other or (why and why.startswith(SOMEONE_ELSES)):  # "Aoife's Declan" is another Declan
                others.append(other or why.removeprefix(SOMEONE_ELSES))
            elif why:
                collisions.append(why)
            else:
                mentions.append((i, m.group(0)))
    if others:  # bare names in a chunk about a namesake are the namesake's
        full = name_pattern((subject.name,))
        mentions = [(i, w) for i, w in mentions if full.fullmatch(w) and " " in subject.name.strip()]
    not_subject = tuple(dict.fromkeys([*(f"another person: {o}" for o in others), *collisions]))
    if not mentions:
        return SubjectContext(subject.name, (), (), tuple(others), collisions=not_subject) if not_subject else None
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
    listed = name_pattern(subject.names)
    named = [w for _, w in mentions if listed.fullmatch(w)]
    days = occasions(subject)
    if named:
        reference = "names it"
    elif days and name_pattern(days).fullmatch(mentions[0][1]):
        reference = f"names a day that is theirs: {mentions[0][1]!r}"
    elif len(mentions[0][1].removesuffix("'s").removesuffix("’s")) == 1:
        reference = f"names it by its initial: {mentions[0][1]!r}"
    else:
        reference = f"names it as {mentions[0][1]!r}, a shortening of a name on its list"
    return SubjectContext(
        subject.name,
        tuple(written),
        tuple(sentences[i].text for i in ordered),
        tuple(others),
        tuple((sentences[i].start, sentences[i].end) for i in ordered),
        tuple(sentences[i].text for i in focused),
        tuple((sentences[i].start, sentences[i].end) for i in focused),
        not_subject,
        reference,
    )


def resolve_all(
    text: str, subjects: Sequence[DeferenceSubject], namesakes: Mapping[str, Sequence[str]] | None = None
) -> list[SubjectContext]:
    """Every subject the chunk refers to, and every subject only a collision looks like (no mentions)."""
    namesakes = namesakes or {}
    return [c for s in subjects if (c := resolve(text, s, namesakes.get(s.name, ()))) is not None]


def _note_heads(names: Sequence[str], first_chunk: str) -> tuple[tuple[str, str], ...]:
    """(where, text) of what a note says at its head: its names (title, file name, tags, properties), its first
    two lines of text and the headings above them (a meeting note's attendees come after its title heading)."""
    lines: list[str] = []
    for line in (ln for ln in first_chunk.splitlines() if ln.strip()):
        lines.append(line)
        if sum(not ln.lstrip().startswith("#") for ln in lines) == 2:
            break
    return (
        ("title, file name, tags or properties", "\n".join(n for n in names if n)),
        ("first line", "\n".join(lines)),
    )


def note_namesakes(
    names: Sequence[str], first_chunk: str, subjects: Sequence[DeferenceSubject]
) -> dict[str, tuple[str, ...]]:
    """The other people a note names at its head with a subject's first name, where the head never names the
    subject ("1:1 with Dan Okafor" for a subject Daniel Hart, "dan"): canonical name → their full names. A bare
    "Dan" further down that note is the one the note is about, as a bare name in a chunk that names "Dan
    Okafor" is (:func:`resolve`)."""
    heads = _note_heads(names, first_chunk)
    out: dict[str, tuple[str, ...]] = {}
    for s in subjects:
        contexts = [c for _, text in heads if (c := resolve(text, s)) is not None]
        others = tuple(dict.fromkeys(o for c in contexts for o in c.others))
        if others and not any(c.mentions for c in contexts):
            out[s.name] = tuple(f"{o}, named at the note's head" for o in others)
    return out


def note_reference(
    names: Sequence[str],
    first_chunk: str,
    subjects: Sequence[DeferenceSubject],
    namesakes: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, str]:
    """The subjects a note names at its head — ``names`` (its title, file name, aliases, tags, properties) or the
    first two lines of its first chunk — as canonical name → the evidence. Such a note is about the subject
    throughout, so a later chunk that refers to the subject by pronoun or not at all still refers to it
    ("Grandad" as a title, then three pages of "he"). ``namesakes``: as :func:`resolve` takes them (the note's
    workspace names a namesake in full: a bare first name at the head is the namesake's)."""
    heads = _note_heads(names, first_chunk)
    out: dict[str, str] = {}
    for s in subjects:
        for where, text in heads:
            context = resolve(text, s, (namesakes or {}).get(s.name, ()))
            if context is not None and context.mentions:
                out[s.name] = f"the note's {where} names {context.mentions[0]!r}"
                break
    return out


#: The mention of a chunk that refers to a subject without naming it (:func:`whole_chunk`).
WHOLE_CHUNK_MENTION = "(the note)"
#: A capitalised word inside a sentence: someone (or something) else named before the pronoun.
_INNER_NAME = re.compile(r"(?<=[\w,;:)] )(?!I\b)[A-Z][a-z\u00e0-\u00ff]+")


def carried_reference(text: str, previous: dict[str, str]) -> dict[str, str]:
    """The subjects a chunk refers to by going on from the chunk before: ``previous`` maps each subject the
    previous chunk of the note refers to → how the note named it; the chunk refers to them too when its opening
    paragraph (the one the chunk before was cut from) uses a third-person pronoun before anyone else is named
    inside a sentence ("Grandad's stone is weathered." | "He would have hated the new fence.", or "The garden
    centre was busy. I bought compost. Then I saw the roses he planted."). A note is cut into chunks by length,
    not by who it is about, so without this the second chunk of a long entry would be about nobody. Errs
    towards the subject, as every resolution rule does. Returns canonical name → the evidence."""
    if not previous:
        return {}
    sentences = split_structured(text)
    opening = [s for s in sentences if not s.heading]
    first = [s.text for s in opening if s.paragraph == opening[0].paragraph] if opening else []
    for sentence in first:
        pronoun = _PRONOUN.search(sentence)
        named = _INNER_NAME.search(sentence)
        if named and (not pronoun or named.start() < pronoun.start()):
            return {}  # someone else is named first: the pronoun may well be theirs
        if pronoun:
            return {
                name: f"an earlier chunk names {how!r} and this one goes on with {pronoun.group(0)!r}"
                for name, how in previous.items()
            }
    return {}


def whole_chunk(
    text: str, subject: DeferenceSubject, evidence: str, focus_at: tuple[int, int] | None = None
) -> SubjectContext:
    """A chunk that refers to ``subject`` without naming it (``note_reference``): all of it is about the subject.
    ``focus_at``: where the words that make it refer lie (``unnamed.unnamed_cue``); their sentence is the focus
    (without them, the whole chunk)."""
    sentences = split_structured(text)
    spans = tuple((s.start, s.end) for s in sentences)
    texts = tuple(s.text for s in sentences)
    focus = [(t, sp) for t, sp in zip(texts, spans) if focus_at and sp[0] <= focus_at[0] < max(sp[1], sp[0] + 1)]
    focus = focus[:1] or list(zip(texts, spans))
    return SubjectContext(
        subject.name,
        (WHOLE_CHUNK_MENTION,),
        texts,
        (),
        spans,
        tuple(t for t, _ in focus),
        tuple(sp for _, sp in focus),
        (),
        evidence,
    )
