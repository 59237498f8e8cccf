"""What a person may approve or move, judged against the last ingest: approval means approval.

* ``quarantine approve`` takes only notes that are quarantined now; anything else is
  refused with the note's status and the command that does what was meant.
* ``route PATH --workspace W`` is the explicit verb for moving a note that is already
  indexed; it says what it changes.
* An invalid file is never written to, whatever the verb; the refusal gives its reason.

Plain functions over catalogue rows (``lucasrag notes --json`` rows) and the note's
status as parsed now; the CLI and the Dagster approval job both call them.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath

from lucasrag.vocabulary import check_workspace


class ApprovalRefused(ValueError):
    """The approval or move would not do what the person meant; the message says what would."""


def did_you_mean(path: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known paths (difflib), or an empty string."""
    known = sorted(set(candidates))
    close = difflib.get_close_matches(path, known, n=3, cutoff=0.85)
    if not close:  # a right file name in the wrong folder still deserves a hint
        by_name = {PurePosixPath(p).name: p for p in known}
        close = [
            by_name[n] for n in difflib.get_close_matches(PurePosixPath(path).name, list(by_name), n=3, cutoff=0.8)
        ]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def _where(row: Mapping, declared: str | None = None) -> str:
    if row["status"] == "indexed":
        how = (
            "workspace: in its frontmatter"
            if declared == row["workspace"]
            else f"routed at confidence {row.get('confidence')}"
        )
        return f"indexed in {row['workspace']} ({how})"
    if row["status"] == "quarantined":
        return f"quarantined (suggestion {row.get('suggestion')}: {row.get('reason')})"
    return f"invalid ({row.get('reason')})"


def refuse_invalid(path: str, status_now: str, reason_now: str | None) -> None:
    """Raise for a file that cannot be read as a note now: LucasRAG never writes into one."""
    if status_now == "invalid":
        raise ApprovalRefused(
            f"{path} is invalid ({reason_now}): LucasRAG never writes to a file it cannot read; "
            "fix the file, then run `lucasrag ingest`"
        )


def check_approve(
    path: str, row: Mapping | None, status_now: str, reason_now: str | None, workspace: str, declared: str | None = None
) -> None:
    """Allow ``quarantine approve`` only for a note the last ingest quarantined (and still readable).
    ``declared`` is the note's ``workspace:`` frontmatter now (an approval since the last ingest)."""
    refuse_invalid(path, status_now, reason_now)
    if row is None:
        raise ApprovalRefused(
            f"{path} is not in the last ingest's catalogue (new since?): run `lucasrag ingest`, "
            "then approve it if it is quarantined"
        )
    if row["status"] == "indexed":
        raise ApprovalRefused(
            f"{path} is not quarantined: it is {_where(row, declared)}. To move it to another workspace, run "
            f"`lucasrag route {shlex.quote(path)} --workspace W`"
        )
    if row["status"] != "quarantined":
        raise ApprovalRefused(f"{path} was {_where(row)} at the last ingest: run `lucasrag ingest` to re-read it")
    if declared and declared != workspace:
        raise ApprovalRefused(
            f"{path} was already approved into {declared} since the last ingest; to change that, run "
            f"`lucasrag route {shlex.quote(path)} --workspace {workspace}`"
        )


def describe_move(
    path: str, row: Mapping | None, status_now: str, reason_now: str | None, workspace: str, declared: str | None = None
) -> str:
    """What ``route PATH --workspace W`` changes, in one line; ApprovalRefused when it must not run."""
    check_workspace(workspace)
    refuse_invalid(path, status_now, reason_now)
    if row is None:
        raise ApprovalRefused(f"{path} is not in the last ingest's catalogue: run `lucasrag ingest` first")
    if row["status"] == "invalid":
        raise ApprovalRefused(f"{path} was {_where(row)} at the last ingest: run `lucasrag ingest` to re-read it")
    if declared == workspace:
        return f"{path} already has `workspace: {workspace}` in its frontmatter: nothing to change"
    if declared is None and row["status"] == "indexed" and row["workspace"] == workspace:
        # Routed there already: writing `workspace:` would change the file and nothing else.
        return f"{path} is already {_where(row)}: nothing to change"
    return (
        f"{path}: {_where(row, declared)} → {workspace} (recorded as `workspace: {workspace}` in its frontmatter; "
        "the next ingest moves it)"
    )


def has_tag(tags: Iterable[str], wanted: str) -> bool:
    """Whether a note carries ``wanted`` (any case, with or without ``#``), itself or as the parent of a
    nested tag: ``--tag garden`` takes ``garden`` and ``garden/seedling``."""
    wanted = wanted.strip().lstrip("#").strip("/").casefold()
    return any((t := str(tag).lstrip("#").casefold()) == wanted or t.startswith(wanted + "/") for tag in tags)


#: ``--like PATH``: the cosine similarity of a quarantined note's routing text to the example's, at or above
#: which it counts as one of its kind (docs/routing.md, "One decision for many notes": on a real vault a
#: topic's notes sit at 0.40–0.68 from one of them, unrelated ones below 0.3).
LIKE_SIMILARITY = 0.4


def select_quarantined(
    rows: Sequence[Mapping],
    *,
    folder: str | None = None,
    tag: str | None = None,
    tags_of: Mapping[str, Sequence[str]] | None = None,
    similarity: Mapping[str, float] | None = None,
    min_similarity: float = LIKE_SIMILARITY,
    suggested: str | None = None,
) -> list[str]:
    """The quarantined notes one decision settles: under ``folder``, carrying ``tag`` (``tags_of``: each
    note's tags), like an example (``similarity``: each note's cosine to it), the router's best guess for
    them ``suggested`` — every given condition holds."""
    paths = (
        quarantined_under(folder, rows)
        if folder is not None
        else sorted(r["path"] for r in rows if r["status"] == "quarantined")
    )
    if tag is not None:
        paths = [p for p in paths if has_tag((tags_of or {}).get(p, ()), tag)]
    if similarity is not None:
        paths = [p for p in paths if similarity.get(p, -1.0) >= min_similarity]
    if suggested is not None:
        guesses = {r["path"]: r.get("suggestion") for r in rows}
        paths = [p for p in paths if guesses.get(p) == suggested]
    return paths


def quarantined_under(folder: str, rows: Sequence[Mapping]) -> list[str]:
    """Vault-relative paths of the quarantined notes in ``folder`` or below it, sorted."""
    prefix = PurePosixPath(folder.strip().strip("/")).parts
    if any(part in ("..", "") for part in prefix) or PurePosixPath(folder).is_absolute():
        raise ApprovalRefused(f"{folder!r} is not a folder inside the vault (give it relative to the vault root)")
    return sorted(
        r["path"]
        for r in rows
        if r["status"] == "quarantined" and PurePosixPath(r["path"]).parts[: len(prefix)] == prefix
    )
