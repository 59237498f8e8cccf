import os
import stat
from pathlib import Path

import pytest
import yaml

from lucasrag.markup import indexed_text
from lucasrag_assets.rules.frontmatter_edit import InvalidNoteRefused, record_approval, with_workspace
from lucasrag_assets.rules.vault_scan import parse_note

BODY = b"# Note\n\nSome  text with\ttabs, trailing space \n\n---\nnot: frontmatter\n---\nend"

EDITS = [
    pytest.param(b"Body only.\n", b"---\nworkspace: personal\n---\nBody only.\n", id="no-frontmatter-prepended"),
    pytest.param(b"---\ntitle: T\n---\nB\n", b"---\ntitle: T\nworkspace: personal\n---\nB\n", id="added-before-close"),
    pytest.param(
        b"---\nworkspace: technical\ntitle: T\n---\nB\n",
        b"---\nworkspace: personal\ntitle: T\n---\nB\n",
        id="replaced-in-place",
    ),
    pytest.param(
        b"---\nworkspace:   'creative'  # old\n---\nB",
        b"---\nworkspace: personal\n---\nB",
        id="replaced-quoted-comment",
    ),
    pytest.param(
        b"---\nworkspace:\n  - technical\ntags: [a]\n---\nB",
        b"---\nworkspace: personal\ntags: [a]\n---\nB",
        id="multiline-value-replaced",
    ),
    pytest.param(
        b"---\nmeta:\n  workspace: x\n---\nB",
        b"---\nmeta:\n  workspace: x\nworkspace: personal\n---\nB",
        id="nested-key-untouched",
    ),
    pytest.param(b"---\n---\nB", b"---\nworkspace: personal\n---\nB", id="empty-frontmatter"),
    pytest.param(b"---\ntitle: T\n...\nB", b"---\ntitle: T\nworkspace: personal\n...\nB", id="dots-close"),
    pytest.param(
        b"---\r\ntitle: T\r\n---\r\nB\r\n", b"---\r\ntitle: T\r\nworkspace: personal\r\n---\r\nB\r\n", id="crlf-added"
    ),
    pytest.param(b"Body\r\nline\r\n", b"---\r\nworkspace: personal\r\n---\r\nBody\r\nline\r\n", id="crlf-prepended"),
    pytest.param(b"\xef\xbb\xbfBody\n", b"\xef\xbb\xbf---\nworkspace: personal\n---\nBody\n", id="bom-kept-first"),
    pytest.param(b"---\nworkspace: personal\n---\nB", b"---\nworkspace: personal\n---\nB", id="already-approved"),
]


@pytest.mark.parametrize("before, after", EDITS)
def test_with_workspace(before, after):
    assert with_workspace(before, "personal") == after


def write(vault: Path, rel: str, data: bytes) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


HEADERS = [
    pytest.param(b"", id="none"),
    pytest.param(b"---\ndate: 2020-01-01\nzeta: 1\nalpha: [x, y]\ntitle: 'Quoted: yes'\n---\n", id="keys-in-odd-order"),
    pytest.param(b"---\nalpha: 1\nworkspace: technical\nzeta: 2\n---\n", id="existing-workspace"),
]


@pytest.mark.parametrize("header", HEADERS)
def test_record_approval_keeps_body_and_keys(tmp_path, header):
    path = write(tmp_path, "inbox/n.md", header + BODY)
    old_keys = list(yaml.safe_load(header.split(b"---\n")[1]) or {}) if header else []
    record_approval(tmp_path, "inbox/n.md", "creative")
    raw = path.read_bytes()
    assert raw.endswith(b"---\n" + BODY) and raw.count(BODY) == 1
    note = parse_note(tmp_path, path, max_bytes=1 << 20)
    assert note.status == "ok" and note.workspace == "creative"
    assert note.body == indexed_text(BODY.decode())  # Note.body is the indexed text; the bytes are checked above
    assert [k for k in note.frontmatter if k != "workspace"] == [k for k in old_keys if k != "workspace"]


