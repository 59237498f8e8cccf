"""Positions, description fragments and co-occurrence weights: pure functions of
(names, chunk text, note path), so an index can recompute them when a chunk goes away."""

from __future__ import annotations

from lucasrag.entities._lexicon import MAX_FRAGMENT_CHARS
from lucasrag.entities._text import _analyse, _Analysis, note_name


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
