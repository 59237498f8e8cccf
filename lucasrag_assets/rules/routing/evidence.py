"""What a note says about itself, as the router reads it (docs/routing.md): its meaningful words,
the words that are its own (not link names, metadata lines or a repeated title), its cue-word shares,
its share of code, its tags as words and the hint in its folders' names; :func:`note_evidence` reads
all of it for a frame of notes. It depends on the note alone, so the routing asset keeps it between
runs (a memo keyed by this file's source). Plain functions, no Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

import polars as pl

from lucasrag.markup import EMBED
from lucasrag.vocabulary import WORKSPACES
from lucasrag_assets.rules.clippings import failed_clipping

ROUTING_TEXT_CHARS = 2000  # the head of a note says what it is about; the tail adds cost, not signal


def routing_text(body: str) -> str:
    return body.strip()[:ROUTING_TEXT_CHARS]


#: Cue words per workspace (lower case, matched as whole words in the title, tags and text).
LEXICAL_CUES: Mapping[str, frozenset[str]] = {
    "technical": frozenset(
        "code bug bugs debug debugging server servers database databases postgres sql kubernetes k8s docker deploy "
        "deployment api apis python rust golang java javascript typescript linux kernel latency cpu memory cache query "
        "index cluster config yaml json git github commit branch merge compile compiler test tests pipeline ci "
        "terraform nginx http https tls ssl ssh script scripts function functions refactor library framework backend "
        "frontend algorithm cli command terminal bash shell npm node react css html sudo install macos repo "
        "container containers cloud aws gcp azure bigquery schema dataset datasets regex column columns row rows table tables".split()
    ),
    "creative": frozenset(
        "poem poems poetry verse stanza stanzas rhyme metaphor imagery story stories draft chapter character "
        "characters plot scene dialogue novel fiction narrator protagonist haiku sonnet lyric lyrics "
        "prose muse ink moon sea".split()
    ),
    "personal": frozenset(
        "diary today tonight mum mom dad brother sister family friend friends feel felt happy sad tired "
        "home flat cat dog birthday holiday weekend dinner walk love girlfriend boyfriend partner memories "
        "grandad grandma wedding visited moved vacation trip travel recipe movie movies film watched rating "
        "meditation yoga mindfulness habits".split()
    ),
    "administrative": frozenset(
        "tax taxes invoice invoices insurance policy premium bank account statement pension lease rent "
        "landlord contract bill bills payment payments deadline form forms renewal receipt receipts claim "
        "reference hmrc iban mortgage council registration licence license passport visa salary expenses "
        "subscription".split()
    ),
}


def lexical_shares(words: Sequence[str]) -> dict[str, float]:
    """Per workspace, the share of the cue-word hits in ``words`` that are its own (all 0 without a hit)."""
    hits = {ws: sum(w in LEXICAL_CUES[ws] for w in words) for ws in WORKSPACES}
    total = sum(hits.values())
    return {ws: (hits[ws] / total if total else 0.0) for ws in WORKSPACES}


#: Folder names that hint at a workspace (a prior, never the truth). A folder's name is read
#: without a numbering prefix ("02 Areas", "000 Tech", "1. Journal") and word by word
#: ("Book Notes" → book), the innermost folder first.
FOLDER_PRIORS: Mapping[str, str] = {
    **dict.fromkeys(
        "tech technical code coding dev development engineering programming software devops cli snippets "
        "work-notes".split(),
        "technical",
    ),
    **dict.fromkeys("writing poems poetry stories creative fiction lyrics".split(), "creative"),
    **dict.fromkeys(
        "journal journals diary personal life daily health fitness recipes travel trips book books reading".split(),
        "personal",
    ),
    **dict.fromkeys(
        "admin administrative finance finances money paperwork bills tax taxes insurance documents".split(),
        "administrative",
    ),
}
_FOLDER_NUMBERING = re.compile(r"^[\d\s._\-)]+")
_FOLDER_WORD = re.compile(r"[a-z][a-z\-]*")

_STOPWORDS = frozenset(
    "the a an and or but if then so of to in on at by for with from as is are was were be been it its this that "
    "these those i me my we our you your he she they them his her their re about into up out do did done not no "
    "yes just what when where which who how all any some can could would should will shall may might must".split()
)
_WORD = re.compile(r"[a-zA-Z][a-zA-Z'\-]+")
# Markup that carries no words of the person's own: embeds (``![[x.base]]``, ``![](img)``),
# Markdown links (``[text](url)``: clipped pages are mostly navigation links) and bare URLs.
# Wikilinks stay: ``[[Kevin Kelly]]`` is a name the person wrote.
_NOT_WORDS = re.compile(rf"{EMBED.pattern}|!?\[[^\]]*\]\([^)]*\)|\b(?:https?|ftp)://\S+|\bwww\.\S+")


def meaningful_words(text: str) -> list[str]:
    """Lower-cased words of three letters or more that are not stop words (embeds and URLs skipped)."""
    text = _NOT_WORDS.sub(" ", text)
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if len(w) >= 3 and w not in _STOPWORDS]


def folder_prior(folders: Sequence[str]) -> str | None:
    for name in reversed(folders):  # the innermost folder speaks loudest
        plain = _FOLDER_NUMBERING.sub("", name.lower()).strip()
        for key in (plain, *_FOLDER_WORD.findall(plain)):
            ws = FOLDER_PRIORS.get(key)
            if ws:
                return ws
    return None


_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)


def code_share(text: str) -> float:
    """Share of the note's non-space characters inside fenced or inline code."""
    total = sum(not c.isspace() for c in text)
    if not total:
        return 0.0
    inside = sum(sum(not c.isspace() for c in m.group(0)) for m in _CODE.finditer(text))
    return inside / total