def test_idempotent_and_untouched_when_already_approved(tmp_path):
    path = write(tmp_path, "n.md", b"---\ntitle: T\n---\nB\n")
    record_approval(tmp_path, "n.md", "personal")
    once = path.read_bytes()
    os.utime(path, ns=(1, 1))
    record_approval(tmp_path, "n.md", "personal")
    assert path.read_bytes() == once and path.stat().st_mtime_ns == 1


def test_crlf_file(tmp_path):
    data = b"---\r\ntitle: T\r\nworkspace: technical\r\n---\r\nLine one\r\n\r\nLine two\r\n"
    path = write(tmp_path, "n.md", data)
    record_approval(tmp_path, "n.md", "administrative")
    assert path.read_bytes() == data.replace(b"technical", b"administrative")


def test_mode_kept_and_no_temp_left(tmp_path):
    path = write(tmp_path, "n.md", b"B\n")
    path.chmod(0o640)
    record_approval(tmp_path, "n.md", "personal")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.md"]


def test_symlink_inside_vault_edits_target(tmp_path):
    target = write(tmp_path, "real.md", b"B\n")
    (tmp_path / "link.md").symlink_to(target)
    record_approval(tmp_path, "link.md", "personal")
    assert (tmp_path / "link.md").is_symlink()
    assert target.read_bytes() == b"---\nworkspace: personal\n---\nB\n"


ERRORS = [
    pytest.param("n.md", "work", ValueError, "unknown workspace 'work': expected one of", id="unknown-workspace"),
    pytest.param("../out.md", "personal", ValueError, "not a path inside the vault", id="dotdot"),
    pytest.param("/etc/n.md", "personal", ValueError, "not a path inside the vault", id="absolute"),
    pytest.param(".trash/n.md", "personal", ValueError, "hidden folder", id="hidden-folder"),
    pytest.param("n.txt", "personal", ValueError, "not a Markdown note", id="not-md"),
    pytest.param("missing.md", "personal", FileNotFoundError, "no note 'missing.md'", id="missing"),
    pytest.param("dir.md", "personal", ValueError, "is not a file", id="directory"),
    pytest.param("escape.md", "personal", ValueError, "outside the vault", id="symlink-out"),
    pytest.param("unclosed.md", "personal", ValueError, "never closes", id="unclosed-frontmatter"),
    pytest.param("badyaml.md", "personal", ValueError, "not valid YAML", id="bad-yaml"),
    pytest.param("listfm.md", "personal", ValueError, "not a 'key: value' mapping", id="list-frontmatter"),
    pytest.param("binary.md", "personal", InvalidNoteRefused, r"is invalid \(binary content", id="binary"),
    pytest.param("latin1.md", "personal", InvalidNoteRefused, r"is invalid \(not UTF-8", id="latin1"),
    pytest.param("empty.md", "personal", InvalidNoteRefused, r"is invalid \(empty file", id="empty"),
    pytest.param("blank.md", "personal", InvalidNoteRefused, r"is invalid \(file contains only whitespace", id="blank"),
]


@pytest.mark.parametrize("rel, workspace, exc, message", ERRORS)
def test_errors_leave_files_alone(tmp_path, rel, workspace, exc, message):
    vault = tmp_path / "vault"
    files = {
        "n.md": b"B\n",
        "n.txt": b"B\n",
        ".trash/n.md": b"B\n",
        "unclosed.md": b"---\ntitle: T\nB\n",
        "badyaml.md": b"---\ntitle: [x\n---\nB\n",
        "listfm.md": b"---\n- a\n---\nB\n",
        "binary.md": b"ab\x00cd\n",
        "latin1.md": b"caf\xe9 au lait\n",
        "empty.md": b"",
        "blank.md": b"  \n\n",
    }
    for name, data in files.items():
        write(vault, name, data)
    write(tmp_path, "out.md", b"outside\n")
    (vault / "dir.md").mkdir()
    (vault / "escape.md").symlink_to(tmp_path / "out.md")
    snapshot = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(exc, match=message):
        record_approval(vault, rel, workspace)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == snapshot
