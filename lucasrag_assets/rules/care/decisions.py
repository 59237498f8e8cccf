"""A person's care decisions, recorded in the vault so they outlive any data folder (§3.11).

* ``confirm PATH SUBJECT`` adds the subject to the note's frontmatter ``charged:``
  (the body bytes stay identical; the frontmatter is edited line by line with the
  same atomic writer and path checks as a quarantine approval);
* ``dismiss PATH SUBJECT`` adds ``{path, subject}`` to
  ``<vault>/.lucasrag/care_decisions.yaml`` (no note is touched).

Both win over inference at the next ingest: a confirmed subject is declared, a
dismissed one is neutral whatever the detector says.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.approval import _header, _resolve_note, _write_atomically, with_frontmatter_key
from lucasrag_assets.rules.charged import canonical_name

DECISIONS_FILE = "care_decisions.yaml"


class CareDecisionError(ValueError):
    """A decision cannot be recorded; the message says why and what to do."""


def decisions_path(vault: Path) -> Path:
    return vault / ".lucasrag" / DECISIONS_FILE


def load_dismissals(vault: Path) -> dict[str, set[str]]:
    """Note path → canonical subject names a person dismissed for it (empty when no file)."""
    path = decisions_path(vault)
    try:
        raw = load_settings_yaml(vault, path) or {}  # a regular file inside the vault, bounded
    except SettingsFileUnreadable as exc:
        raise CareDecisionError(f"{exc}; fix or delete it") from None
    except yaml.YAMLError as exc:
        raise CareDecisionError(f"{path}: not valid YAML ({exc}); fix or delete it") from exc
    entries = raw.get("dismissed", []) if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise CareDecisionError(f"{path}: 'dismissed' must be a list of {{path, subject}}")
    out: dict[str, set[str]] = {}
    for e in entries:
        if isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("subject"), str):
            out.setdefault(e["path"], set()).add(e["subject"])
    return out


def _yaml_list(names: Sequence[str]) -> bytes:
    return (
        "["
        + ", ".join(yaml.safe_dump(n, default_flow_style=True).strip().removesuffix("...").strip() for n in names)
        + "]"
    ).encode()


def with_charged(raw: bytes, names: Sequence[str]) -> bytes:
    """``raw`` with its frontmatter's ``charged:`` set to ``names``; everything else byte-identical."""
    try:
        return with_frontmatter_key(raw, "charged", _yaml_list(names))
    except ValueError as exc:
        raise CareDecisionError(str(exc)) from None


def _subject(name: str, subjects: Sequence[DeferenceSubject]) -> str:
    canonical = canonical_name(name, subjects)
    if not any(s.name == canonical for s in subjects):
        known = ", ".join(s.name for s in subjects) or "none"
        raise CareDecisionError(f"{name!r} is not on the deference list (subjects: {known})")
    return canonical


def confirm(vault: Path, rel_path: str, name: str, subjects: Sequence[DeferenceSubject]) -> str:
    """Record ``name`` as charged in the note's frontmatter; returns the canonical subject."""
    subject = _subject(name, subjects)
    path = _resolve_note(vault, rel_path)
    raw = path.read_bytes()
    try:
        header = _header(raw) or {}
    except ValueError as exc:
        raise CareDecisionError(str(exc).replace("approving", "confirming")) from None
    current = header.get("charged") or []
    current = [current] if isinstance(current, str) else [str(c) for c in current]
    if any(canonical_name(c, subjects) == subject for c in current):
        _undismiss(vault, rel_path, subject)
        return subject
    new = with_charged(raw, [*current, subject])
    if subject not in [canonical_name(str(c), subjects) for c in (_header(new) or {}).get("charged") or []]:
        raise CareDecisionError("could not record the decision in the frontmatter; edit the note by hand")
    _write_atomically(path, new)
    _undismiss(vault, rel_path, subject)
    return subject


def _write_dismissals(vault: Path, entries: list[dict]) -> None:
    path = decisions_path(vault)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# Care decisions recorded by `lucasrag care dismiss` (subjects not charged in a note).\n"
    text += yaml.safe_dump({"dismissed": entries}, allow_unicode=True, sort_keys=False)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _entries(vault: Path) -> list[dict]:
    return [{"path": p, "subject": s} for p, names in sorted(load_dismissals(vault).items()) for s in sorted(names)]


def _undismiss(vault: Path, rel_path: str, subject: str) -> None:
    entries = _entries(vault)
    kept = [e for e in entries if (e["path"], e["subject"]) != (rel_path, subject)]
    if kept != entries:
        _write_dismissals(vault, kept)


def dismiss(vault: Path, rel_path: str, name: str, subjects: Sequence[DeferenceSubject]) -> str:
    """Record that the note is not charged for ``name``; returns the canonical subject."""
    subject = _subject(name, subjects)
    path = _resolve_note(vault, rel_path)
    header = _header(path.read_bytes()) or {}
    declared = header.get("charged") or []
    declared = [declared] if isinstance(declared, str) else [str(c) for c in declared]
    if any(canonical_name(c, subjects) == subject for c in declared):
        raise CareDecisionError(
            f"{rel_path} declares {subject!r} in its frontmatter 'charged:'; remove it there (a person's record)"
        )
    entries = _entries(vault)
    if {"path": rel_path, "subject": subject} not in entries:
        _write_dismissals(
            vault, sorted([*entries, {"path": rel_path, "subject": subject}], key=lambda e: (e["path"], e["subject"]))
        )
    return subject
