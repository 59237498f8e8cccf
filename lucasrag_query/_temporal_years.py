"""Years and decades in a query (architecture §3.4): the rules of :mod:`lucasrag_query.temporal`
for 4-digit years, two-digit years ("'13") and decades. Stdlib only.

A **year** 1900..now.year is a standalone token ("in 2013", "2013's", "(2013)", "2013?",
"mid-2013", "'13"). Numbers that are part of something else are not years: "v2013",
"$2015", "2013ms", "1920x1080", "2013-rc1", "port 2013", "RFC 1918", a capitalised
product word before it ("Windows 2000", "SQL Server 2008"), or a unit after it ("2000
rows"). A **decade**: "1990s", "1990's", "the 90s", "'90s", "mid-90s", "the nineties",
"the noughties", "the twenty-tens", "2020s"; two-digit decades map to 20xx when that is
not in the future, else 19xx. A bare "30s" after a duration word ("sleep 30s") is
seconds. A possessive decade ("in my 20s") is a life stage: a signal without a period.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from ._temporal_periods import Match, Period

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


def find_decades(query: str, now: date) -> Iterator[tuple[int, int, str, Period | None]]:
    """(start, end, text, period) of each decade; a life stage ("my 20s") has no period."""
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
        period = None if m.group("poss") else Period(date(start, 1, 1), date(start + 9, 12, 31), "decade")
        yield m.start(), m.end(), m.group(0), period


def find_years(query: str, now: date) -> Iterator[Match]:
    """Four-digit and two-digit ("'13") years (callers drop those inside a longer match)."""
    for m in _FOUR.finditer(query):
        if _is_year(query, m.start(), m.end(), now):
            y = int(m.group(0))
            yield Match(m.start(), m.end(), m.group(0), "year", Period(date(y, 1, 1), date(y, 12, 31), "year"))
    for m in _TWO.finditer(query):
        y = _two_digit(int(m.group(1)), now)
        yield Match(m.start(), m.end(), m.group(0), "year", Period(date(y, 1, 1), date(y, 12, 31), "year"))
