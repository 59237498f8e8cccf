"""The structural entity extractor: what a person wrote explicitly, as an entity graph.

Pure functions: no Dagster, no LightRAG, no model. For one chunk of one note:

* the note itself (type ``note``, named by its file stem, which is what
  ``[[wikilinks]]`` name), its title and frontmatter ``aliases`` (``note``),
  frontmatter ``tags`` and inline ``#tags`` (``tag``, named ``#tag``) and
  people-like keys ``people`` / ``with`` / ``attendees`` / ``author`` (``person``);
* ``[[wikilinks]]`` in the text (``[[Target]]``, ``[[Target|alias]]``,
  ``[[Target#heading]]``, ``![[embed]]``) → ``note`` entities;
* headings (``concept``);
* proper names found by a rule-based recogniser: runs of capitalised words
  (connectors such as *de*, *das*, *of* allowed inside), split at a stoplist;
  a run at the start of a sentence counts only if the chunk repeats it, uses it
  mid-sentence, the frontmatter names it, or it is several title-case words.
  Types come from cues (honorifics and kinship words, "said", "with X",
  "in X", "Street"/"Council"-like words, "engineer at X"); else ``concept``.

Relations: the note → each link target (``links to``), tag, person, alias and
heading; and co-occurrence of the entities the text mentions, within
``WINDOW`` words, weighted by proximity. Every description is built from the
sentence(s) of the chunk that mention the entities.

Every fragment and weight is a pure function of (names, chunk text, note path)
— ``entity_fragment``, ``relation_fragment``, ``relation_weight`` — so an index
can recompute them from a stored chunk when another chunk goes away.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

ENTITY_TYPES: tuple[str, ...] = ("person", "place", "organization", "concept", "tag", "note")
#: When several chunks disagree about a type, the more specific one wins.
TYPE_RANK = {"person": 5, "organization": 4, "place": 3, "note": 2, "tag": 2, "concept": 1}

PEOPLE_KEYS: tuple[str, ...] = ("people", "with", "attendees", "author", "authors")
ALIAS_KEYS: tuple[str, ...] = ("aliases", "alias")

LINKS_TO = "links to"
TAGGED = "tagged"
ALIAS_OF = "alias of"
SECTION = "section"
CO_OCCURS = "co-occurs"

#: Co-occurring mentions further apart than this many words are not related.
WINDOW = 40
#: At most this many co-occurrence relations per chunk (the closest pairs).
MAX_PAIRS = 15
MAX_FRAGMENT_CHARS = 240

# --- word lists --------------------------------------------------------------------------

_STOP = {
    # function words and pronouns (capitalised at a sentence start, or "I")
    "a", "an", "the", "i", "i'm", "i've", "i'd", "i'll", "me", "my", "mine", "we", "our", "ours", "us", "you", "your",
    "he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "this", "that", "these", "those",
    "there", "here", "and", "or", "but", "nor", "so", "yet", "if", "then", "than", "because", "as", "at", "by", "for",
    "from", "in", "into", "of", "off", "on", "onto", "out", "over", "to", "up", "with", "without", "about", "after",
    "before", "between", "during", "since", "until", "via", "per", "not", "no", "yes", "all", "any", "some", "each",
    "every", "both", "either", "neither", "one", "two", "three", "first", "second", "last", "next", "other",
    "another", "such", "own", "same", "also", "just", "only", "even", "still", "very", "too", "much", "many", "more",
    "most", "less", "few", "lots", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did",
    "done", "have", "has", "had", "can", "could", "will", "would", "shall", "should", "may", "might", "must", "let",
    "let's", "what", "who", "whom", "whose", "which", "where", "when", "why", "how", "whatever", "whoever",
    # sentence adverbs, interjections, note furniture
    "however", "therefore", "meanwhile", "afterwards", "later", "today", "tonight", "yesterday", "tomorrow", "now",
    "maybe", "perhaps", "probably", "anyway", "actually", "honestly", "finally", "really", "well", "oh", "ok", "okay",
    "thanks", "thank", "hi", "hello", "dear", "please", "sorry", "wow", "hmm", "todo", "fixme", "note", "notes",
    "see", "re", "fwd", "links", "link", "ps", "nb", "fyi", "asap", "eta", "tbd", "tl", "dr", "etc", "ie", "eg",
    "am", "pm", "n/a", "done", "draft", "update", "edit", "edited", "new", "old", "big", "small", "good", "bad",
    # days, months
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "june", "july", "august", "september", "october", "november",
    "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
# "May" is a month and a verb: never a name on its own.
_STOP.add("may")

#: Lower-case words allowed inside a name ("Rua das Flores", "Bank of England").
_CONNECTORS = {"de", "da", "das", "do", "dos", "del", "della", "di", "du", "la", "le", "van", "von", "der", "den",
               "of", "the"}
_HONORIFICS = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame", "lady", "lord", "dona", "dom",
               "senhor", "senhora", "sr", "sra", "aunt", "auntie", "uncle", "grandad", "granddad", "grandpa",
               "grandma", "granny", "gran", "nan", "nana", "cousin", "father", "mother", "sister", "brother"}
_KINSHIP = {"mum", "mom", "mummy", "dad", "daddy", "grandad", "granddad", "grandpa", "grandma", "granny", "gran",
            "nan", "nana"}
_PERSON_PRE = {"with", "met", "meet", "meeting", "told", "tell", "asked", "ask", "rang", "ring", "called",
               "phoned", "texted", "emailed", "thanked", "hugged", "married", "dating", "thank", "love", "loved",
               "miss", "missed", "visit", "visited"}
#: Role nouns right before a name: "my sister Ellie", "our landlady Fátima".
_ROLE_NOUNS = {"sister", "brother", "mum", "mom", "dad", "wife", "husband", "partner", "friend", "colleague",
               "boss", "son", "daughter", "cousin", "aunt", "uncle", "landlady", "landlord", "neighbour", "neighbor",
               "flatmate", "housemate", "girlfriend", "boyfriend", "teacher", "doctor", "therapist", "manager"}
#: Verbs that open diary sentences ("Rang Mum", "Met Rosa"): not part of the name after them.
_VERB_STARTERS = {"rang", "called", "phoned", "met", "saw", "told", "asked", "texted", "emailed", "thanked",
                  "visited", "hugged", "messaged", "emailed", "helped", "left", "joined", "watched", "read", "heard",
                  "bought", "sent", "took", "had", "got", "went", "drove", "walked", "cycled", "flew", "found",
                  "missed", "booked", "paid", "signed", "finished", "started", "tried", "moved", "landed",
                  "arrived", "lunch", "dinner", "coffee", "drinks", "breakfast", "call", "meeting", "chat"}
_PERSON_POST = {"said", "says", "asked", "asks", "told", "tells", "replied", "thinks", "thought", "wants",
                "wanted", "laughed", "smiled", "wrote", "writes", "rang", "rings", "called", "texted", "emailed",
                "reckons", "cried", "nodded", "shrugged", "agreed", "mentioned", "suggested", "born", "explained",
                "showed", "helped", "sent", "came", "left", "arrived", "speaks", "knows"}
_AFTER_NAME = {"and", "about", "at", "in", "on", "for", "to", "from", "over", "yesterday", "today", "tonight",
               "this", "last", "after", "before", "who", "when", "while", "again", "tomorrow", "later", "earlier",
               "until", "during", "since", "back", "too", "as", "by", "the", "a", "an", "re", "via"}
_PLACE_PRE = {"in", "near", "outside", "inside", "around", "across", "via", "around", "towards", "toward"}
_MOVE_WORDS = {"moved", "moving", "move", "went", "go", "going", "back", "drove", "drive", "flew", "fly", "cycled",
               "walked", "walk", "trip", "travel", "travelled", "traveled", "return", "returned", "returning",
               "emigrated", "relocated", "relocation", "relocating", "came", "come", "commute", "train", "flight",
               "holiday", "visit", "visited", "visiting", "arrived", "landed", "down", "up"}
_MESSAGE_WORDS = {"email", "message", "letter", "call", "text", "note", "gift", "card", "present", "parcel",
                  "invoice", "reply", "answer", "word", "news", "postcard"}
_WORK_WORDS = {"work", "works", "working", "worked", "job", "day", "engineer", "developer", "designer", "manager",
               "intern", "internship", "started", "start", "role", "position", "interview", "interviewing",
               "colleague", "colleagues", "team", "contract", "employed", "hired", "offer", "analyst", "lead",
               "consultant", "week", "month", "year", "years", "career", "tenure"}
_ORG_PRE = {"joined", "joining", "join", "left", "leaving", "employer", "hired", "quit"}
_PLACE_WORDS = {"street", "st", "road", "rd", "rua", "avenida", "avenue", "ave", "lane", "square", "praça", "praca",
                "park", "wharf", "bridge", "river", "lake", "island", "isle", "coast", "beach", "bay", "hill",
                "hills", "mountain", "mountains", "valley", "city", "town", "village", "station", "airport",
                "harbour", "harbor", "canal", "gardens", "garden", "terrace", "church", "cathedral", "chapel", "inn",
                "pub", "hotel", "market", "mercado", "largo", "cais", "quay", "county", "district", "estate",
                "forest", "national"}
_ORG_WORDS = {"ltd", "limited", "inc", "llc", "plc", "gmbh", "lda", "council", "bank", "university", "college",
              "school", "institute", "group", "company", "co", "corporation", "corp", "club", "society",
              "association", "agency", "ministry", "department", "authority", "foundation", "trust", "services",
              "labs", "technologies", "systems", "studio", "studios", "records", "press", "nhs", "hmrc", "bbc"}
_HEADING_GENERIC = {"summary", "notes", "todo", "links", "stack", "overview", "background", "intro",
                    "introduction", "ideas", "misc", "log", "tasks", "next steps", "references", "contents"}

_CONTENT_STOP = _STOP | {"know", "knew", "think", "tell", "told", "about", "anything", "something", "thing",
                         "things", "get", "got", "go", "went", "make", "made", "like", "want", "say", "said",
                         "again", "ever", "never", "always", "often", "there's", "it's", "that's", "what's",
                         "who's", "where's", "don't", "didn't", "doesn't", "isn't", "wasn't", "aren't", "i"}

# --- text analysis -----------------------------------------------------------------------

_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"<?https?://[^\s)>\]]+>?")
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_WIKILINK = re.compile(r"!?\[\[([^\]\n|#^]*)(?:[#^]([^\]\n|]*))?(?:\|([^\]\n]*))?\]\]")
_HEADING_LINE = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_BULLET = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:[-*+][ \t]+(?:\[[ xX]\][ \t]+)?|\d{1,3}[.)][ \t]+)?")
_INLINE_TAG = re.compile(r"(?<![\w#&/\]])#([A-Za-z][\w/-]*[A-Za-z0-9_])")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)|~~")
_WORD = re.compile(r"#?[^\W_](?:[\w'’\-]*[^\W_])?")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]\u201d\u2019]*[ \t]+")
_ABBREV_END = re.compile(r"(?:^|\s)(?:Mr|Mrs|Ms|Mx|Dr|Prof|St|Sr|Sra|Jr|vs|etc|e\.g|i\.e)\.$")
_ATTACHMENT = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|pdf|mp3|mp4|mov|heic|excalidraw)$", re.IGNORECASE)


@dataclass(frozen=True)
class _Token:
    text: str  # as written, possessive stripped
    start: int
    end: int
    index: int  # word position in the chunk
    sentence: int
    at_start: bool
    possessive: bool


@dataclass(frozen=True)
class _Analysis:
    text: str  # cleaned: no markup, links shown by their display text
    sentences: tuple[tuple[int, int], ...]  # char spans in ``text``
    tokens: tuple[_Token, ...]
    links: tuple[tuple[str, int], ...]  # (target, word position)
    tags: tuple[tuple[str, int], ...]  # ("#tag", word position)
    headings: tuple[tuple[str, int], ...]  # (heading text, sentence index)
    word_sentence: tuple[int, ...]  # word position → sentence index


def link_target(raw: str) -> str:
    """``folder/Target.md`` → ``Target`` (Obsidian resolves a link by file name)."""
    target = raw.strip().replace("\\", "/").rstrip("/")
    target = target.rsplit("/", 1)[-1]
    return target[:-3] if target.lower().endswith(".md") else target


def note_name(path: str) -> str:
    """The note entity's name: the file stem, which is what a ``[[wikilink]]`` names."""
    return PurePosixPath(path).stem


