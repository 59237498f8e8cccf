"""Building blocks: sentence pools to prose within a word budget, poems, slugs, frontmatter."""

from __future__ import annotations

import json
import random
import re
from datetime import date

from lucasrag_harness.evaluation.vault_generator._persona import MAX_WORDS, city_at
from lucasrag_harness.evaluation.vault_generator._phrases import POEM_LINES, SLOTS


class _Writer:
    """Builds note texts; all randomness through one ``random.Random``."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ctx: dict[str, str] = {}
        writer = self

        class _Slots(dict):
            def __missing__(self, name: str) -> str:
                if name in writer.ctx:
                    return writer.ctx[name]
                return writer.rng.choice(SLOTS[name])

        self._slots = _Slots()

    def fill(self, template: str) -> str:
        """Fill ``{slot}`` placeholders: context values first, else a random choice from SLOTS."""
        if "{" not in template:
            return template
        return template.format_map(self._slots)

    def set_context(self, domain: str, year: int | None) -> None:
        y = year if year is not None else 9999
        city = city_at(y)
        lisbon = city == "Lisbon"
        self.ctx = {
            "city": city,
            "cur": "€" if lisbon else "£",
            "tax_form": "IRS Modelo 3" if lisbon else "Self Assessment return",
            "tax_portal": "Portal das Finanças" if lisbon else "HMRC online service",
            "tax_office": "Finanças" if lisbon else "HMRC",
            "form": "atestado de residência form" if lisbon else "council tax form",
        }

    def sentences(self, pool: list[str], k: int, exclude: re.Pattern | None = None) -> list[str]:
        out = []
        for _ in range(k * 4):
            s = self.fill(self.rng.choice(pool))
            if exclude is not None and exclude.search(s):
                continue
            if s not in out:
                out.append(s)
            if len(out) == k:
                break
        return out

    def target_words(self) -> int:
        r = self.rng.random()
        if r < 0.08:
            return self.rng.randint(30, 60)
        if r < 0.88:
            return self.rng.randint(60, 250)
        return self.rng.randint(250, MAX_WORDS)


def _words(parts: list[str]) -> int:
    return sum(len(p.split()) for p in parts)


def _prose(
    w: _Writer,
    pool: list[str],
    target: int,
    first: list[str],
    exclude: re.Pattern | None = None,
    items: list[str] | None = None,
    headings: list[str] | None = None,
    code: list[str] | None = None,
) -> list[str]:
    """Paragraphs (and maybe a list, a heading, a code block) of roughly ``target`` words."""
    rng = w.rng
    blocks: list[str] = []
    para: list[str] = list(first)
    want_list = items is not None and rng.random() < 0.3
    want_code = code is not None and rng.random() < 0.25
    deck: list[str] = []  # templates not used yet in this note (reshuffled when exhausted)
    words = _words(para)
    guard = 0
    while words < target and guard < 200:
        guard += 1
        if not deck:
            deck = pool[:]
        s = w.fill(deck.pop(rng.randrange(len(deck))))
        if exclude is None or not exclude.search(s):
            para.append(s)
            words += len(s.split())
        if len(para) >= rng.randint(2, 5):
            blocks.append(" ".join(para))
            para = []
            extra = None
            if headings and rng.random() < 0.25:
                blocks.append(rng.choice(headings))
            if want_list:
                extra = "\n".join(w.sentences(items, rng.randint(2, 5), exclude))
                want_list = False
            elif want_code:
                extra = w.fill(rng.choice(code))
                want_code = False
            if extra:
                blocks.append(extra)
                words += len(extra.split())
    if para:
        blocks.append(" ".join(para))
    # cap the length (MAX_WORDS): drop trailing blocks, never the first
    while len(blocks) > 1 and _words(blocks) > MAX_WORDS:
        blocks.pop()
    return blocks


def _poem(w: _Writer, stanzas: int) -> list[str]:
    rng = w.rng
    lines = POEM_LINES[:]
    rng.shuffle(lines)
    out, i = [], 0
    for _ in range(stanzas):
        n = rng.randint(3, 4)
        out.append("\n".join(lines[i : i + n]))
        i += n
    return out


def _slug(title: str) -> str:
    s = re.sub(r"[^\w\s'-]", "", title.lower(), flags=re.UNICODE)
    return re.sub(r"\s+", " ", s).strip()[:60] or "note"


def _yaml_scalar(v: str) -> str:
    if re.fullmatch(r"[\w .'-]+", v) and v[0] not in "-'" and ":" not in v:
        return v
    return json.dumps(v, ensure_ascii=False)


def _frontmatter(keys: list[tuple[str, object]]) -> str:
    lines = ["---"]
    for k, v in keys:
        if isinstance(v, list):
            lines.append(f"{k}: [" + ", ".join(_yaml_scalar(str(x)) for x in v) + "]")
        elif isinstance(v, date):
            lines.append(f"{k}: {v.isoformat()}")
        elif isinstance(v, tuple) and v and v[0] == "quoted-date":
            lines.append(f'{k}: "{v[1]}"')
        else:
            lines.append(f"{k}: {_yaml_scalar(str(v))}")
    lines.append("---")
    return "\n".join(lines) + "\n"


FOLDERS = {
    "technical": ["tech", "tech", "tech/k8s", "tech/postgres", "tech/rust", "work", "tech/notes"],
    "creative": ["writing", "writing/poems", "writing/poems", "writing/stories", "writing/drafts"],
    "personal": ["journal", "journal", "journal", "journal", "personal", "personal/travel"],
    "administrative": ["admin", "admin/tax", "admin/insurance", "admin/bank", "admin/housing", "admin/work"],
}
UNKNOWN_KEYS = [
    ("mood", ["good", "tired", "ok", "bright"]),
    ("status", ["draft", "ongoing", "done"]),
    ("cssclass", ["wide"]),
    ("rating", ["3", "4", "5"]),
    ("source", ["phone", "laptop"]),
    ("aliases", [[]]),
]
