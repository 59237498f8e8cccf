"""Obsidian markup out of the indexed text (lucasrag/markup.py), comments first."""

import pytest

from lucasrag.markup import clean_markup, indexed_text, strip_comments

COMMENTS = [
    pytest.param("a %%secret%% b\n", "a  b\n", id="inline"),
    pytest.param("a\n%%\nsecret\nlines\n%%\nb\n", "a\n\nb\n", id="block"),
    pytest.param("a %% never closed\nsecret\n", "a ", id="unclosed-hides-the-rest"),
    pytest.param("a %%x%% b %%y%% c", "a  b  c", id="two"),
    pytest.param("```\nprintf('%%d')\n```\nok\n", "```\nprintf('%%d')\n```\nok\n", id="code-keeps-percent"),
    pytest.param("a %% open\n```\ncode\n```\nsecret\n", "a ", id="unclosed-hides-fences-after"),
    pytest.param("no comments", "no comments", id="none"),
]


@pytest.mark.parametrize("text, expected", COMMENTS)
def test_strip_comments(text, expected):
    assert strip_comments(text) == expected


CLEAN = [
    pytest.param("See [[Ridley Scott]].", "See Ridley Scott.", id="link-target"),
    pytest.param("See [[People/Ridley Scott|Ridley]].", "See Ridley.", id="link-alias"),
    pytest.param("See [[Alien.md]].", "See Alien.", id="link-md-suffix"),
    pytest.param("See [[Alien#Cast]].", "See Alien > Cast.", id="link-heading"),
    pytest.param("See [[#Plot]].", "See Plot.", id="link-own-heading"),
    pytest.param("See [[Alien#^ab12]].", "See Alien.", id="link-block-ref"),
    pytest.param("Intro\n![[Films.base]]\n![[poster.png|200]]\nEnd", "Intro\n\nEnd", id="embeds-out"),
    pytest.param("![alt text](pic.png) here", "alt text here", id="image-keeps-alt"),
    pytest.param("A fact. ^abc123\nNext", "A fact.\nNext", id="block-id-end-of-line"),
    pytest.param("Para\n\n^quote-1\n\nMore", "Para\n\nMore", id="block-id-own-line"),
    pytest.param("x ^ y", "x ^ y", id="caret-in-prose-stays"),
    pytest.param("Top\n```dataview\nTABLE x FROM #y\n```\nEnd", "Top\nEnd", id="dataview"),
    pytest.param("Top\n```dataviewjs\ndv.list()\n```\nEnd", "Top\nEnd", id="dataviewjs"),
    pytest.param("Top\n```base\nviews: []\n```\nEnd", "Top\nEnd", id="bases"),
    pytest.param("```python\n[[not a link]]\n```", "```python\n[[not a link]]\n```", id="code-untouched"),
    pytest.param(
        "|  Name   |  Rating  |\n| ------- | :------: |\n|  Alien  |  9  |\n|   |   |",
        "| Name | Rating |\n| Alien | 9 |",
        id="table-separator-and-padding",
    ),
    pytest.param("Text\n---\nMore", "Text\n---\nMore", id="thematic-break-stays"),
    pytest.param("a\n\n\n\n\nb", "a\n\nb", id="blank-runs-collapse"),
]


@pytest.mark.parametrize("text, expected", CLEAN)
def test_clean_markup(text, expected):
    assert clean_markup(text).rstrip("\n") == expected


def test_comments_go_before_markup_sees_them():
    # a link inside a comment must not survive as a name
    assert "Secret Person" not in indexed_text("Visible %% [[Secret Person]] %% text\n")
