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

Some mentions are not the subject (a *collision*), and each says why:

* a name followed by a capitalised surname the subject does not have ("Maya Chen",
  "Tom Hargreaves") is another person with the same first name: that mention, and
  every bare mention of the same name in the chunk, is not the subject;
* a name placed among work or neighbours ("Maya from accounts", "my colleague Dan");
* someone else's relation when the subject is the writer's ("Sam's mum", "his grandad"
  when the subject is Mum or Grandad), or anyone's ("a mum at the school gate", "every mum");
* a name that is also a month or a season, written as a time ("in June", "12 June", "last summer");
* a common word that is also a name, used as a word: after an article or a quantifier
  ("a pip", "the iris", "some dev boxes") or inside code (`` `pip install` ``);
* a business named after someone, where the text goes ("a table at Maya's Diner").

Each rule errs towards the subject: a collision is released, so a rule that misfires leaks. "Saw Maya at
work", a heading "Nana's Kitchen", a playlist "called 'Maya'" all stay the subject, and in a heading no
capitalised word after a name is taken for a surname (headings are written in title case).

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

from .short_forms import english_words, short_forms

_SENTENCE_END = re.compile(r"(?:(?<=[.!?;])|(?<=[.!?][\"'\u201d\u2019)]))\s+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_PRONOUN = re.compile(r"\b(?:he|him|his|himself|she|her|hers|herself)\b", re.IGNORECASE)
_SURNAME = re.compile(r"\s+([A-Z][a-z\u00e0-\u00ff]+(?:-[A-Z][a-z]+)?)")
#: Capitalised words that follow a name without being a surname.
_NOT_SURNAMES = frozenset(
    "I And But So Then When If The A On In At It He She We They You My Is Was Has Had Would Will Said Or Not "
    "Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun Monday Tuesday Wednesday Thursday Friday Saturday Sunday "
    "Jan Feb Mar Apr May Jun Jul Aug Sep Sept Oct Nov Dec January February March April June July August "
    "September October November December Day Xmas Christmas Easter".split()
)
#: Words for the writer's relations: a subject named so ("Mum", "grandad") is someone else's relation when
#: another owner precedes the word ("Sam's mum", "his grandad", "your nan").
KINSHIP = frozenset(
    "mum mam mom mummy mother dad da daddy father grandad grandpa granda gramps grandma gran granny nana nan "
    "nain taid nanna grandmother grandfather brother sister bro sis uncle aunt auntie aunty stepdad stepmum "
    "stepmom stepfather stepmother twin son daughter husband wife ex partner boyfriend girlfriend baby".split()
)
_OTHER_OWNER = re.compile(
    r"(?:(?<![\w'’])(?!(?:my|our)\b|(?:it|that|he|she|what|who|there|here|where|let|how|today|tonight)['’]s)"
    r"[A-Za-z][\w-]*(?:['’]s|s['’])|\b(?:his|her|their|your|whose))\s+$",
    re.IGNORECASE,
)
#: Before a one-word name, a word that makes it a common noun: "a pip", "the iris", "two jays".
_ARTICLE = re.compile(r"\b(?:a|an|the|this|that|these|those|some|any|each|every|several|many|few)\s+$", re.IGNORECASE)
#: Around a one-word name that is also an English word, what makes it a verb or an auxiliary ("I will ring",
#: "we really hope so", "Will be late", "Hope you're well"): a person's name follows no subject pronoun and no
#: modal, and no bare "be". Only these: a rule that misfires leaks ("miss will so much", "love you maya" and
#: "maya i'm sorry" are the person).
_VERB_BEFORE = re.compile(
    r"(?:\b(?:i|we|they|it|who)\s+(?:(?:really|just|only|also|still|so|truly|sincerely|certainly|always|"
    r"never|do|did|don't|didn't|do not|did not)\s+)?|\b(?:would|could|should|might|must|shall|can)\s+)$",
    re.IGNORECASE,
)
_VERB_AFTER = re.compile(r"\s+(?:be|been)\b", re.IGNORECASE)
#: At a sentence's start, also the greetings: "Hope you're well", "Hope all's well with you".
_VERB_AFTER_AT_START = re.compile(
    r"\s+(?:be|been|you['’]re|you are|you['’]ve|you have|you had|you['’]ll|everything|everyone|all['’]s|all is)\b",
    re.IGNORECASE,
)
#: Before a kinship word, what makes it anyone's relation rather than the writer's: "a mum at the school gate",
#: "every mum in the class", "as a new mum", "another mum". Between them only a word that describes a relation
#: ("new", "single", "working"): "had a dream nan was there" and "a walk with mum" stay the subject; not "no mum"
#: ("no mum to ring now"), "one" ("the one Nana died in"), "what a" or "such a" ("what a mum she was").
_GENERIC_KIN = re.compile(
    r"(?<!what )(?<!such )\b(?:a|an|every|each|another|any)\s+"
    r"(?:(?:new|single|young|first-time|working|stay-at-home|lone|proud|busy|fellow|expectant|teenage|other|"
    r"good|great|fun|cool|strict)\s+)?$",
    re.IGNORECASE,
)
#: A subject named like a month or a season ("June", "April", "Summer") written as a time: after "in",
#: "during", "last", "early" ... or beside a day or a year ("12 June", "June 2024", "June 3rd"). Not after
#: "since" or "until" ("since June died" is the person).
_TIME_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "spring summer autumn winter".split()
)
_TIME_BEFORE = re.compile(
    r"(?:\b(?:in|during|last|next|this|early|mid|late|throughout|(?:the\s+)?(?:end|start|beginning|middle)\s+of)"
    r"\s+|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?|\bmid-)$",
    re.IGNORECASE,
)
_TIME_AFTER = re.compile(r",?\s+(?:\d{4}\b|\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d))")
#: A business named after someone, where the text goes to it: "a table at Maya's Diner". Commercial words only,
#: after a preposition: a heading "Nana's Kitchen" or "Grandad's Farm" is about the person.
_BUSINESS = re.compile(
    r"['’]s['’\"]?\s+(?:Kitchen|Diner|Cafe|Café|Bakery|Bar|Pub|Restaurant|Shop|Salon|Deli|Bistro|Grill|"
    r"Tavern|Inn|Hotel|Barbers?|Takeaway|Chippy)\b"
)
_TO_A_PLACE = re.compile(r"\b(?:at|to|from|in|into|outside|near)\s+(?:the\s+)?['\"‘“]?$", re.IGNORECASE)
#: A namesake among the people of work or the street: "Dan from accounts", "my colleague Maya". Only "from":
#: "saw Maya at work" may well be the subject.
_PLACED_AFTER = re.compile(
    r"\s*(?:\(|,\s*)?from\s+(?:work|the office|accounts|hr|it|finance|sales|legal|payroll|support|"
    r"reception|next door|number \d+|the (?:\w+ )?(?:team|department|desk|squad|office|site|client|agency|gym|club))\b",
    re.IGNORECASE,
)
_PLACED_BEFORE = re.compile(
    r"\b(?:colleague|co-?worker|workmate|manager|boss|client|customer|supplier|contractor|recruiter|intern|"
    r"neighbour|neighbor|landlord|tenant|plumber|electrician|dentist|gp|teacher|student|pupil|new hire|"
    r"new starter|namesake|other)\s+$",
    re.IGNORECASE,
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
def name_pattern(names: tuple[str, ...], capitalised: tuple[str, ...] = ()) -> re.Pattern[str]:
    """Any of ``names`` as whole words (longest first), any case, any whitespace between words, and any of
    ``capitalised`` only as written (capital first); a closing quote may follow ("'happy birthday Dev'"), a
    contraction may not ("Dev'll" is not a mention)."""
    body = names_alternation(names)
    if capitalised:
        body = "|".join(b for b in (body, rf"(?-i:{names_alternation(capitalised)})") if b)
    # After a hyphen only when written with a capital: "dating-after-Daniel" names him, "pre-dev" is a word.
    return re.compile(
        rf"(?<!\w)(?<!\w-(?=(?-i:[a-z])))(?:{body})(?:['\u2019]s\b)?(?![\w-]|['\u2019](?!s\b)\w)", re.IGNORECASE
    )


def spellings(subject: DeferenceSubject) -> tuple[str, ...]:
    """Every way a chunk may name the subject: its names and aliases, then its shortenings (``short_forms``)."""
    return (*subject.names, *short_forms(subject, KINSHIP))


def subject_pattern(subject: DeferenceSubject) -> re.Pattern[str]:
    """The subject's names and aliases, and the shortenings of them it is known by (``short_forms``)."""
    return name_pattern(subject.names, short_forms(subject, KINSHIP))


def _is_other_person(sentence: str, end: int, subject: DeferenceSubject) -> str | None:
    """The other person's full name when the mention ending at ``end`` continues with a foreign surname."""
    if sentence[end - 2 : end].lower() in ("'s", "’s"):  # "marc's Form E": a possessive, not a surname
        return None
    m = _SURNAME.match(sentence, end)
    if not m or m.group(1) in _NOT_SURNAMES:
        return None
    full = sentence[: m.end()].split()[-2:]
    candidate = " ".join(full)
    known = {w.casefold() for n in subject.names for w in n.split()}
    if m.group(1).casefold() in known:
        return None
    return candidate


def _in_code(text: str, start: int) -> bool:
    """Whether ``start`` lies inside an inline code span of its line (an odd number of backticks before it)."""
    line_start = text.rfind("\n", 0, start) + 1
    return text.count("`", line_start, start) % 2 == 1


def collision(sentence: str, start: int, end: int, subject: DeferenceSubject) -> str | None:
    """Why the mention ``sentence[start:end]`` is not ``subject``, or None when it may be.

    Someone else's relation ("Sam's mum" for the writer's Mum), a namesake among work or neighbours
    ("Dan from accounts", "my colleague Dan"), a common word used as a word ("a pip", "the iris", code).
    Each reason is evidence shown to the person."""
    written = sentence[start:end]
    word = re.sub(r"['’]s$", "", written).casefold()
    before = sentence[max(0, start - 40) : start]
    first = word.split()[0] if word.split() else word
    if _in_code(sentence, start):
        return f"{written!r} is inside code"
    if first not in KINSHIP and _BUSINESS.match(sentence, end - 2) and _TO_A_PLACE.search(before):
        return f"a place named {written!r}"
    if first in KINSHIP and (m := _OTHER_OWNER.search(before)):
        return f"someone else's relation: {m.group(0).strip()} {written}"
    if first in KINSHIP and len(word.split()) == 1 and (m := _GENERIC_KIN.search(before)):
        return f"anyone's relation, not yours: {m.group(0).strip()} {written}"
    if word in _TIME_NAMES and not written.endswith(("'s", "’s")):
        if m := _TIME_BEFORE.search(before):
            return f"a time, not the person: {m.group(0).strip()} {written}"
        if m := _TIME_AFTER.match(sentence, end):
            return f"a time, not the person: {written}{m.group(0)}"
    if first not in KINSHIP and len(word.split()) == 1:
        if _PLACED_BEFORE.search(before):
            return f"another person: {_PLACED_BEFORE.search(before).group(0).strip()} {written}"
        if m := _PLACED_AFTER.match(sentence, end):
            return f"another person: {written}{m.group(0)}"
        if (m := _ARTICLE.search(before)) and not written[:1].isupper():
            return f"a common word: {m.group(0).strip()} {written}"
        # as a verb: lower case, or capitalised only because a sentence starts with it ("Hope you're well")
        at_start = not before.strip()
        if (at_start or not written[:1].isupper()) and word in english_words():
            after = _VERB_AFTER_AT_START if at_start else _VERB_AFTER
            if m := _VERB_BEFORE.search(before):
                return f"a common word, a verb: {m.group(0).strip()} {written}"
            if not written.endswith(("'s", "’s")) and (m := after.match(sentence, end)):
                return f"a common word, a verb: {written}{m.group(0)}"
    return None


def _is_title(sentences: list[Sentence], i: int) -> bool:
    """A paragraph that is one short sentence, followed by more text: a poem's or letter's title line."""
    s = sentences[i]
    alone = all(t.paragraph != s.paragraph for j, t in enumerate(sentences) if j != i)
    return alone and i + 1 < len(sentences) and len(s.text.split()) <= TITLE_WORDS


def resolve(text: str, subject: DeferenceSubject, namesakes: Sequence[str] = ()) -> SubjectContext | None:
    """The chunk's sentences about ``subject``, or None when it never mentions the subject. ``namesakes``: other
    people with the subject's name that the note names at its head (:func:`note_namesakes`)."""
    pattern = subject_pattern(subject)
    if not pattern.search(text):
        return None
    sentences = split_structured(text)
    mentions: list[tuple[int, str]] = []
    others: list[str] = [f"{o}, named at the note's head" for o in namesakes]
    collisions: list[str] = []
    for i, s in enumerate(sentences):
        for m in pattern.finditer(s.text):
            titled = s.heading or _is_title(sentences, i)  # title case: a capital after a name is no surname
            other = None if titled else _is_other_person(s.text, m.end(), subject)
            why = None if other else collision(s.text, m.start(), m.end(), subject)
            if other:
                others.append(other)
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
    reference = "names it" if named else f"names it as {mentions[0][1]!r}, a shortening of a name on its list"
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
    two lines."""
    lines = [ln for ln in first_chunk.splitlines() if ln.strip()][:2]
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
            out[s.name] = others
    return out


def note_reference(names: Sequence[str], first_chunk: str, subjects: Sequence[DeferenceSubject]) -> dict[str, str]:
    """The subjects a note names at its head — ``names`` (its title, file name, aliases, tags, properties) or the
    first two lines of
    its first chunk — as canonical name → the evidence. Such a note is about the subject throughout, so a later
    chunk that refers to the subject by pronoun or not at all still refers to it ("Grandad" as a title, then
    three pages of "he")."""
    heads = _note_heads(names, first_chunk)
    out: dict[str, str] = {}
    for s in subjects:
        for where, text in heads:
            context = resolve(text, s)
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
    previous chunk of the note refers to → how the note named it; the chunk refers to them too when one of its first
    two sentences uses a third-person pronoun before anyone else is named inside a sentence ("Grandad's
    stone is weathered." | "He would have hated the new fence."). A note is cut into chunks by length, not by
    who it is about, so without this the second chunk of a long entry would be about nobody. Errs towards
    the subject, as every resolution rule does. Returns canonical name → the evidence."""
    if not previous:
        return {}
    sentences = split_structured(text)
    opening = [s for s in sentences if not s.heading]
    first = [s.text for s in opening if s.paragraph == opening[0].paragraph][:2] if opening else []
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


def whole_chunk(text: str, subject: DeferenceSubject, evidence: str) -> SubjectContext:
    """A chunk that refers to ``subject`` without naming it (``note_reference``): all of it is about the subject."""
    sentences = split_structured(text)
    spans = tuple((s.start, s.end) for s in sentences)
    texts = tuple(s.text for s in sentences)
    return SubjectContext(subject.name, (WHOLE_CHUNK_MENTION,), texts, (), spans, texts, spans, (), evidence)
