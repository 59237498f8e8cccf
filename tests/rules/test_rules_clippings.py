"""Clipped pages that never arrived (rules/clippings.py): content-free whatever words they hold,
and a person's own note or a real article is never taken for one."""

import pytest

from lucasrag_assets.rules.clippings import failed_clipping, source_url
from lucasrag_assets.rules.vault_scan import parse_note

ARTICLE = "https://example.com/blog/2024/why-we-rewrote-it"

FAILED = [
    # (title, text, source) → the start of the reason, or None
    pytest.param(
        "Not found. Sign Up to RSS.app to use this feed.",
        "Get RSS feeds from any page",
        ARTICLE,
        "a web clipping of a page that failed",
        id="not-found-title",
    ),
    pytest.param("404", "", ARTICLE, "a web clipping of a page that failed", id="bare-404"),
    pytest.param("404 Not Found", "nginx", ARTICLE, "a web clipping of a page that failed", id="404-not-found"),
    pytest.param("Error 503", "", ARTICLE, "a web clipping of a page that failed", id="error-503"),
    pytest.param("Sign in to your account", "", ARTICLE, "a web clipping of a page that failed", id="sign-in-wall"),
    pytest.param("Login", "", ARTICLE, "a web clipping of a page that failed", id="login"),
    pytest.param("Just a moment...", "", ARTICLE, "a web clipping of a page that failed", id="cloudflare-wait"),
    pytest.param(
        "Attention Required! | Cloudflare", "", ARTICLE, "a web clipping of a page that failed", id="cloudflare-block"
    ),
    pytest.param(
        "Apologies, but something went wrong on our end.",
        "Refresh the page",
        ARTICLE,
        "a web clipping of a page that failed",
        id="apologies",
    ),
    pytest.param(
        "v8 idolate - Google Search",
        "Our systems have detected unusual traffic from your computer network. This page checks ...",
        ARTICLE,
        "a web clipping of a page that turned the clipper away",
        id="captcha-text",
    ),
    pytest.param(
        "My App",
        "You need to enable JavaScript to run this app.",
        ARTICLE,
        "a web clipping of a page that turned the clipper away",
        id="javascript-wall",
    ),
    pytest.param(
        "Every idea needs a",
        "The best ideas can change who we are.",
        "https://medium.com/about?autoplay=1",
        "a web clipping of a site's front",
        id="about-page",
    ),
    pytest.param(
        "RSS.app",
        "Instantly generate RSS feeds",
        "https://rss.app",
        "a web clipping of a site's front",
        id="front-page",
    ),
    pytest.param(
        "Hugo Pod",
        "About Press Copyright",
        "https://m.youtube.com/@HugoPodw",
        "a web clipping of a site's front",
        id="profile-page",
    ),
    pytest.param(
        "Kobo sync",
        "We just shipped",
        "https://readwise.io/dashboard",
        "a web clipping of a site's front",
        id="dashboard",
    ),
    # Not failures: real articles whose titles look alarming, and anything that is not a clipping.
    pytest.param("Error handling in Go", "Errors are values.", ARTICLE, None, id="article-error-handling"),
    pytest.param("404 pages that delight", "A gallery.", ARTICLE, None, id="article-404-pages"),
    pytest.param("Sign in with Apple, step by step", "Add the capability.", ARTICLE, None, id="article-sign-in"),
    pytest.param("500 Startups demo day", "Notes from the talks.", ARTICLE, None, id="article-500"),
    pytest.param("Something went wrong with my sourdough", "Too wet.", ARTICLE, None, id="article-went-wrong"),
    pytest.param(
        "How captchas work",
        "A long opening paragraph about bots. " * 20 + "captcha",
        ARTICLE,
        None,
        id="captcha-far-down",
    ),
    pytest.param("A post", "text", "https://medium.com/@someone/a-post-1234", None, id="profile-article"),
    pytest.param("A post", "text", "https://example.com/?p=123", None, id="front-page-with-article-query"),
    pytest.param("Not found", "the person's own note, titled oddly", None, None, id="not-a-clipping"),
]


@pytest.mark.parametrize(
    "kinds, expected",
    [
        pytest.param(("Projects", "UI"), None, id="a-project-with-its-home-page"),
        pytest.param(("People",), None, id="a-person-with-their-site"),
        pytest.param(("Clippings",), "a web clipping of a site's front", id="a-clipping-says-so"),
        pytest.param((), "a web clipping of a site's front", id="no-kind-judged-as-before"),
    ],
)
def test_a_front_page_address_on_a_persons_own_record_is_its_home_page(kinds, expected):
    reason = failed_clipping("Minimal Theme", "To-do: colour schemes, e-ink mode", "https://minimal.guide", kinds)
    assert reason is None if expected is None else reason.startswith(expected)


@pytest.mark.parametrize("title, text, source, expected", FAILED)
def test_failed_clipping(title, text, source, expected):
    reason = failed_clipping(title, text, source)
    if expected is None:
        assert reason is None
    else:
        assert reason and reason.startswith(expected), reason


SOURCES = [
    pytest.param({"source": "https://a.example/x"}, "https://a.example/x", id="source"),
    pytest.param({"URL": " http://a.example/x "}, "http://a.example/x", id="url-any-case"),
    pytest.param({"source": ["https://a.example/x", "https://b"]}, "https://a.example/x", id="list"),
    pytest.param({"source": "[[Some book]]"}, None, id="a-link-is-not-an-address"),
    pytest.param({"link": "ftp://a.example"}, None, id="not-the-web"),
    pytest.param({}, None, id="none"),
]


@pytest.mark.parametrize("meta, expected", SOURCES)
def test_source_url(meta, expected):
    assert source_url(meta) == expected


def test_a_properties_only_reference_note_is_not_a_clipping(tmp_path):
    """A company or app note's ``url:`` is its homepage: a link, not a saved page."""
    (tmp_path / "Obsidian.md").write_text('---\ncategories:\n  - "[[Apps]]"\nurl: https://obsidian.md/\n---\n')
    (tmp_path / "Clip.md").write_text("---\nsource: https://obsidian.md/\n---\nThe private and flexible app.\n")
    reference = parse_note(tmp_path, tmp_path / "Obsidian.md", max_bytes=1 << 20)
    clip = parse_note(tmp_path, tmp_path / "Clip.md", max_bytes=1 << 20)
    assert reference.status == "ok" and reference.source is None and reference.kinds == ("Apps",)
    assert clip.source == "https://obsidian.md/"