def _is_cap(word: str) -> bool:
    if not word or not word[0].isupper() or any(ch.isdigit() for ch in word):
        return False
    letters = [ch for ch in word if ch.isalpha()]
    if any(ch.islower() for ch in letters):
        return True
    return 2 <= len(letters) <= 6  # an acronym


def _clean(raw: str) -> tuple[str, list[tuple[str, int]], list[int], list[str]]:
    """Markup out; returns (text, [(link target, char offset)], sentence-start offsets, heading texts)."""
    raw = _FENCE.sub("\n", raw)
    out: list[str] = []
    links: list[tuple[str, int]] = []
    starts: list[int] = []
    headings: list[str] = []
    pos = 0
    for line in raw.split("\n"):
        heading = _HEADING_LINE.match(line)
        if heading:
            line = heading.group(2)
        else:
            line = line[_BULLET.match(line).end():]
        line = _INLINE_CODE.sub(" ", line)
        line = _MD_LINK.sub(lambda m: m.group(1), line)
        line = _URL.sub(" ", line)
        # wikilinks → display text, remembering where each target sits
        pieces: list[str] = []
        last = 0
        for m in _WIKILINK.finditer(line):
            pieces.append(_EMPHASIS.sub("", line[last:m.start()]))
            target = link_target(m.group(1)) if m.group(1).strip() else ""
            shown = (m.group(3) or "").strip() or target or (m.group(2) or "").strip()
            offset = pos + sum(len(p) for p in pieces)
            if target and not _ATTACHMENT.search(target):
                links.append((target, offset))
            pieces.append(shown)
            last = m.end()
        pieces.append(_EMPHASIS.sub("", line[last:]))
        line = "".join(pieces).replace("|", " ; ").rstrip()
        if heading:
            headings.append(line.strip())
        starts.append(pos)
        out.append(line)
        pos += len(line) + 1
    return "\n".join(out), links, starts, headings


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        begin = pos
        for m in _SENTENCE_END.finditer(line):
            end = pos + m.start()
            if _ABBREV_END.search(text[begin:end]):
                continue
            if text[begin:end].strip():
                spans.append((begin, end))
            begin = pos + m.end()
        end = pos + len(line)
        if text[begin:end].strip():
            spans.append((begin, end))
        pos += len(line) + 1
    return spans


