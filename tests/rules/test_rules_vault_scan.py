import datetime as dt
import os
from pathlib import Path

import pytest

from lucasrag.vault_files import iter_vault_files, vault_fingerprint
from lucasrag_assets.rules.vault_scan import Note, parse_note, scan_vault

MiB = 1024 * 1024


def write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def parse(tmp_path: Path, data: str | bytes, name: str = "note.md", max_bytes: int = MiB) -> Note:
    return parse_note(tmp_path, write(tmp_path, name, data), max_bytes=max_bytes)


# -- which files are notes ---------------------------------------------------------

LISTING = [
    pytest.param(["a.md", "b/c.md"], ["a.md", "b/c.md"], id="plain-and-nested"),
    pytest.param(["z.md", "a/y.md", "m.md"], ["a/y.md", "m.md", "z.md"], id="sorted"),
    pytest.param(
        ["a/z.md", "a/b/x.md", "ab.md", "a b/c.md", "a-b/d.md"],
        ["a/b/x.md", "a/z.md", "a b/c.md", "a-b/d.md", "ab.md"],
        id="sorted-part-by-part",  # as Path sorts: a folder's name is compared whole, before what is in it
    ),
    pytest.param(
        [".obsidian/w.md", ".git/x.md", ".lucasrag/d.md", ".trash/t.md", "ok.md"], ["ok.md"], id="hidden-folders"
    ),
    pytest.param(["a/.hidden/b.md", "a/.x.md", "a/b.md"], ["a/b.md"], id="nested-hidden-segment"),
    pytest.param(["pic.png", "doc.pdf", "notes.txt", "x.md.bak", "n.md"], ["n.md"], id="non-markdown-ignored"),
    pytest.param([], [], id="empty-vault"),
]


@pytest.mark.parametrize("files, expected", LISTING)
def test_iter_vault_files(tmp_path, files, expected):
    for rel in files:
        write(tmp_path, rel, "x")
    (tmp_path / "dir.md").mkdir()  # a directory named like a note is not a note
    assert [p.relative_to(tmp_path).as_posix() for p in iter_vault_files(tmp_path)] == expected


def test_root_inside_hidden_folder_still_scanned(tmp_path):
    root = tmp_path / ".sync" / "vault"
    write(root, "a.md", "x")
    assert [p.name for p in iter_vault_files(root)] == ["a.md"]


# -- invalid notes: (content, reason fragment) ----------------------------------------

INVALID = [
    pytest.param(b"", "empty file (0 bytes)", id="empty"),
    pytest.param(b"  \n\t\n", "only whitespace", id="whitespace-only"),
    pytest.param(b"abc\x00def", "binary content (NUL byte at offset 3)", id="nul-byte"),
    pytest.param(b"caf\xe9 au lait", "not UTF-8: invalid byte 0xE9 at offset 3", id="latin-1"),
    pytest.param("---\ntitle: [unclosed\n---\nbody\n", "malformed frontmatter: YAML error at line", id="yaml-error"),
    pytest.param("---\na: 1\n  b: 2\n---\nbody\n", "YAML error at line 3", id="yaml-error-line"),
    pytest.param("---\ntitle: x\nbody without close\n", "never closed", id="unclosed-frontmatter"),
    pytest.param("---\n- a\n- b\n---\nbody\n", "frontmatter is a list, not a mapping", id="frontmatter-list"),
    pytest.param("---\njust a string\n---\nbody\n", "frontmatter is a str", id="frontmatter-scalar"),
    pytest.param(
        "---\nworkspace: work\n---\nbody\n",
        "bad workspace 'work': expected one of technical, creative, personal, administrative",
        id="workspace-unknown",
    ),
    pytest.param("---\nworkspace: Personal\n---\nbody\n", "did you mean 'personal'?", id="workspace-case"),
    pytest.param("---\nworkspace: [personal]\n---\nbody\n", "bad workspace", id="workspace-list"),
    pytest.param("---\nband: old\n---\nbody\n", "bad band 'old': expected one of present, archival", id="band-unknown"),
    pytest.param("---\ncharged: 3\n---\nbody\n", "bad charged 3: expected a list of names", id="charged-int"),
    pytest.param("---\ncharged: [Tom, 3]\n---\nbody\n", "bad charged", id="charged-mixed"),
    pytest.param("---\ncharged: {a: b}\n---\nbody\n", "bad charged", id="charged-mapping"),
    pytest.param("---\ntitle: x\n---\n", "no body text or properties", id="title-only"),
    pytest.param("---\ntitle: x\n---\n\n   \n", "no body text or properties", id="title-only-blank-body"),
    pytest.param("---\n!!python/object:os.system x: 1\n---\nbody\n", "malformed frontmatter", id="unsafe-yaml-tag"),
]


@pytest.mark.parametrize("data, fragment", INVALID)
def test_invalid_notes_have_a_reason(tmp_path, data, fragment):
    note = parse(tmp_path, data)
    assert note.status == "invalid"
    assert fragment in note.reason
    assert note.body == "" and note.frontmatter == {}


