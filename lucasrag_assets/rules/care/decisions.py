"""A person's care decisions, recorded in the vault so they outlive any data folder (§3.11).

* ``confirm PATH SUBJECT`` adds the subject to the note's frontmatter ``charged:``
  (the body bytes stay identical; the frontmatter is edited line by line with the
  same atomic writer and path checks as a quarantine approval);
* ``dismiss PATH SUBJECT`` adds ``{path, subject, decided, by}`` to
  ``<vault>/.lucasrag/care_decisions.yaml`` (no note is touched).

Both win over inference at the next ingest: a confirmed subject is declared, a
dismissed one is released whatever the detector says. :func:`record` applies one
decision to many (note, subject) pairs at once (a batch from ``care list``), each
write atomic, the decisions file written once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path

import yaml

from lucasrag.vault_settings import SettingsFileUnreadable, load_settings_yaml
from lucasrag.vocabulary import DeferenceSubject
from lucasrag_assets.rules.care.review import review_rows, select
from lucasrag_assets.rules.charged import canonical_name
from lucasrag_assets.rules.frontmatter_edit import _header, _resolve_note, _write_atomically, with_frontmatter_key

DECISIONS_FILE = "care_decisions.yaml"


class CareDecisionError(ValueError):
    """A decision cannot be recorded; the message says why and what to do."""


def decisions_path(vault: Path) -> Path:
    return vault / ".lucasrag" / DECISIONS_FILE


def _entries(vault: Path) -> list[dict]:
    """The recorded dismissals as written (``path``, ``subject``, and ``decided`` and ``by`` where recorded);
    none when there is no file. The file is read once and checked: a broken one names itself and the fix."""
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
    keep = ("path", "subject", "decided", "by")
    return [
        {k: e[k] for k in keep if k in e}
        for e in entries
        if isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("subject"), str)
    ]


def load_dismissals(vault: Path) -> dict[str, set[str]]:
    """Note path → canonical subject names a person dismissed for it (empty when no file)."""
    out: dict[str, set[str]] = {}
    for e in _entries(vault):
        out.setdefault(e["path"], set()).add(e["subject"])
    return out


def recorded_dismissals(vault: Path) -> dict[tuple[str, str], dict]:
    """(path, canonical subject) → the recorded dismissal: ``decided`` (ISO date) and ``by`` where recorded."""
    return {(e["path"], e["subject"]): e for e in _entries(vault)}


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
    text = "# Care decisions recorded by `lucasrag care dismiss`: subjects released for a note, when and from where.\n"
    entries = sorted(entries, key=lambda e: (e["path"], e["subject"]))
    text += yaml.safe_dump({"dismissed": entries}, allow_unicode=True, sort_keys=False)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _undismiss(vault: Path, rel_path: str, subject: str) -> None:
    entries = _entries(vault)
    kept = [e for e in entries if (e["path"], e["subject"]) != (rel_path, subject)]
    if kept != entries:
        _write_dismissals(vault, kept)


def note_tags(vault: Path, rel_path: str) -> tuple[str, ...]:
    """The note's frontmatter tags and inline ``#tags`` (for a batch decision by tag)."""
    from lucasrag_assets.rules.vault_scan import _tags

    raw = _resolve_note(vault, rel_path).read_bytes()
    try:
        header = _header(raw) or {}
    except ValueError:
        header = {}
    inline = re.findall(r"(?<![\w#&])#([A-Za-z][\w/-]*)", raw.decode("utf-8", "replace"))
    return (*(_tags(header["tags"]) if header.get("tags") else ()), *inline)


def _declared(vault: Path, rel_path: str, subjects: Sequence[DeferenceSubject]) -> list[str]:
    header = _header(_resolve_note(vault, rel_path).read_bytes()) or {}
    declared = header.get("charged") or []
    return [canonical_name(str(c), subjects) for c in ([declared] if isinstance(declared, str) else declared)]


def dismiss(vault: Path, rel_path: str, name: str, subjects: Sequence[DeferenceSubject], *, by: str = "cli") -> str:
    """Record that the note is released for ``name``; returns the canonical subject."""
    return dismiss_many(vault, [(rel_path, name)], subjects, by=by)[0]


def dismiss_many(
    vault: Path, items: Sequence[tuple[str, str]], subjects: Sequence[DeferenceSubject], *, by: str = "cli"
) -> list[str]:
    """Release every ``(path, subject)`` in one write of the decisions file; the canonical subjects, in order.
    Refused whole, before anything is written, when one item cannot be recorded."""
    canonical = []
    for rel_path, name in items:
        subject = _subject(name, subjects)
        if subject in _declared(vault, rel_path, subjects):
            raise CareDecisionError(
                f"{rel_path} declares {subject!r} in its frontmatter 'charged:'; remove it there (a person's record)"
            )
        canonical.append(subject)
    entries = _entries(vault)
    known = {(e["path"], e["subject"]) for e in entries}
    today = date.today().isoformat()
    added = [
        {"path": p, "subject": s, "decided": today, "by": by}
        for (p, _), s in zip(items, canonical)
        if (p, s) not in known
    ]
    if added:
        _write_dismissals(vault, [*entries, *{(e["path"], e["subject"]): e for e in added}.values()])
    return canonical


def decided_items(
    vault: Path,
    pairs: Callable[[], Iterable[tuple[str, dict]]],
    subjects: Sequence[DeferenceSubject],
    *,
    path: str | None = None,
    subject: str | None = None,
    batch_subject: str | None = None,
    folder: str | None = None,
    tag: str | None = None,
    neutral_above: float | None = None,
    neutral_below: float | None = None,
) -> list[tuple[str, str]]:
    """The ``(path, subject)`` pairs one decision applies to (``lucasrag care dismiss|confirm`` and the
    ``record_care_decision`` job). ``path`` and ``subject`` alone name one pair, pending or not (a person may
    decide ahead of the detector); otherwise the pending review rows of ``pairs()`` (the catalogue's
    ``(path, assessment)``, read only for a batch) that every given filter selects (``batch_subject``: a
    subject filter only). A decision that names nothing is refused."""
    filters = folder or tag or neutral_above is not None or neutral_below is not None
    if path and subject and not filters:
        return [(path, subject)]
    subject = subject or batch_subject
    if not (path or subject or filters):
        raise CareDecisionError("say what to decide: PATH SUBJECT, or a batch (folder, tag, neutral score, subject)")
    rows = select(
        review_rows(pairs()),
        paths=[path] if path else (),
        folder=folder,
        tag=tag,
        tags_of=lambda p: note_tags(vault, p),
        subject=canonical_name(subject, subjects) if subject else None,
        neutral_above=neutral_above,
        neutral_below=neutral_below,
    )
    return [(r["path"], r["subject"]) for r in rows]


def record(
    vault: Path, items: Sequence[tuple[str, str]], decision: str, subjects: Sequence[DeferenceSubject], *, by: str
) -> list[str]:
    """Apply ``decision`` ("confirm": keep withheld, "dismiss": release) to every ``(path, subject)``."""
    if decision == "dismiss":
        return dismiss_many(vault, items, subjects, by=by)
    if decision == "confirm":
        return [confirm(vault, path, name, subjects) for path, name in items]
    raise CareDecisionError(f"a care decision is 'confirm' (keep withheld) or 'dismiss' (release), not {decision!r}")