@lru_cache(maxsize=4096)
def _analyse(raw: str) -> _Analysis:
    text, link_offsets, _line_starts, heading_texts = _clean(raw)
    spans = _sentence_spans(text)
    tokens: list[_Token] = []
    tags: list[tuple[str, int]] = []
    word_at: dict[int, int] = {}  # char offset → word index, for link positions
    word_sentence: list[int] = []
    for si, (s0, s1) in enumerate(spans):
        first = True
        for m in _WORD.finditer(text, s0, s1):
            word = m.group(0)
            index = len(word_sentence)
            word_at[m.start()] = index
            word_sentence.append(si)
            if word.startswith("#"):
                tag = _INLINE_TAG.match(text, m.start())
                if tag:
                    tags.append(("#" + tag.group(1).lower(), index))
                first = False
                continue
            before = text[max(s0, m.start() - 2) : m.start()]
            at_start = first or before.endswith(": ") or before.endswith(":\t")
            possessive = word.endswith(("'s", "’s"))
            tokens.append(_Token(word[:-2] if possessive else word, m.start(), m.end(), index, si, at_start,
                                 possessive))
            first = False
    offsets = sorted(word_at)
    links: list[tuple[str, int]] = []
    for target, offset in link_offsets:
        # the first word at or after the link's display text
        k = bisect.bisect_left(offsets, offset)
        if k < len(offsets):
            links.append((target, word_at[offsets[k]]))
    heading_spans = []
    for h in heading_texts:
        for si, (s0, s1) in enumerate(spans):
            if text[s0:s1].strip() == h:
                heading_spans.append((h, si))
                break
    return _Analysis(text, tuple(spans), tuple(tokens), tuple(links), tuple(tags), tuple(heading_spans),
                     tuple(word_sentence))