SIZES = [
    pytest.param(int(1.2 * MiB), MiB, "file is 1.2 MiB, over the 1.0 MiB cap (LUCASRAG_MAX_NOTE_BYTES)", id="mib"),
    pytest.param(MiB + 1, MiB, "file is 1048577 bytes, over the 1048576 bytes cap", id="rounding-to-bytes"),
    pytest.param(3000, 2048, "file is 2.9 KiB, over the 2.0 KiB cap", id="kib"),
    pytest.param(20, 10, "file is 20 bytes, over the 10 bytes cap", id="bytes"),
]


@pytest.mark.parametrize("size, cap, reason", SIZES)
def test_size_cap(tmp_path, size, cap, reason):
    note = parse(tmp_path, b"a" * size, max_bytes=cap)
    assert (note.status, note.size) == ("invalid", size)
    assert note.reason.startswith(reason) and note.reason.endswith("(LUCASRAG_MAX_NOTE_BYTES)")


def test_size_at_cap_is_fine(tmp_path):
    assert parse(tmp_path, b"a" * 10, max_bytes=10).status == "ok"


# -- valid notes: (name, content, expected attributes) --------------------------------

VALID = [
    pytest.param("n.md", "Just text.\n", dict(date=None, date_source=None, title="n", body="Just text.\n"), id="bare"),
    pytest.param(
        "n.md",
        "---\ndate: 2019-05-04\n---\nx\n",
        dict(date=dt.date(2019, 5, 4), date_source="frontmatter:date"),
        id="fm-date",
    ),
    pytest.param("n.md", "---\ndate: '2019-05-04'\n---\nx\n", dict(date=dt.date(2019, 5, 4)), id="fm-date-quoted"),
    pytest.param("n.md", "---\ndate: 2019-05-04T10:30:00\n---\nx\n", dict(date=dt.date(2019, 5, 4)), id="fm-datetime"),
    pytest.param(
        "2020-01-02 diary.md", "x\n", dict(date=dt.date(2020, 1, 2), date_source="filename"), id="filename-date"
    ),
    pytest.param(
        "2020-01-02.md", "x\n", dict(date=dt.date(2020, 1, 2), date_source="filename"), id="filename-date-only"
    ),
    pytest.param("2020-02-30 x.md", "x\n", dict(date=None, date_source=None), id="filename-unreal-date"),
    pytest.param("2020-01-023.md", "x\n", dict(date=None), id="filename-date-runs-on"),
    pytest.param("note 2020-01-02.md", "x\n", dict(date=None), id="filename-date-not-at-start"),
    pytest.param(
        "2020-01-02.md",
        "---\ndate: 2011-11-11\n---\nx\n",
        dict(date=dt.date(2011, 11, 11), date_source="frontmatter:date"),
        id="fm-date-beats-filename",
    ),
    pytest.param(
        "n.md", "---\ndate:\nworkspace: ''\n---\nx\n", dict(date=None, workspace=None), id="blank-values-unset"
    ),
    pytest.param(
        "n.md",
        "---\nworkspace: personal\nband: archival\n---\nx\n",
        dict(workspace="personal", band="archival"),
        id="workspace-band",
    ),
    pytest.param("n.md", "---\ncharged: Grandad Tom\n---\nx\n", dict(charged=("Grandad Tom",)), id="charged-string"),
    pytest.param(
        "n.md", "---\ncharged: [Grandad Tom, ' Ex ']\n---\nx\n", dict(charged=("Grandad Tom", "Ex")), id="charged-list"
    ),
    pytest.param("n.md", "---\ntitle: Fm Title\n---\n# Heading\n", dict(title="Fm Title"), id="title-frontmatter"),
    pytest.param("n.md", "intro\n## sub\n# Real Heading #\nx\n", dict(title="Real Heading"), id="title-h1"),
    pytest.param("n.md", "#hashtag only\n", dict(title="n"), id="title-stem-not-hashtag"),
    pytest.param("n.md", "---\ntags: [a, '#b']\n---\nx\n", dict(tags=("a", "b")), id="tags-list"),
    pytest.param("n.md", "---\ntags: a, b c\n---\nx\n", dict(tags=("a", "b", "c")), id="tags-string"),
    pytest.param(
        "n.md", "---\nfoo: 1\nbar: [x]\n---\nx\n", dict(frontmatter={"foo": 1, "bar": ["x"]}), id="unknown-keys-kept"
    ),
    pytest.param("n.md", "---\n---\nbody\n", dict(frontmatter={}, body="body\n"), id="empty-frontmatter"),
    pytest.param("n.md", "---\r\ntitle: T\r\n---\r\nbody\r\n", dict(title="T", body="body\n"), id="crlf-indexed-as-lf"),
    pytest.param("n.md", "\ufeff---\ntitle: T\n---\nbody\n", dict(title="T", body="body\n"), id="bom"),
    pytest.param("n.md", "text\n---\nnot: frontmatter\n---\n", dict(frontmatter={}), id="rule-not-at-start"),
]


