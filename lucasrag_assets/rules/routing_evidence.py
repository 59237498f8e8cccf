"""What a note says about itself, as the router reads it (docs/routing.md): its meaningful words,
the words that are its own (not link names, metadata lines or a repeated title), its share of
code, its tags as words and the hint in its folders' names. Plain functions, no Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

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
_NOT_WORDS = re.compile(r"!\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)|\b(?:https?|ftp)://\S+|\bwww\.\S+")


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