# --- the recogniser ----------------------------------------------------------------------


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
            if (t.text in _CONNECTORS and j + 1 < len(toks) and _is_cap(toks[j + 1].text)
                    and toks[j + 1].sentence == t.sentence and _gap_ok(text, t, toks[j + 1])):
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


_APPOSITIVE = re.compile(r",\s+(?:his|her|my|our|their|the)\s+(?:\w+\s+)?(?:father|mother|dad|mum|mom|son|daughter|"
                         r"wife|husband|partner|friend|boss|manager|colleague|sister|brother|aunt|uncle|cousin|"
                         r"grandad|grandma|landlady|landlord|neighbour|neighbor|teacher|doctor|lead|keeper|captain|"
                         r"girlfriend|boyfriend|flatmate|housemate)\b")
_PAREN_PERSON = re.compile(r"\s*\((?:\d{1,3}|[a-z][a-z ]{1,20})\)")


def _person_after(an: _Analysis, run: _Run) -> bool:
    """A cue after the name that only a person takes: "Ana (12)", "Joaquim, her father", "Rosa said"."""
    last = run.tokens[-1]
    gap, nxt = _next_word(an, last)
    after = an.text[last.end : last.end + 60]
    return bool(_APPOSITIVE.match(after) or _PAREN_PERSON.match(after)
                or (nxt in _PERSON_POST and gap.strip() in ("", ",")))