def tag_words(tags: Sequence[str]) -> list[str]:
    """Tags as words (``#data-access``, ``areas/finance`` → data, access, areas, finance)."""
    return [w for t in tags for w in re.split(r"[/_\-#\s]+", str(t).lower()) if len(w) >= 3]


#: Property lines that say where and when a note came from, not what it says: a web clipping whose
#: page failed to import is only these (``source: https://…``, ``author:``, ``created:``).
_METADATA_LINE = re.compile(
    r"^\s*(?:source|url|link|author|authors|created|updated|modified|published|date|tags?|aliases|id|uid)\s*:.*$",
    re.IGNORECASE | re.MULTILINE,
)
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+(.*)$", re.MULTILINE)


def own_words(text: str, links: Sequence[str] = (), title: str = "") -> list[str]:
    """The meaningful words a note says itself: not the names of the notes it links to (an index
    page of links has none), not metadata property lines, not a heading that only repeats the title."""
    for name in sorted({n.strip() for n in links if n and n.strip()}, key=len, reverse=True):
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    text = _METADATA_LINE.sub(" ", text)
    title_words = set(meaningful_words(title))
    if title_words:
        text = _HEADING_LINE.sub(
            lambda m: " " if set(meaningful_words(m.group(1))) <= title_words else m.group(0), text
        )
    return meaningful_words(text)


def _column(frame: pl.DataFrame, name: str) -> list:
    """A column as a list, or Nones when the frame predates it (a hand-built frame in a test or tool)."""
    column = frame.get_column(name, default=None)
    return column.to_list() if column is not None else [None] * frame.height


#: What :func:`note_evidence` returns per note (one ``lexical_<workspace>`` share per workspace).
EVIDENCE_SCHEMA = {
    "own_words": pl.Int64,
    "content_free": pl.String,
    **{f"lexical_{ws}": pl.Float64 for ws in WORKSPACES},
    "prior": pl.String,
    "code": pl.Float64,
}


def note_evidence(valid: pl.DataFrame) -> pl.DataFrame:
    """What each note says about itself, one row per row of ``valid`` (status ``ok``): how many meaningful
    words are its own, why it is content-free (a failed clipping) if it is, its lexical cue shares, the
    workspace its folder names and kinds hint at, and its code share. It depends on the note alone
    (path, title, body, tags, kinds, links, source), so a caller may keep it between runs."""
    texts = [routing_text(b) for b in valid["body"]]
    links = [ls or [] for ls in valid["links"].to_list()]
    tags = [t or [] for t in valid["tags"].to_list()]
    kinds = [k or [] for k in _column(valid, "kinds")]
    sources = _column(valid, "source")
    rows = []
    for path, title, text, ls, tg, k, src in zip(valid["path"], valid["title"], texts, links, tags, kinds, sources):
        words = meaningful_words(title) + tag_words(tg) + tag_words(k) + meaningful_words(text)
        lexical = lexical_shares(words)
        rows.append(
            {
                "own_words": len(own_words(text, ls, title)),
                # A clipped error, sign-in or front page holds words but none the person wanted: content-free.
                "content_free": failed_clipping(title, text, src, k),
                **{f"lexical_{ws}": lexical[ws] for ws in WORKSPACES},
                "prior": folder_prior([*PurePosixPath(path).parts[:-1], *k]),
                "code": code_share(text),
            }
        )
    return pl.DataFrame(rows, schema=EVIDENCE_SCHEMA)
