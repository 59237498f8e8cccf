import hashlib

import pytest

from lucasrag_assets.rules.chunking import chunk_id, chunk_text, doc_id


def words(text: str) -> int:
    return len(text.split())


def chars(text: str) -> int:  # a counter that is not additive over words
    return len(text)


def para(n: int, word: str = "w") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


SENT10 = "Alpha beta gamma delta epsilon zeta eta theta iota kappa."

CASES = [
    pytest.param("Short note.", 50, ["Short note."], id="short-one-chunk"),
    pytest.param(
        "# Title\n\nA para.\n\n## Sub\n\nMore.",
        50,
        ["# Title\n\nA para.\n\n## Sub\n\nMore."],
        id="short-with-headings-one-chunk",
    ),
    pytest.param("", 10, [], id="empty"),
    pytest.param("  \n\n \n", 10, [], id="whitespace"),
    pytest.param(
        f"{para(4, 'a')}\n\n{para(4, 'b')}\n\n{para(4, 'c')}",
        8,
        [f"{para(4, 'a')}\n\n{para(4, 'b')}", para(4, "c")],
        id="greedy-pack",
    ),
    pytest.param(
        f"{para(5, 'a')}\n\n# Head\n\n{para(5, 'b')}",
        8,
        [para(5, "a"), f"# Head\n\n{para(5, 'b')}"],
        id="heading-glued-to-next",
    ),
    pytest.param(
        f"{para(3, 'a')}\n# Head\n{para(3, 'b')}",
        5,
        [para(3, "a"), f"# Head\n{para(3, 'b')}"],
        id="heading-breaks-paragraph",
    ),
    pytest.param(f"{SENT10} {SENT10} {SENT10}", 25, [f"{SENT10} {SENT10}", SENT10], id="long-para-on-sentences"),
    pytest.param(
        para(25),
        10,
        [para(25)[: len(para(10))], " ".join(para(25).split()[10:20]), " ".join(para(25).split()[20:])],
        id="no-punctuation-on-words",
    ),
    pytest.param(
        "x " + "supercalifragilistic" * 3 + " y", 1, ["x", "supercalifragilistic" * 3, "y"], id="lone-word-kept"
    ),
    pytest.param(
        "```\ncode\n\n# not a heading\n```\n\nafter",
        50,
        ["```\ncode\n\n# not a heading\n```\n\nafter"],
        id="fence-kept",
    ),
    pytest.param("# Only a heading", 10, ["# Only a heading"], id="only-heading"),
]


@pytest.mark.parametrize("body, max_tokens, expected", CASES)
def test_chunk_text(body, max_tokens, expected):
    assert chunk_text(body, max_tokens=max_tokens, count_tokens=words) == expected


BODIES = [
    pytest.param("\n\n".join(para(7, f"p{i}_") for i in range(20)), 15, id="many-paras"),
    pytest.param(" ".join([SENT10] * 30), 12, id="one-giant-para"),
    pytest.param("# A\n\n" + para(40) + "\n\n## B\n\n" + "Hi. " * 50 + "\n\n- x\n- y\n", 9, id="mixed"),
    pytest.param("word " * 500, 3, id="tiny-limit"),
]


@pytest.mark.parametrize("body, max_tokens", BODIES)
@pytest.mark.parametrize("count", [words, chars], ids=["words", "chars"])
def test_invariants(body, max_tokens, count):
    limit = max_tokens if count is words else max_tokens * 8
    chunks = chunk_text(body, max_tokens=limit, count_tokens=count)
    assert all(c.strip() for c in chunks), "no empty chunks"
    assert " ".join(chunks).split() == body.split(), "every word, in order"
    assert all(count(c) <= limit for c in chunks if len(c.split()) > 1)


def test_bad_limit():
    with pytest.raises(ValueError, match="max_tokens"):
        chunk_text("x", max_tokens=0, count_tokens=words)


def test_ids_are_deterministic_and_documented():
    path, text = "diary/2020-01-01.md", "Hello."
    assert doc_id(path) == "doc-" + hashlib.sha256(path.encode()).hexdigest()[:16]
    assert chunk_id(path, 2, text) == "chunk-" + hashlib.sha256(f"{path}\0{2}\0{text}".encode()).hexdigest()[:20]
    assert len(doc_id(path)) == 4 + 16 and len(chunk_id(path, 0, text)) == 6 + 20


ID_INPUTS = [
    pytest.param(("a.md", 0, "x"), ("b.md", 0, "x"), id="path"),
    pytest.param(("a.md", 0, "x"), ("a.md", 1, "x"), id="index"),
    pytest.param(("a.md", 0, "x"), ("a.md", 0, "y"), id="text"),
    pytest.param(("a.md", 1, "2x"), ("a.md", 12, "x"), id="separator-prevents-collision"),
]


@pytest.mark.parametrize("one, other", ID_INPUTS)
def test_chunk_ids_differ(one, other):
    assert chunk_id(*one) != chunk_id(*other)
    assert chunk_id(*one) == chunk_id(*one)


# -- tables chunk by rows ------------------------------------------------------------

TABLE = "## Films\n| Title | Year | Note |\n| --- | --- | --- |\n" + "".join(
    f"| Film number {i} | {1970 + i} | seen twice |\n" for i in range(12)
)


def _words(text: str) -> int:
    return len(text.split())


def test_a_long_table_is_cut_between_rows_and_each_piece_keeps_the_header():
    chunks = chunk_text(TABLE, max_tokens=40, count_tokens=_words)
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.startswith("## Films\n| Title | Year | Note |")
        assert _words(chunk) <= 40
        rows = chunk.split("\n")[2:]
        assert rows and all(r.startswith("| Film number") and r.endswith("|") for r in rows)
    assert sum(len(c.split("\n")) - 2 for c in chunks) == 12  # every row once, no separator row


def test_no_chunk_is_table_junk():
    padded = "| a | b |\n|:----|----:|\n" + "".join(f"|  x{i}   |   y{i}   |\n" for i in range(30))
    for chunk in chunk_text(padded, max_tokens=12, count_tokens=_words):
        assert chunk.strip("|-: \n"), repr(chunk)
