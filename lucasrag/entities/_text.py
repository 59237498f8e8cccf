"""Text analysis: Markdown cleaned to words with offsets, sentences, links and headings."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from lucasrag.markup import WIKILINK, link_note_name

_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"<?https?://[^\s)>\]]+>?")
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
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


link_target = link_note_name  # ``folder/Target.md`` → ``Target`` (lucasrag.markup)


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
            line = line[_BULLET.match(line).end() :]
        line = _INLINE_CODE.sub(" ", line)
        line = _MD_LINK.sub(lambda m: m.group(1), line)
        line = _URL.sub(" ", line)
        # wikilinks → display text, remembering where each target sits
        pieces: list[str] = []
        last = 0
        for m in WIKILINK.finditer(line):
            pieces.append(_EMPHASIS.sub("", line[last : m.start()]))
            target = link_target(m["target"]) if m["target"].strip() else ""
            shown = (m["alias"] or "").strip() or target or (m["subpath"] or "").strip()
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
            tokens.append(
                _Token(word[:-2] if possessive else word, m.start(), m.end(), index, si, at_start, possessive)
            )
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
    return _Analysis(
        text, tuple(spans), tuple(tokens), tuple(links), tuple(tags), tuple(heading_spans), tuple(word_sentence)
    )
