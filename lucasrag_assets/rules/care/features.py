"""Lexical features of what a chunk says about a subject (no cue list, no embedding).

The classifier sees the sentences about the subject (see ``mentions``) with every
mention of the subject replaced by one placeholder token, so that it learns how
people write *about* someone — loss told by understatement, an anniversary, a
dream, anger — and never the names themselves. Features:

* hashed Snowball-stemmed unigrams and bigrams (function words kept: "still
  miss", "can't believe", "no longer" carry the affect), sublinear counts,
  L2-normalised;
* affect categories (LIWC-style): the share of words whose Snowball stem falls
  in each of a few broad lexicons (sadness, absence, death and illness, anger,
  longing and memory, distress of the body, finality, lightness, paperwork).
  They are graded evidence the classifier weighs, not a cue list: no single
  word decides, and a chunk may be charged with none of them;
* sentence valence from VADER (its 7,500-word valence lexicon with negation and
  intensity rules): mean negative and positive share, lowest and mean compound
  score over the sentences about the subject — a happy outing with grandad
  reads positive, "I still look" reads flat;
* flat writing (``FLAT_WORDS``): avoidance ("haven't", "took the long way
  round"), kept things (a coat still hanging, a saved voicemail), dates coming
  round (an anniversary, a month, "years since") and contact that goes
  unanswered (a text typed and deleted, read and not replied to) — grief and
  estrangement told with no affect word;
* a few dense features: whether the rule table (``rules/charged.py``) found a
  cue near the mention, the share of first-person words, the share of digits
  and currency/unit marks (paperwork, recipes), the share of Markdown list or
  table lines.
Pure functions; numpy only.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from functools import lru_cache

import numpy as np
import snowballstemmer
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

#: Hashed n-gram buckets (a power of two); the weights file records it.
HASH_DIM = 1 << 13
#: Affect lexicons as words (stemmed at import). Broad on purpose: the weights decide.
AFFECT_WORDS: dict[str, str] = {
    "sadness": "sad sorrow grief grieve heavy heartbroken heartbreak hurt hurts ache aching cry cried crying tears "
    "tearful sob weep wept wet numb numbness flat low awful hard hardest unbearable bleak down miserable broken "
    "undone fall apart pain painful sting stings",
    "absence": "gone lost empty alone lonely silence silent without missing miss missed nobody anymore absent",
    "death": "died die dying death dead funeral grave cemetery stone hospital nurse doctor ward hospice results "
    "months days service obituary ashes coffin wake buried cancer illness sick peacefully aged beloved "
    "memorial condolences",
    "anger": "angry furious rage hate lied lie lies cruel betray betrayed shaking scream shout blocked block "
    "deserve deserved pretending walked done solicitor mediation custody",
    "longing": "remember remembering memory memories wish wished wonder replay dream dreamt dreamed regret",
    "persistence": "still again anymore keep kept every years since habit without even",
    "body": "chest throat tight stomach shaking sleep awake 3am night woke breathe breath voice cracking",
    "finality": "never last final ever end ended over forever goodbye unsent",
    "lightness": "laugh laughed laughing laughter funny joke brilliant lovely best fun party dancing surprise "
    "winning happy enjoy enjoyed great love loved beautiful sunny walk walked weekend holiday fuss proud "
    "glad excited",
    "paperwork": "form fee account balance transfer invoice policy premium reference booked booking meeting "
    "deadline appointment probate executor checklist certificate deposit bill paid payment schedule valuation "
    "recipe butter flour bake oven stock serves tbsp dataset repo branch script merge review config record "
    "records census born married plan flights train",
}
_AFFECT: dict[str, str] = {}  # stem -> category
#: How flat writing carries a charge without affect words (each stem counts in every category it is in):
#: avoiding a place or a task, keeping things, dates coming round, and contact that goes unanswered.
FLAT_WORDS: dict[str, str] = {
    "avoidance": "avoid avoided avoiding haven't hadn't couldn't can't cannot won't wouldn't didn't skip skipped "
    "detour way round instead turned back pretend pretended yet unable unopened untouched left",
    "keeping": "kept keep keeping still drawer box wardrobe shelf hanging coat jumper cardigan glasses slippers "
    "handwriting voicemail saved number contact photo photos picture smell ring letters card same chair",
    "dates": "anniversary birthday year years today date since ago would've turning again every each first "
    "without january february march april may june july august september october november december",
    "contact": "unanswered unread read delivered reply replied answer answered typed deleted draft unsent text "
    "texted message messages ring rang ringing blocked seen sent send call called",
}
_FLAT: dict[str, set[str]] = {}  # stem -> categories

DENSE = (
    "rule_cue",
    "first_person",
    "digits",
    "money_units",
    "markup",
    *(f"affect_{c}" for c in AFFECT_WORDS),
    "valence_neg",
    "valence_pos",
    "valence_min",
    "valence_mean",
    *(f"flat_{c}" for c in FLAT_WORDS),
)
N_FEATURES = HASH_DIM + len(DENSE)
#: Norm of the hashed part: smaller than the dense part, because n-grams of a few
#: template families generalise worse than the affect categories.
HASHED_SCALE = 0.5
SUBJECT_TOKEN = "<subject>"

_WORD = re.compile(r"<subject>|[^\W\d_]+(?:['\u2019][a-z]+)?|\d+", re.IGNORECASE)
_FIRST_PERSON = frozenset("i me my mine myself we us our i'm i've i'd i'll".split())
_MONEY_UNITS = re.compile(r"[€£$%]|\b\d+\s?(?:g|kg|ml|l|gbp|eur|usd|min|mins|hours?)\b", re.IGNORECASE)
_MARKUP = re.compile(r"^\s*(?:[-*+]\s|\d+\.\s|\|)", re.MULTILINE)
_stemmer = snowballstemmer.stemmer("english")
for _category, _words in AFFECT_WORDS.items():
    for _w in _words.split():
        _AFFECT.setdefault(_stemmer.stemWord(_w), _category)
for _category, _words in FLAT_WORDS.items():
    for _w in _words.split():
        _FLAT.setdefault(_stemmer.stemWord(_w.replace("n't", "nt").replace("'", "")), set()).add(_category)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def tokens(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(_fold(text)):
        if w == SUBJECT_TOKEN:
            out.append(w)
        elif w.isdigit():
            out.append("<num>")
        else:
            out.append(_stem(w.replace("n't", "nt").replace("'", "")))
    return out


def _bucket(term: str) -> int:
    return zlib.crc32(term.encode()) & (HASH_DIM - 1)


@lru_cache(maxsize=1)
def _valence() -> SentimentIntensityAnalyzer:
    return SentimentIntensityAnalyzer()


def valence(sentences: list[str]) -> tuple[float, float, float, float]:
    """(mean neg, mean pos, min compound, mean compound) over ``sentences`` (zeros when none)."""
    if not sentences:
        return 0.0, 0.0, 0.0, 0.0
    scores = [_valence().polarity_scores(s) for s in sentences]
    n = len(scores)
    compound = [x["compound"] for x in scores]
    return (sum(x["neg"] for x in scores) / n, sum(x["pos"] for x in scores) / n, min(compound), sum(compound) / n)


def featurise(text: str, *, rule_cue: bool, sentences: list[str] | None = None) -> np.ndarray:
    """The feature vector (float32, ``N_FEATURES`` long) of ``text`` (mentions already masked)."""
    vec = np.zeros(N_FEATURES, dtype=np.float32)
    toks = tokens(text)
    counts: dict[int, int] = {}
    for i, t in enumerate(toks):
        counts[_bucket(t)] = counts.get(_bucket(t), 0) + 1
        if i + 1 < len(toks):
            b = _bucket(t + " " + toks[i + 1])
            counts[b] = counts.get(b, 0) + 1
    for b, n in counts.items():
        vec[b] = 1.0 + math.log(n)
    norm = float(np.linalg.norm(vec[:HASH_DIM]))
    if norm:
        vec[:HASH_DIM] *= HASHED_SCALE / norm
    words = [w for w in _WORD.findall(_fold(text))]
    n = max(len(words), 1)
    lines = max(text.count("\n") + 1, 1)
    dense = (
        1.0 if rule_cue else 0.0,
        sum(w in _FIRST_PERSON for w in words) / n * 5,
        sum(c.isdigit() for c in text) / max(len(text), 1) * 10,
        min(len(_MONEY_UNITS.findall(text)) / n * 10, 1.0),
        min(len(_MARKUP.findall(text)) / lines, 1.0),
        *(math.log1p(sum(_AFFECT.get(t) == c for t in toks)) for c in AFFECT_WORDS),
        *valence(sentences if sentences is not None else [text]),
        *(math.log1p(sum(c in _FLAT.get(t, ()) for t in toks)) for c in FLAT_WORDS),
    )
    vec[HASH_DIM:] = dense
    return vec


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b / (na * nb)) if na and nb else 0.0