def _votes(an: _Analysis, run: _Run) -> dict[str, int]:
    votes = {"person": 0, "place": 0, "organization": 0}
    words = [t.text.lower() for t in run.tokens]
    first, last = run.tokens[0], run.tokens[-1]
    if len(words) >= 2 and words[0] in _HONORIFICS:
        votes["person"] += 2
    if len(words) == 1 and words[0] in _KINSHIP:
        votes["person"] += 2
    if any(w in _PLACE_WORDS for w in words[1:]) or (len(words) >= 2 and words[0] in {"rua", "avenida", "praça",
                                                                                         "largo", "cais", "mount",
                                                                                         "lake", "port"}):
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


# --- positions, fragments, weights: pure functions of (names, chunk text, path) -----------


def _sequence_positions(an: _Analysis, name: str) -> list[int]:
    words = name.split()
    if not words:
        return []
    toks = an.tokens
    found = []
    for k, t in enumerate(toks):
        if t.text != words[0]:
            continue
        if all(k + m < len(toks) and toks[k + m].text == w for m, w in enumerate(words[1:], 1)):
            found.append(t.index)
    return found


def mention_positions(text: str, name: str) -> list[int]:
    """Word positions at which ``text`` mentions ``name`` (a tag, a link target or words)."""
    an = _analyse(text)
    if name.startswith("#"):
        return [p for tag, p in an.tags if tag == name]
    positions = set(_sequence_positions(an, name))
    positions.update(p for target, p in an.links if target == name)
    return sorted(positions)


def _sentence_of(an: _Analysis, position: int) -> tuple[int, int] | None:
    if 0 <= position < len(an.word_sentence):
        return an.sentences[an.word_sentence[position]]
    return an.sentences[-1] if an.sentences else None