@pytest.mark.parametrize("name, data, expected", VALID)
def test_valid_notes(tmp_path, name, data, expected):
    note = parse(tmp_path, data, name=name)
    assert note.status == "ok", note.reason
    assert note.reason is None
    assert {k: getattr(note, k) for k in expected} == expected


def test_hash_size_and_path(tmp_path):
    import hashlib

    data = b"---\ntitle: x\n---\nbody\n"
    note = parse(tmp_path, data, name="sub/dir/n.md")
    assert note.path == "sub/dir/n.md"
    assert note.content_hash == hashlib.sha256(data).hexdigest()
    assert note.size == len(data)


def test_read_error_is_invalid_not_raised(tmp_path, monkeypatch):
    path = write(tmp_path, "n.md", "x")

    real_open = os.open

    def deny(target, *args, **kwargs):
        if Path(target) == path:
            raise PermissionError(13, "Permission denied")
        return real_open(target, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    note = parse_note(tmp_path, path, max_bytes=MiB)
    assert note.status == "invalid" and "Permission denied" in note.reason


def test_parse_never_modifies(tmp_path):
    path = write(tmp_path, "n.md", "---\ndate: 2021-01-01\n---\nbody\n")
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    parse_note(tmp_path, path, max_bytes=MiB)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_scan_vault_one_bad_note_does_not_stop_others(tmp_path):
    write(tmp_path, "a.md", "good\n")
    write(tmp_path, "b.md", b"\xff\xfe")
    write(tmp_path, "c.md", "")
    write(tmp_path, "d.md", "also good\n")
    notes = scan_vault(tmp_path, max_bytes=MiB)
    assert [(n.path, n.status) for n in notes] == [
        ("a.md", "ok"),
        ("b.md", "invalid"),
        ("c.md", "invalid"),
        ("d.md", "ok"),
    ]


# -- fingerprint ---------------------------------------------------------------------


def _touch(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


CHANGES = [
    pytest.param(lambda r: write(r, "new.md", "x"), True, id="note-added"),
    pytest.param(lambda r: (r / "a.md").unlink(), True, id="note-removed"),
    pytest.param(lambda r: _touch(r / "a.md"), True, id="note-touched"),
    pytest.param(lambda r: write(r, "a.md", "longer content"), True, id="note-resized"),
    pytest.param(lambda r: write(r, ".lucasrag/deference.yaml", "subjects: []\n"), True, id="deference-added"),
    pytest.param(lambda r: write(r, "pic.png", "x"), False, id="non-note-ignored"),
    pytest.param(lambda r: write(r, ".obsidian/ws.md", "x"), False, id="hidden-note-ignored"),
    pytest.param(lambda r: None, False, id="nothing"),
]


@pytest.mark.parametrize("change, differs", CHANGES)
def test_vault_fingerprint(tmp_path, change, differs):
    write(tmp_path, "a.md", "x")
    before = vault_fingerprint(tmp_path)
    change(tmp_path)
    assert (vault_fingerprint(tmp_path) != before) is differs


def test_fingerprint_sees_deference_edit(tmp_path):
    path = write(tmp_path, ".lucasrag/deference.yaml", "subjects: []\n")
    before = vault_fingerprint(tmp_path)
    _touch(path)
    assert vault_fingerprint(tmp_path) != before


TOML_NOTES = [
    # a site generator's TOML header (Hugo, Zola) between +++ lines → (status, title, date, source, tags, body start)
    pytest.param(
        b'+++\ntitle = "The barbell strategy"\ndate = "2021-06-03T13:49:00Z"\n\n[taxonomies]\ntags = ["money"]\n+++\n'
        b"Allocate most to safe bets.\n",
        ("ok", "The barbell strategy", dt.date(2021, 6, 3), "frontmatter:published", ("money",), "Allocate"),
        id="zola-taxonomies-and-a-publication-date",
    ),
    pytest.param(
        b"+++\ntitle = 'Notes'\ndate = 2020-01-02\ntags = ['a']\n+++\nText.\n",
        ("ok", "Notes", dt.date(2020, 1, 2), "frontmatter:published", ("a",), "Text."),
        id="hugo-unquoted-date",
    ),
    pytest.param(b"+++\ntitle = 'x'\nText that never closes.\n", ("invalid", "never closed"), id="unclosed"),
    pytest.param(b"+++\ntitle = \n+++\nText.\n", ("invalid", "TOML error"), id="broken-toml"),
    pytest.param(b"+++\nprivate = true\ntitle = 'secret'\n+++\nText.\n", ("private",), id="private-toml"),
]


@pytest.mark.parametrize("data, expected", TOML_NOTES)
def test_toml_frontmatter(tmp_path, data, expected):
    (tmp_path / "n.md").write_bytes(data)
    note = parse_note(tmp_path, tmp_path / "n.md", max_bytes=1 << 20)
    assert note.status == expected[0], note.reason
    if note.status == "invalid":
        assert expected[1] in note.reason
    elif note.status == "ok":
        assert (note.title, note.date, note.date_source, note.tags) == expected[1:5]
        assert note.body.startswith(expected[5])
