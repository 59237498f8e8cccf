"""The vault's own settings files are read as hostile input, like its notes: a FIFO, a socket, a symlink out
of the vault or in a loop, an alias bomb, bytes that are not UTF-8 — each is refused with its reason by
every reader (deference list, routing rules, care decisions, vault.yaml, temporal cues, the Obsidian
template settings), never followed, never a hang."""

from __future__ import annotations

import os
import socket
import threading

import pytest

from lucasrag.deference import DeferenceConfigError, load_deference
from lucasrag.vault_files import template_folders
from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml, read_settings_text
from lucasrag_assets.rules.care.decisions import CareDecisionError, load_dismissals
from lucasrag_assets.rules.conventions import _date_order
from lucasrag_assets.rules.routing.vault_rules import RoutingRulesError, load_routing_rules
from lucasrag_query.temporal import load_cues

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


def _fifo(path):
    os.mkfifo(path)


def _socket(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


def _outside(path):
    secret = path.parents[2] / "secret.yaml"
    secret.write_text("subjects: [{name: Leaked}]\n")
    path.symlink_to(secret)


def _loop(path):
    path.symlink_to(path)


def _bomb(path):
    path.write_text(BOMB)


def _latin1(path):
    path.write_bytes("subjects: [{name: Jos\xe9}]\n".encode("latin-1"))


def _object_tag(path):
    path.write_text("subjects: !!python/object/apply:os.system ['echo owned']\n")


CASES = {
    "fifo": (_fifo, "a named pipe (FIFO), not a regular file"),
    "socket": (_socket, "a socket, not a regular file"),
    "symlink-outside": (_outside, "symlink points outside the vault"),
    "symlink-loop": (_loop, "symlink loop: not followed"),
    "alias-bomb": (_bomb, "more than 64 YAML aliases"),
    "latin1": (_latin1, "not UTF-8"),
    "object-tag": (_object_tag, "is not loaded (plain values only)"),
}


def _run(call):
    """``call()`` in a thread: a reader that blocks (a FIFO opened for reading) fails the test, not the run."""
    box: dict = {}

    def target():
        try:
            box["value"] = call()
        except Exception as exc:  # noqa: BLE001 — the test inspects it
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the reader blocked"
    return box


@pytest.fixture(params=sorted(CASES))
def hostile(request, tmp_path):
    make, reason = CASES[request.param]
    vault = tmp_path / "a" / "vault"
    (vault / ".lucasrag").mkdir(parents=True)
    (vault / ".obsidian").mkdir()
    keep = []

    def put(rel):
        keep.append(make(vault / rel))
        return vault / rel

    yield vault, put, reason
    for sock in keep:
        if sock is not None:
            sock.close()


@pytest.mark.parametrize(
    "rel, reader, error",
    [
        (".lucasrag/deference.yaml", load_deference, DeferenceConfigError),
        (".lucasrag/routing.yaml", load_routing_rules, RoutingRulesError),
        (".lucasrag/care_decisions.yaml", load_dismissals, CareDecisionError),
        (".lucasrag/temporal.yaml", lambda vault: load_cues(vault / ".lucasrag/temporal.yaml"), ValueError),
    ],
)
def test_a_hostile_settings_file_is_refused_with_its_reason(hostile, rel, reader, error):
    vault, put, reason = hostile
    put(rel)
    box = _run(lambda: reader(vault))
    assert isinstance(box.get("error"), error), box
    assert reason in str(box["error"]) and rel.split("/")[-1] in str(box["error"])
    assert "Leaked" not in str(box["error"])


def test_vault_yaml_and_obsidian_settings_are_ignored_with_a_warning(hostile):
    vault, put, reason = hostile
    put(".lucasrag/vault.yaml")
    order, warnings = _run(lambda: _date_order(vault))["value"]
    assert order is None and any(reason in w for w in warnings), warnings
    put(".obsidian/templates.json")
    assert _run(lambda: template_folders(vault))["value"] == {}


def test_absent_files_are_no_settings_and_honest_ones_load(tmp_path):
    vault = tmp_path / "vault"
    (vault / ".lucasrag").mkdir(parents=True)
    assert read_settings_text(vault, vault / ".lucasrag/deference.yaml") is None
    assert load_deference(vault) == ()
    (vault / ".lucasrag/deference.yaml").write_bytes(b"\xef\xbb\xbfsubjects:\r\n  - name: Maya\r\n")  # BOM + CRLF
    assert [s.name for s in load_deference(vault)] == ["Maya"]
    (vault / "settings").mkdir()
    (vault / "settings/deference.yaml").write_text("subjects: [{name: Tom}]\n")
    (vault / ".lucasrag/deference.yaml").unlink()
    (vault / ".lucasrag/deference.yaml").symlink_to(vault / "settings/deference.yaml")  # inside the vault: read
    assert [s.name for s in load_deference(vault)] == ["Tom"]
    (vault / ".lucasrag/big.yaml").write_text("x: '" + "y" * (1024 * 1024 + 10) + "'\n")
    with pytest.raises(SettingsFileUnreadable, match="cap for a settings file"):
        load_settings_yaml(vault, vault / ".lucasrag/big.yaml")
