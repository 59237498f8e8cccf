"""Web clippings whose page never arrived: content-free for a person, whatever words they hold.

A web clipper (Obsidian's, Omnivore, Readwise…) saves what the browser had in front of it. When
that was an error page, a sign-in wall, a captcha, a "please enable JavaScript" notice or the
site's front page instead of the article, the note has text, sometimes plenty of it, but none a
person wrote or wanted: it belongs in quarantine, like an empty note (docs/routing.md).

A note counts as a clipping when a source property (``source:``, ``url:``…) holds a web address;
only clippings are judged, so a person's own note titled "404 errors in nginx" is never touched.
Plain functions, no Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

#: Properties in which clippers record the page a note was saved from.
SOURCE_KEYS: tuple[str, ...] = ("source", "url", "link", "original_url", "origin", "canonical_url")

#: The title of a page that failed: an HTTP error, a sign-in wall, a bot check. Matched at the
#: start of the note's title, case-insensitively, and written tight enough that an article's
#: title ("Error handling in Go", "404 pages that delight", "Sign in with Apple") is not one.
_END = r"(?:\s*(?:$|[|:.!\-\u2013\u2014\u2022\u00b7]))"
FAILED_PAGE_TITLES = re.compile(
    r"^\W*(?:"
    r"(?:40\d|41\d|429|50[0-4])(?:" + _END + r"|\s+(?:not found|forbidden|error|internal|bad gateway|service"
    r" unavailable|too many requests|unauthori[sz]ed|gone)\b)"
    r"|(?:page |file )?not found"
    + _END
    + r"|error(?:\s*\d{3}\b|"
    + _END
    + r")|access denied"
    + _END
    + r"|(?:sign|log) ?(?:in|on|up)(?:\s+to\b|"
    + _END
    + r")|create an account"
    + _END
    + r"|just a moment"
    + _END
    + r"|attention required"
    + _END
    + r"|are you a robot|verify you are (?:a )?human"
    r"|(?:(?:apologies|sorry|oops)\W+(?:but )?)?something went wrong(?:" + _END + r"|\s+on our end)"
    r")",
    re.IGNORECASE,
)

#: What a page says instead of its content when the clipper was turned away: bot checks and
#: JavaScript walls. Looked for only near the top of the note, where such a page puts it (an
#: article about captchas mentions them further down, after its own opening).
FAILED_PAGE_SIGNS = re.compile(
    r"\bcaptcha\b|\bunusual traffic from your (?:computer )?network\b|\bare you a robot\b"
    r"|\bverify (?:that )?you are (?:a )?human\b|\bchecking (?:if the site connection is secure|your browser)\b"
    r"|\b(?:please )?(?:enable|turn on) javascript\b|\bjavascript is (?:required|disabled|not enabled)\b"
    r"|\bthis (?:site|page|app) requires javascript\b",
    re.IGNORECASE,
)
SIGN_HEAD_CHARS = 400

#: The first path segment of a page that is a site's door, not an article: clipping the front
#: page, an about, account or sign-in page saves the site's own blurb and navigation.
LANDING_SEGMENTS = frozenset(
    "about about-us dashboard home login log-in signin sign-in signup sign-up register account accounts "
    "settings".split()
)


def source_url(meta: Mapping[object, object]) -> str | None:
    """The web address a note was clipped from (the first source property that holds one), or None."""
    lowered = {str(k).lower(): v for k, v in meta.items()}
    for key in SOURCE_KEYS:
        value = lowered.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, str) and re.match(r"https?://", value.strip(), re.IGNORECASE):
            return value.strip()
    return None


def _landing_page(url: str) -> bool:
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if not segments:
        return not parts.query  # the site's front page (a query, e.g. ?p=123, may name an article)
    if len(segments) == 1 and segments[0].startswith("@"):
        return True  # a profile or channel page: medium.com/@name, youtube.com/@name
    return segments[0].lower() in LANDING_SEGMENTS


#: A note whose kind properties name one of these is a clipping by its own say-so.
CLIPPING_KINDS = frozenset({"clipping", "clippings", "clipped", "web clip", "web clipping", "article", "articles"})


def failed_clipping(title: str, text: str, source: str | None, kinds: tuple[str, ...] | list[str] = ()) -> str | None:
    """Why a clipped note holds no page a person wanted (a reason to show), or None.
    ``source``: the note's source address (``source_url``); a note without one is never judged.
    ``kinds``: its kind properties (``categories: [[Projects]]``): a note that calls itself something
    other than a clipping is a person's own record of a project, a person or a company, whose ``url:``
    is its home page, so a front-page address says nothing about it."""
    if not source:
        return None
    if m := FAILED_PAGE_TITLES.search(title or ""):
        return f"a web clipping of a page that failed to load (its title starts {m.group(0).strip()!r})"
    if m := FAILED_PAGE_SIGNS.search((text or "")[:SIGN_HEAD_CHARS]):
        return f"a web clipping of a page that turned the clipper away ({m.group(0).strip()!r})"
    own_record = bool(kinds) and not any(k.strip().lower() in CLIPPING_KINDS for k in kinds)
    if _landing_page(source) and not own_record:
        return f"a web clipping of a site's front, account or profile page ({source}), not an article"
    return None
