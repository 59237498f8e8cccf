"""Temporal-signal detection in queries (architecture §3.4). Pure, stdlib only.

A query opens the archive when it carries an explicit temporal signal:

* a **year** 1900..now.year written as a standalone token ("in 2013", "2013's",
  "(2013)", "2013?", "mid-2013", "2013-04-02", "'13"). Numbers that are part of
  something else are not years: "v2013", "$2015", "2013ms", "1920x1080", "2013-rc1",
  "port 2013", "RFC 1918", a capitalised product word before it ("Windows 2000",
  "SQL Server 2008", "Visual Studio 2019"), or a unit after it ("2000 rows").
  Any year opens the archive, the current one included (its period then makes
  material dated this year win on recency); future years are not signals.
* a **decade**: "1990s", "1990's", "the 90s", "'90s", "mid-90s", "the nineties",
  "the noughties", "the twenty-tens", "2020s". Two-digit decades map to 20xx when
  that is not in the future, else 19xx ("20s" is the 2020s today, "30s" the 1930s).
  "1990's" is a decade, never a possessive. A bare "30s" after a duration word
  ("sleep 30s", "timeout=30s") is seconds, not a decade. A possessive decade
  ("in my 20s", "her nineties") is a life stage: it opens the archive but has no period.
* a **lexical cue** from an inspectable table (:data:`DEFAULT_CUES`, extendable
  from ``<vault>/.lucasrag/temporal.yaml`` via :func:`load_cues`). Deliberately
  *not* cues: "was" ("what was the cafe called" is ordinary), "last year" and
  "2 years ago" (inside the present band's window), passive "is used to", and a
  bare "at school" (a child's school day is the present).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass(frozen=True)
class Cue:
    """A lexical temporal cue: a regex (matched case-insensitively) and a label."""

    pattern: str
    label: str


@dataclass(frozen=True)
class TemporalSignals:
    archival_open: bool
    signals: tuple[str, ...]  # matched text in query order, e.g. "2013", "the 90s", "growing up"
    periods: tuple[tuple[date, date], ...]  # inclusive date ranges that years/decades point at

    def to_dict(self) -> dict:
        """The ``temporal`` object of the result JSON (§3.9)."""
        return {"archival_open": self.archival_open, "signals": list(self.signals)}


def _not_after(words: Sequence[str]) -> str:
    """Fixed-width negative lookbehinds: not directly after any of ``words`` + one space."""
    return "".join(rf"(?<!\b{re.escape(w)} )" for w in words)


_TECH_HISTORY = (
    "git",
    "commit",
    "shell",
    "bash",
    "zsh",
    "command",
    "browser",
    "search",
    "chat",
    "version",
    "revision",
    "edit",
    "change",
    "undo",
    "clipboard",
    "call",
    "query",
    "purchase",
    "order",
    "transaction",
    "payment",
    "build",
    "job",
    "run",
    "log",
)
_PASSIVE = (
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "get",
    "gets",
    "got",
    "getting",
    "become",
    "became",
    "usually",
    "often",
    "commonly",
    "typically",
    "also",
    "mainly",
    "mostly",
    "generally",
    "widely",
    "it's",
    "that's",
    "what's",
    "i'm",
    "we're",
    "you're",
    "they're",
    "he's",
    "she's",
)
_SCHOOL = r"(?:school|high\s+school|uni|university|college|sixth\s+form)"

#: Lexical cues (regex matched case-insensitively, label). Order does not matter.
DEFAULT_CUES: tuple[Cue, ...] = (
    Cue(_not_after(_TECH_HISTORY) + r"\bhistory\b", "history"),
    Cue(r"\bhistoric(?:al)?(?:ly)?\b", "history"),
    Cue(r"\bgr(?:owing|ew)\s+up\b|\bdid\s+(?:I|we|you)\s+grow\s+up\b", "childhood"),
    Cue(r"\bas\s+an?\s+(?:kid|child|boy|girl|teen|teenager|toddler|student|undergrad)\b", "childhood"),
    Cue(r"\bchildhood\b|\bin\s+my\s+youth\b|\bschool\s+days\b|\b(?:uni|student)\s+days\b", "childhood"),
    Cue(
        r"\bwhen\s+(?:I|we)\s+(?:was|were)\s+(?:young|younger|little|small|a\s+(?:kid|child|boy|girl|"
        r"teenager|teen|student)|\d{1,2})\b",
        "childhood",
    ),
    Cue(
        rf"\b(?:when\s+(?:I|we)\s+(?:was|were)|while\s+(?:I|we)\s+(?:was|were)|back)\s+(?:at|in)\s+"
        rf"{_SCHOOL}\b",
        "school",
    ),
    Cue(rf"\bback\s+in\s+(?:the\s+day|{_SCHOOL})\b|\bback\s+then\b|\bway\s+back\b", "back then"),
    Cue(_not_after(_PASSIVE) + r"\bused\s+to\b|\bdid\s+(?:I|we|you|he|she|they)\s+use\s+to\b", "used to"),
    Cue(_not_after(("1", "2", "one", "two", "couple of")) + r"\byears\s+ago\b", "years ago"),
    Cue(r"\b(?:decades|ages|long\s+time)\s+ago\b|\blong\s+ago\b", "long ago"),
    Cue(r"\bin\s+the\s+past\b|\bformerly\b|\bpreviously\b|\bonce\s+upon\b", "the past"),
    Cue(r"\bold\s+days\b|\bnostalgi(?:a|c)\b|\bremember\s+when\b", "old days"),
    Cue(r"\bmy\s+first\s+(?:job|car|flat|apartment|house|boss|love|girlfriend|boyfriend)\b", "first"),
    Cue(r"\bex-(?=\w)|\bmy\s+ex\b", "ex-"),
)


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def load_cues(path: str | Path, *, base: Sequence[Cue] = DEFAULT_CUES) -> tuple[Cue, ...]:
    """``base`` plus the cues listed in a YAML file (``[{pattern, label}]``).

    A missing or empty file gives ``base``. A bad entry raises ValueError naming
    the file and the entry. PyYAML is imported here, not at module import.
    """
    p = Path(path)
    if not p.is_file():
        return tuple(base)
    import yaml  # noqa: PLC0415 - keep module import stdlib-only

    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    if isinstance(data, dict) and "cues" in data:
        data = data["cues"]
    if data is None:
        return tuple(base)
    if not isinstance(data, list):
        raise ValueError(f"{p}: expected a list of {{pattern, label}} entries")
    extra: list[Cue] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("pattern"), str) or not item["pattern"]:
            raise ValueError(f"{p}: entry {i} needs a non-empty string 'pattern'")
        try:
            _compile(item["pattern"])
        except re.error as exc:
            raise ValueError(f"{p}: entry {i}: bad regex {item['pattern']!r}: {exc}") from exc
        extra.append(Cue(item["pattern"], str(item.get("label") or item["pattern"])))
    return (*base, *extra)


#: Capitalised words after which a 4-digit number is a product version (case-sensitive).
PRODUCT_WORDS = frozenset(
    {
        "Windows",
        "Office",
        "Excel",
        "Word",
        "Outlook",
        "PowerPoint",
        "Access",
        "Visio",
        "Exchange",
        "SharePoint",
        "Server",
        "Studio",
        "Dynamics",
        "Lync",
        "Skype",
        "iPhone",
        "iPad",
        "Galaxy",
        "Photoshop",
        "Illustrator",
        "Lightroom",
        "AutoCAD",
        "Revit",
        "Maya",
        "Max",
        "Quicken",
        "TurboTax",
        "Delphi",
        "Kindle",
    }
)
#: Words (any case) after which a number is an identifier or a quantity, not a year.
NON_YEAR_WORDS = frozenset(
    {
        "port",
        "ports",
        "pid",
        "line",
        "lines",
        "error",
        "errno",
        "code",
        "exit",
        "status",
        "build",
        "version",
        "ver",
        "v",
        "issue",
        "ticket",
        "pr",
        "bug",
        "id",
        "page",
        "pages",
        "room",
        "flight",
        "rfc",
        "iso",
        "ieee",
        "item",
        "model",
        "step",
        "row",
        "column",
        "col",
        "node",
        "pin",
        "channel",
        "ext",
        "extension",
        "invoice",
        "order",
        "ref",
        "no",
        "nr",
        "number",
        "x",
        "uid",
        "gid",
        "user",
        "width",
        "height",
    }
)
#: Units or counted nouns after which a number is a quantity, not a year.
UNIT_WORDS = frozenset(
    {
        "ms",
        "ns",
        "us",
        "sec",
        "secs",
        "seconds",
        "min",
        "mins",
        "minutes",
        "hours",
        "hrs",
        "kb",
        "mb",
        "gb",
        "tb",
        "kib",
        "mib",
        "gib",
        "bytes",
        "px",
        "dpi",
        "rpm",
        "hz",
        "mhz",
        "ghz",
        "km",
        "m",
        "mm",
        "cm",
        "kg",
        "g",
        "mg",
        "ml",
        "l",
        "kcal",
        "cal",
        "calories",
        "words",
        "lines",
        "rows",
        "records",
        "items",
        "entries",
        "files",
        "users",
        "requests",
        "tokens",
        "characters",
        "chars",
        "errors",
        "x",
        "eur",
        "euros",
        "usd",
        "dollars",
        "gbp",
        "pounds",
        "steps",
        "points",
        "pts",
    }
)
_DURATION_WORDS = frozenset(
    {
        "timeout",
        "sleep",
        "wait",
        "waits",
        "waited",
        "every",
        "after",
        "took",
        "take",
        "takes",
        "taking",
        "for",
        "within",
        "in",
        "than",
        "about",
        "around",
        "delay",
        "interval",
        "ttl",
        "lasts",
        "lasted",
        "retry",
        "cooldown",
        "backoff",
        "over",
        "under",
        "only",
        "just",
        "of",
    }
)
_RANGE_PREFIXES = ("mid", "early", "late", "pre", "post", "circa")
_DECADE_WORDS = {
    "twenties": 2,
    "thirties": 3,
    "forties": 4,
    "fifties": 5,
    "sixties": 6,
    "seventies": 7,
    "eighties": 8,
    "nineties": 9,
    "noughties": 0,
    "naughties": 0,
    "aughts": 0,
    "twenty-tens": 1,
    "twenty tens": 1,
    "tens": 1,
}
_NEED_THE = frozenset({"tens", "aughts", "twenty tens"})

_A = "['\u2019]"
_WORDS_RX = "|".join(sorted((w.replace(" ", r"\s+") for w in _DECADE_WORDS), key=len, reverse=True))
_DECADE = re.compile(
    rf"(?<![\w$#@.=:'\u2019])(?:(?P<the>the)\s+|(?P<poss>my|his|her|their|your|our)\s+)?"
    rf"(?:(?P<part>early|mid|late)[-\s]+)?"
    rf"(?:(?P<d4>(?:19|20)\d)0{_A}?s|(?P<ap>{_A})?(?P<d2>\d)0{_A}?s|"
    rf"(?P<w>{_WORDS_RX}))"
    r"(?!\w)",
    re.IGNORECASE,
)
_FOUR = re.compile(r"(?<!\d)\d{4}(?!\d)")
_TWO = re.compile(rf"(?<![\w'\u2019]){_A}(\d{{2}})(?![\w'\u2019])")
_PREV_WORD = re.compile(r"(\S+)\s+$")
_NEXT_WORD = re.compile(r"^\s+([^\W\d_]+)")


def _two_digit(d: int, now: date) -> int:
    return 2000 + d if 2000 + d <= now.year else 1900 + d


def _prev_word(q: str, start: int) -> str:
    m = _PREV_WORD.search(q[:start])
    return m.group(1).rstrip(":#.,") if m else ""


def _is_year(q: str, s: int, e: int, now: date) -> bool:
    if not 1900 <= int(q[s:e]) <= now.year:
        return False
    p, n = q[s - 1 : s], q[e : e + 1]
    after = q[e + 1 :]
    if p.isalnum() or p == "_" or (p and p in "$€£¥#@.:+=*^%&\\"):
        return False
    if p == "-" and not (q[s - 2 : s - 1].isdigit() or q[: s - 1].lower().endswith(_RANGE_PREFIXES)):
        return False
    if n.isalnum() or n == "_" or (n and n in "%°×+"):
        return False
    if n == "-" and not (re.match(r"(?:\d{2}|\d{4})(?!\w)|\d{2}-\d{2}(?!\w)|ish\b", after)):
        return False
    if n in (".", ":") and after[:1].isalnum():
        return False
    if p.isspace():
        prev = _prev_word(q, s)
        if prev in PRODUCT_WORDS or prev.lower() in NON_YEAR_WORDS:
            return False
    m = _NEXT_WORD.match(q[e:])
    return not (m and m.group(1).lower() in UNIT_WORDS)


def detect_temporal(query: str, *, now: date, cues: Sequence[Cue] = DEFAULT_CUES) -> TemporalSignals:
    """Find the years, decades and lexical cues in ``query``; see the module docstring."""
    found: list[tuple[int, str, tuple[date, date] | None]] = []  # (position, text, period)
    taken: list[tuple[int, int]] = []
    for m in _DECADE.finditer(query):
        if m.group("w"):
            word = re.sub(r"\s+", " ", m.group("w").lower())
            if word in _NEED_THE and not (m.group("the") or m.group("poss")):
                continue
            start = _two_digit(_DECADE_WORDS[word] * 10, now)
        elif m.group("d4"):
            start = int(m.group("d4")) * 10
        else:
            bare = not (m.group("the") or m.group("poss") or m.group("part") or m.group("ap"))
            if bare and _prev_word(query, m.start()).lower() in _DURATION_WORDS:
                continue
            start = _two_digit(int(m.group("d2")) * 10, now)
        if start > now.year:
            continue
        taken.append(m.span())
        period = None if m.group("poss") else (date(start, 1, 1), date(start + 9, 12, 31))
        found.append((m.start(), m.group(0), period))

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in taken)

    for m in _FOUR.finditer(query):
        if free(*m.span()) and _is_year(query, m.start(), m.end(), now):
            y = int(m.group(0))
            found.append((m.start(), m.group(0), (date(y, 1, 1), date(y, 12, 31))))
    for m in _TWO.finditer(query):
        if free(*m.span()):
            y = _two_digit(int(m.group(1)), now)
            found.append((m.start(), m.group(0), (date(y, 1, 1), date(y, 12, 31))))
    for cue in cues:
        for m in _compile(cue.pattern).finditer(query):
            if m.group(0).strip():
                found.append((m.start(), m.group(0), None))

    signals: list[str] = []
    periods: list[tuple[date, date]] = []
    for _, text, period in sorted(found, key=lambda f: f[0]):
        if text.casefold() not in (t.casefold() for t in signals):
            signals.append(text)
        if period and period not in periods:
            periods.append(period)
    return TemporalSignals(bool(signals), tuple(signals), tuple(periods))
