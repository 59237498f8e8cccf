"""Property-based fuzzing (Hypothesis) of the vault scan with hostile input: random bytes, random and
deeply nested frontmatter, YAML syntax soup, alias bombs, object tags, CRLF and BOM, odd file names
(spaces, newlines, unicode, 250 characters), FIFOs and symlinks out of the vault or in a loop.

Every case: each listed file comes back parsed or invalid with a reason, no exception, no hang, and
the vault's bytes are unchanged. The number of cases run is printed (``-s``) and asserted at the end.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lucasrag.safe_yaml import FrontmatterRefused, load_frontmatter
from lucasrag.vault_files import iter_vault_files
from lucasrag_assets.rules.vault_scan import _NoTimestampLoader, scan_vault

pytestmark = pytest.mark.slow

MAX_BYTES = 256 * 1024
EXAMPLES = {"vault": 250, "yaml": 1500}
ran: dict[str, int] = {"vault": 0, "yaml": 0}

# -- file names: anything a file system takes, up to 250 characters (255 bytes) ---------

_name_chars = st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",))
names = st.one_of(
    st.text(_name_chars, min_size=1, max_size=40),
    st.sampled_from(["with space", "new\nline", "tab\tand\rcr", "café ☕ 日記", "-dash", " lead", "trail "]),
    st.integers(1, 247).map(lambda n: "n" * n),  # + ".md": up to 250 characters
    st.integers(1, 80).map(lambda n: "é" * n),  # 2 bytes a character
).filter(lambda n: len((n + ".md").encode("utf-8")) <= 255 and n not in (".", "..", "anchor"))

# -- contents ------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30), st.dates().map(str)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=40,
)


def _nested(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "list" else ("{a: " * depth + "1" + "}" * depth)


def _bomb(levels: int, width: int) -> str:
    lines = ['a0: &a0 "lol"']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels + 1)]
    return "\n".join(lines)


yaml_soup = st.text(st.sampled_from(list("&*!|>-:?,[]{}#'\"%@` \n\tab01.~")), max_size=200)
headers = st.one_of(
    values.map(lambda v: yaml.safe_dump({"k": v, "workspace": "technical"}, allow_unicode=True)),
    st.dictionaries(
        st.sampled_from(["title", "date", "workspace", "band", "charged", "tags", "aliases"]), values, max_size=5
    ).map(lambda d: yaml.safe_dump(d, allow_unicode=True)),
    st.tuples(st.integers(1, 200), st.sampled_from(["list", "map"])).map(lambda t: "k: " + _nested(*t)),
    st.tuples(st.integers(1, 12), st.integers(1, 12)).map(lambda t: _bomb(*t)),
    st.sampled_from(
        [
            "x: !!python/object/apply:os.system ['touch /tmp/lucasrag-fuzz-pwned']",
            "x: !!python/name:os.system",
            "x: !custom 1",
            "d: !!timestamp 2021-13-01",
            "d: !!int ''",
            "a: &a [*a]",
        ]
    ),
    yaml_soup,
)
bodies = st.one_of(st.text(max_size=300), st.integers(0, 3).map(lambda n: "line\n" * (10**n)))


@st.composite
def note_bytes(draw) -> bytes:
    kind = draw(st.sampled_from(["random", "frontmatter", "frontmatter-only", "plain"]))
    if kind == "random":
        return draw(st.binary(max_size=600))
    if kind == "plain":
        text = draw(bodies)
    else:
        body = "" if kind == "frontmatter-only" else draw(bodies)
        text = f"---\n{draw(headers)}\n---\n{body}"
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8", "surrogatepass")
    return (b"\xef\xbb\xbf" + data) if draw(st.booleans()) else data


special = st.sampled_from(["fifo", "symlink-out", "symlink-loop", "symlink-in", "dir-named-md"])
entries = st.lists(st.tuples(names, st.one_of(note_bytes(), special)), min_size=1, max_size=6, unique_by=lambda e: e[0])


def _make(root: Path, name: str, content) -> None:
    path = root / f"{name}.md"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "fifo":
        os.mkfifo(path)
    elif content == "symlink-out":
        os.symlink("/etc/passwd", path)
    elif content == "symlink-loop":
        os.symlink(path.name, path)
    elif content == "symlink-in":
        os.symlink("anchor.md", path)
    else:
        path.mkdir()


def _snapshot(root: Path) -> dict[str, tuple]:
    """Every entry's kind and, for regular files, bytes: what the scan must leave as it was."""
    shot = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st_ = os.lstat(path)
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            shot[str(path.relative_to(root))] = (st_.st_mode, st_.st_mtime_ns, data)
    return shot


@settings(
    max_examples=EXAMPLES["vault"],
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(entries)
def test_scan_reports_or_parses_every_file_and_changes_nothing(files):
    ran["vault"] += 1
    with tempfile.TemporaryDirectory(prefix="lucasrag-fuzz-") as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        (root / "anchor.md").write_text("---\ntitle: anchor\n---\nthe target of inside symlinks\n")
        for name, content in files:
            _make(root, name, content)
        before = _snapshot(root)
        listed = {p.relative_to(root).as_posix() for p in iter_vault_files(root)}
        t0 = time.perf_counter()
        notes = scan_vault(root, max_bytes=MAX_BYTES)
        assert time.perf_counter() - t0 < 20  # no hang (a FIFO read would block forever)
        assert {n.path for n in notes} == listed
        for note in notes:
            # skipped: a template, or a page of only markup (e.g. a body that is one block id, ``^0``)
            assert note.status in ("ok", "invalid", "skipped")
            assert (note.status == "ok") == (note.reason is None)
            if note.status != "ok":
                assert note.reason.strip()
        by_path = {n.path: n for n in notes}
        for name, content in files:
            rel = f"{name}.md"
            if rel not in by_path:  # hidden (a name starting with '.'), or a directory: not a note
                continue
            if content in ("fifo", "symlink-out", "symlink-loop"):
                assert by_path[rel].status == "invalid" and by_path[rel].body == ""
            if content == "symlink-in":
                assert by_path[rel].status == "ok" and by_path[rel].title == "anchor"
        assert _snapshot(root) == before
    assert not Path("/tmp/lucasrag-fuzz-pwned").exists()


@settings(max_examples=EXAMPLES["yaml"], deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(headers, st.text(max_size=300)))
def test_frontmatter_loader_returns_or_refuses(header):
    """The loader alone, many more cases: a value, a refusal with a reason, or a YAML error, nothing else."""
    ran["yaml"] += 1
    try:
        load_frontmatter(header, _NoTimestampLoader)
    except FrontmatterRefused as exc:
        assert str(exc).strip()
    except yaml.YAMLError:
        pass


def test_fuzz_case_counts():
    """Runs after the two properties (file order): how many cases they tried."""
    print(f"\nfuzz cases run: vault scan {ran['vault']}, frontmatter loader {ran['yaml']}")
    if ran["vault"] and ran["yaml"]:  # both ran in this session (not deselected)
        assert ran["vault"] >= EXAMPLES["vault"] // 2 and ran["yaml"] >= EXAMPLES["yaml"] // 2