def _sentence_text(an: _Analysis, span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    s = " ".join(an.text[span[0] : span[1]].split())
    return s if len(s) <= MAX_FRAGMENT_CHARS else s[: MAX_FRAGMENT_CHARS - 1].rstrip() + "…"


def _first_sentence(an: _Analysis) -> str:
    return _sentence_text(an, an.sentences[0]) if an.sentences else ""


def entity_fragment(name: str, text: str, path: str) -> str:
    """What one chunk says about ``name``: the first sentence mentioning it, else a note-level line."""
    an = _analyse(text)
    stem = note_name(path)
    positions = mention_positions(text, name)
    if positions:
        span = _sentence_of(an, positions[0])
        sentence = _sentence_text(an, span)
        if span is not None and len(sentence) <= len(name) + 2 and span in an.sentences:
            k = an.sentences.index(span)  # a bare "#tag" line: the sentence before says what it tags
            if k > 0:
                return _sentence_text(an, (an.sentences[k - 1][0], span[1]))
        return sentence
    if name == stem:
        first = _first_sentence(an)
        return f"Note '{stem}' ({path})" + (f": {first}" if first else "")
    if name.startswith("#"):
        return f"Tag {name} on note '{stem}'"
    return f"Named in note '{stem}'"


def _closest(pa: list[int], pb: list[int]) -> tuple[int, int, int] | None:
    """(distance, position in a, position in b) of the closest pair of mentions."""
    if not pa or not pb:
        return None
    best = None
    i = j = 0
    while i < len(pa) and j < len(pb):
        d = abs(pa[i] - pb[j])
        if best is None or d < best[0]:
            best = (d, pa[i], pb[j])
        if pa[i] < pb[j]:
            i += 1
        else:
            j += 1
    return best


def relation_weight(a: str, b: str, text: str, path: str) -> float:
    """One chunk's contribution to the weight of the relation a–b, in [1, 2].

    Two mentions close together count more (1 + 1/(1 + words apart / 10));
    a link written in the note counts 2; a relation the note only declares
    (a tag, a frontmatter name) counts 1."""
    stem = note_name(path)
    pa, pb = mention_positions(text, a), mention_positions(text, b)
    if stem in (a, b):
        other = b if a == stem else a
        an = _analyse(text)
        if any(target == other for target, _ in an.links):
            return 2.0
        return 1.0
    close = _closest(pa, pb)
    if close is None:
        return 1.0
    return round(1.0 + 1.0 / (1.0 + close[0] / 10.0), 4)


def relation_fragment(a: str, b: str, text: str, path: str) -> str:
    """What one chunk says about a–b: the sentence(s) that connect them."""
    an = _analyse(text)
    stem = note_name(path)
    if stem in (a, b):
        other = b if a == stem else a
        positions = mention_positions(text, other)
        if positions:
            return f"Note '{stem}': {_sentence_text(an, _sentence_of(an, positions[0]))}"
        if other.startswith("#"):
            return f"Note '{stem}' is tagged {other}"
        return f"Note '{stem}' names {other}"
    close = _closest(mention_positions(text, a), mention_positions(text, b))
    if close is None:
        return f"{a} and {b} in note '{stem}'"
    sa, sb = _sentence_of(an, close[1]), _sentence_of(an, close[2])
    if sa == sb:
        return _sentence_text(an, sa)
    first, second = sorted([sa, sb])
    return f"{_sentence_text(an, first)} … {_sentence_text(an, second)}"


# --- the extractor ------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteMeta:
    """What the extractor needs from a note beyond a chunk's text."""

    path: str
    title: str = ""
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    people: tuple[tuple[str, str], ...] = ()  # (name, frontmatter key)

    @property
    def name(self) -> str:
        return note_name(self.path)


def _names_of(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        items = [value] if "[[" in value else re.split(r"\s*[,;]\s*", value)
    elif isinstance(value, (list, tuple)):
        items = [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    else:
        return []
    out = []
    for item in items:
        m = _WIKILINK.fullmatch(item.strip())
        if m:
            item = (m.group(3) or "").strip() and link_target(m.group(1)) or link_target(m.group(1))
        item = " ".join(item.strip().strip('"').split())
        if item and item not in out:
            out.append(item)
    return out


def note_meta(path: str, frontmatter: Mapping | None = None, *, title: str = "", tags: Iterable[str] = ()) -> NoteMeta:
    """Tags, aliases and people-like keys from a note's frontmatter (lenient: bad values are skipped)."""
    fm = dict(frontmatter or {})
    all_tags: list[str] = []
    raw_tags = list(tags) or _names_of(fm.get("tags") if not isinstance(fm.get("tags"), str)
                                       else re.split(r"[,\s]+", fm["tags"]))
    for t in raw_tags:
        t = str(t).strip().lstrip("#").lower()
        if t and "#" + t not in all_tags:
            all_tags.append("#" + t)
    aliases: list[str] = []
    for key in ALIAS_KEYS:
        for a in _names_of(fm.get(key)):
            if a not in aliases and a != note_name(path):
                aliases.append(a)
    title = " ".join((title or str(fm.get("title") or "")).split())
    if title and title != note_name(path) and title.casefold() != note_name(path).casefold() and title not in aliases:
        aliases.insert(0, title)
    people: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key in PEOPLE_KEYS:
        for p in _names_of(fm.get(key)):
            if p not in seen:
                seen.add(p)
                people.append((p, key))
    return NoteMeta(path=path, title=title, tags=tuple(all_tags), aliases=tuple(aliases), people=tuple(people))


@dataclass(frozen=True)
class Entity:
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class Relation:
    source: str
    target: str
    keywords: str
    weight: float
    description: str


@dataclass(frozen=True)
class ChunkGraph:
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()

    def entity(self, name: str) -> Entity | None:
        return next((e for e in self.entities if e.name == name), None)

    def relation(self, a: str, b: str) -> Relation | None:
        return next((r for r in self.relations if {r.source, r.target} == {a, b}), None)


@dataclass
class _Builder:
    path: str
    text: str
    types: dict[str, str] = field(default_factory=dict)
    relations: dict[frozenset, list] = field(default_factory=dict)

    def entity(self, name: str, type_: str) -> None:
        name = " ".join(name.split())
        if not name:
            return
        old = self.types.get(name)
        if old is None or TYPE_RANK[type_] > TYPE_RANK[old]:
            self.types[name] = type_

    def relate(self, a: str, b: str, keywords: str) -> None:
        if a == b or a not in self.types or b not in self.types:
            return
        key = frozenset((a, b))
        if key in self.relations:
            if keywords not in self.relations[key][2]:
                self.relations[key][2].append(keywords)
        else:
            self.relations[key] = [a, b, [keywords]]

    def build(self) -> ChunkGraph:
        entities = tuple(Entity(n, t, entity_fragment(n, self.text, self.path)) for n, t in self.types.items())
        relations = tuple(
            Relation(a, b, ", ".join(kw), relation_weight(a, b, self.text, self.path),
                     relation_fragment(a, b, self.text, self.path))
            for a, b, kw in self.relations.values()
        )
        return ChunkGraph(entities, relations)


def extract_chunk(text: str, meta: NoteMeta) -> ChunkGraph:
    """The entities and relations one chunk contributes (see the module docstring)."""
    an = _analyse(text)
    b = _Builder(meta.path, text)
    note = meta.name
    b.entity(note, "note")
    for tag in meta.tags:
        b.entity(tag, "tag")
        b.relate(note, tag, TAGGED)
    for alias in meta.aliases:
        b.entity(alias, "note")
        b.relate(note, alias, ALIAS_OF)
    for person, key in meta.people:
        b.entity(person, "person")
        b.relate(note, person, key)
    mentioned: list[str] = []
    for target, _ in an.links:
        if target != note:
            b.entity(target, "note")
            b.relate(note, target, LINKS_TO)
            mentioned.append(target)
    for tag, _ in an.tags:
        b.entity(tag, "tag")
        b.relate(note, tag, TAGGED)
        mentioned.append(tag)
    for heading, _ in an.headings:
        if (heading.casefold() in (note.casefold(), meta.title.casefold()) or heading.casefold() in _HEADING_GENERIC
                or len(heading) < 3 or len(heading) > 80):
            continue
        b.entity(heading, "concept")
        b.relate(note, heading, SECTION)
    known = {p for p, _ in meta.people} | set(meta.aliases) | {t for t, _ in an.links}
    for found in recognise_names(text, known=known):
        b.entity(found.name, found.type)
        mentioned.append(found.name)
    mentioned.extend(p for p, _ in meta.people if mention_positions(text, p))
    mentioned.extend(a for a in meta.aliases if mention_positions(text, a))
    # co-occurrence: the closest pairs of mentioned entities
    unique = list(dict.fromkeys(m for m in mentioned if m != note))
    positions = {m: mention_positions(text, m) for m in unique}
    pairs = []
    for i, x in enumerate(unique):
        for y in unique[i + 1 :]:
            close = _closest(positions[x], positions[y])
            if close is not None and close[0] <= WINDOW:
                pairs.append((close[0], x, y))
    for _, x, y in sorted(pairs)[:MAX_PAIRS]:
        b.relate(x, y, CO_OCCURS)
    return b.build()


# --- queries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryTerms:
    names: tuple[str, ...]  # recognised names, links and tags in the query
    words: tuple[str, ...]  # content words (lower case)
    candidates: tuple[str, ...]  # names and word n-grams in the spellings an entity may have


def query_terms(text: str) -> QueryTerms:
    """Keywords for graph retrieval, without an LLM: the recogniser's names plus content words."""
    an = _analyse(text)
    names = [n.name for n in recognise_names(text, query=True)]
    names.extend(t for t, _ in an.links)
    names.extend(t for t, _ in an.tags)
    names.extend(q.strip() for q in re.findall(r"[\"“]([^\"”]{2,60})[\"”]", text))
    names = list(dict.fromkeys(n for n in names if n))
    words = [t.text for t in an.tokens if t.text.lower() not in _CONTENT_STOP and len(t.text) >= 2]
    content = list(dict.fromkeys(w.lower() for w in words))
    candidates: list[str] = list(names)
    whole = " ".join(text.strip().rstrip("?.!").split())
    if 0 < len(whole) <= 80:  # a query that is just a note's name: "characters - the lighthouse keeper"
        candidates.append(whole)
    for size in (3, 2, 1):
        for k in range(len(words) - size + 1):
            gram = words[k : k + size]
            phrase = " ".join(gram)
            for variant in (phrase, phrase.lower(), " ".join(w[:1].upper() + w[1:] for w in gram), phrase.upper()):
                candidates.append(variant)
            if size == 1:
                candidates.append("#" + phrase.lower())
    return QueryTerms(tuple(names), tuple(content), tuple(dict.fromkeys(candidates)))
