"""The private-note rule (lucasrag/privacy.py): gitignore patterns of `.lucasrag/private` and `private: true`,
and the scanner that never reads a pattern's note and keeps nothing of a private one."""

from __future__ import annotations

import os

import pytest

from lucasrag.privacy import (
    PrivacyPatternsUnreadable,
    header_says_private,
    is_private,
    load_privacy,
    parse_patterns,
    private_now,
    says_private,
)
from lucasrag_assets.rules.vault_scan import parse_note, scan_vault

PATTERNS = """\
# the person's private places
therapy/
*.secret.md
!keep.secret.md
/passwords.md
Journal/**/dreams-*.md
medical/letters/
Diary
"""

MATCHES = [
    # gitignore semantics: folder patterns, globs, negation, anchored patterns, case
    ("therapy/2024-01-02.md", True, "folder-pattern"),
    ("notes/therapy/session.md", True, "folder-pattern-at-any-depth"),
    ("therapy.md", False, "folder-pattern-is-not-a-file"),
    ("a.secret.md", True, "glob"),
    ("deep/down/b.secret.md", True, "glob-at-any-depth"),
    ("keep.secret.md", False, "negation-takes-back"),
    ("passwords.md", True, "anchored"),
    ("old/passwords.md", False, "anchored-only-at-the-root"),
    ("Journal/2020/05/dreams-may.md", True, "double-star"),
    ("Journal/dreams-may.md", True, "double-star-zero-folders"),
    ("Journal/2020/may.md", False, "double-star-other-name"),
    ("medical/letters/gp.md", True, "nested-folder"),
    ("medical/bills.md", False, "sibling-of-nested-folder"),
    ("Diary/x.md", True, "bare-name-as-folder"),
    ("THERAPY/x.md", False, "case-sensitive-like-git"),
    ("therapy notes.md", False, "prefix-is-not-a-match"),
]


@pytest.mark.parametrize("path, private", [m[:2] for m in MATCHES], ids=[m[2] for m in MATCHES])
def test_patterns_follow_gitignore(path, private):
    rules = parse_patterns(PATTERNS)
    assert rules.matches(path) is private
    assert is_private(path, rules) is private


@pytest.mark.parametrize(
    "meta, private",
    [
        ({"private": True}, True),
        ({"Private": "true"}, True),
        ({"private": "yes"}, True),
        ({"private": False}, False),
        ({"private": "no"}, False),
        ({"private": None}, False),
        ({"privacy": True}, False),
        ({}, False),
        (None, False),
    ],
)
def test_the_frontmatter_key(meta, private):
    assert says_private(meta) is private
    assert is_private("x.md", parse_patterns(""), meta) is private


@pytest.mark.parametrize(
    "raw, private",
    [
        (b"---\nprivate: true\n---\nbody", True),
        (b"\xef\xbb\xbf---\ntitle: x\nprivate: true\n...\nbody", True),
        (b"---\nprivate: false\n---\n", False),
        (b"no header\nprivate: true\n", False),
        (b"---\nprivate: true\n", False),  # never closed: not a header
        (b"---\nprivate: [unclosed\n---\n", False),  # broken YAML says nothing
        (b"+++\ntitle = 'x'\nprivate = true\n+++\nbody", True),  # a site generator's TOML header
        (b"+++\nprivate = false\n+++\n", False),
    ],
)
def test_header_only(raw, private):
    assert header_says_private(raw) is private


def test_no_file_no_patterns_and_comments_only(tmp_path):
    assert load_privacy(tmp_path).lines == ()
    (tmp_path / ".lucasrag").mkdir()
    (tmp_path / ".lucasrag" / "private").write_text("# nothing yet\n\n")
    rules = load_privacy(tmp_path)
    assert rules.lines == () and not rules.matches("a.md")


def test_an_unreadable_patterns_file_stops_rather_than_ignores(tmp_path):
    (tmp_path / ".lucasrag").mkdir()
    (tmp_path / ".lucasrag" / "private").write_bytes(b"therapy/\n\xff\xfe\n")
    with pytest.raises(PrivacyPatternsUnreadable, match="not UTF-8"):
        load_privacy(tmp_path)


def test_the_fingerprint_follows_the_patterns():
    assert parse_patterns("a/\n").fingerprint != parse_patterns("b/\n").fingerprint
    assert parse_patterns("a/\n# c\n").fingerprint == parse_patterns("a/\n").fingerprint


CANARY = "Zorblax Quentavian"


def _vault(tmp_path):
    (tmp_path / ".lucasrag").mkdir()
    (tmp_path / ".lucasrag" / "private").write_text("therapy/\n")
    (tmp_path / "therapy").mkdir()
    (tmp_path / "therapy" / "s1.md").write_text(f"---\ndate: 2024-01-02\n---\n{CANARY} said\n")
    (tmp_path / "flagged.md").write_text(f"---\nprivate: true\nworkspace: nonsense\ntitle: {CANARY}\n---\n{CANARY}\n")
    (tmp_path / "public.md").write_text("---\nworkspace: personal\n---\nA walk by the river.\n")
    return tmp_path


def test_the_scanner_keeps_a_private_notes_path_and_status_only(tmp_path):
    vault = _vault(tmp_path)
    notes = {n.path: n for n in scan_vault(vault, max_bytes=1 << 20)}
    assert notes["public.md"].status == "ok"
    for rel, why in (("therapy/s1.md", "a pattern"), ("flagged.md", "private: true")):
        note = notes[rel]
        assert (note.status, note.body, note.title, note.frontmatter, note.date, note.content_hash) == (
            "private",
            "",
            "",
            {},
            None,
            "",
        )
        assert why in note.reason and CANARY not in repr(note)  # not even a bad workspace: value is reported


def test_a_patterns_note_is_never_opened(tmp_path):
    vault = _vault(tmp_path)
    os.mkfifo(vault / "therapy" / "pipe.md")  # opened or even stat'ed as a note, it would be invalid
    assert parse_note(vault, vault / "therapy" / "pipe.md", max_bytes=1 << 20).status == "private"
    os.mkfifo(vault / "pipe.md")
    assert parse_note(vault, vault / "pipe.md", max_bytes=1 << 20).status == "invalid"


def test_private_now_reads_the_vault_as_it_is(tmp_path):
    vault = _vault(tmp_path)
    assert private_now(vault, "therapy/s1.md", max_bytes=1 << 20)
    assert private_now(vault, "flagged.md", max_bytes=1 << 20)
    assert not private_now(vault, "public.md", max_bytes=1 << 20)
    assert not private_now(vault, "missing.md", max_bytes=1 << 20)


def test_a_purge_owed_by_a_stopped_run_is_paid_by_the_next(tmp_path):
    """The chunk store owes a purge from the transaction that removed documents until the purge is done, and
    a sync that finds one owed does not take the nothing-to-do shortcut."""
    from lucasrag.index.chunk_store import SqliteChunkStore

    store = SqliteChunkStore(tmp_path / "chunks.sqlite")
    try:
        assert not store.purge_pending()
        with store.transaction():
            store.remove_docs(["doc-gone"])
            store.mark_purge_pending()
        assert store.purge_pending()  # a kill here leaves it owed
        store.purge_removed()
        assert not store.purge_pending()
    finally:
        store.close()
