"""What the tools say in words: a compact text an assistant reads, next to the structured content.

Every line is built from the structured content itself, so the two can never
disagree — and since withheld text never reaches the structured content, it
cannot reach the text either.
"""

from __future__ import annotations

import json

#: Characters of a passage shown in the text rendering (the structured content has it whole).
SNIPPET_CHARS = 600


def _bridge_reach(tool: str, arguments: dict, subject: str) -> dict:
    """A deference hint's reach: the same call with the subject bridged, and when that is allowed."""
    return {
        "tool": tool,
        "arguments": {**arguments, "bridge": [subject]},
        "when": f"only if the person asks about {subject} themselves; never to get more results",
    }


def hint_reach(hint: dict, query: str) -> dict:
    """How an assistant reaches what a hint announces, and when it may."""
    if hint.get("kind") == "deference":
        return _bridge_reach("search", {"query": query}, hint["subject"])
    if hint.get("kind") == "archive":
        return {
            "tool": "search",
            "arguments": {"query": query, "archive": True},
            "when": "if the person asks about the past: put the year, the decade or words like 'back then' "
            "in the query, as the person said it; when they asked about the past in other words, archive=True",
        }
    return {
        "tool": None,
        "arguments": None,
        "when": "nothing to ask for: the message says what to fix in the vault or the index",
    }


def search_content(result: dict) -> dict:
    """The §3.9 JSON (with ``why`` per result) and, per hint, how to reach the material."""
    for hint in result["hints"]:
        hint["reach"] = hint_reach(hint, result["query"])
    return result


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"


def search_text(result: dict) -> str:
    temporal = result["temporal"]
    gate = "archive open" if temporal.get("archival_open") else "archive closed (present notes only)"
    signals = f"; temporal signals: {', '.join(temporal['signals'])}" if temporal.get("signals") else ""
    lines = [
        f"{len(result['results'])} results for {json.dumps(result['query'], ensure_ascii=False)} — {gate}{signals}"
    ]
    for r in result["results"]:
        date = r["date"] or "undated"
        lines.append(f"\n[{r['rank']}] {r['path']} · {r['workspace']} · {r['band']} · {date} · score {r['score']:.3f}")
        if r.get("why"):
            lines.append(f"    why: {r['why']['summary']}")
        lines.append(f"    {_snippet(r['text'])}")
    for hint in result["hints"]:
        lines.append(f"\nhint: {hint['message']}")
        lines.append(f"    reach: {hint['reach']['when']}")
    for warning in result.get("warnings") or []:
        lines.append(f"\nwarning: {warning}")
    lines.append(f"\nranked by {result['reranker']}")
    return "\n".join(lines)


def note_text(note: dict) -> str:
    marks = [note["workspace"], note["band"], note["date"] or "undated"]
    head = f"{note['path']} · {' · '.join(marks)}"
    lines = [head]
    if note["archival"]:
        lines.append("(archival: an older note, served because it was named; it may not describe the person's present)")
    if note["stale"]:
        lines.append("(changed in the vault since the last ingest: this is the text as indexed)")
    lines.append("")
    lines.append(note["text"])
    return "\n".join(lines)


def status_text(status: dict) -> str:
    lines = [f"vault {status['vault']} · profile {status['profile']} · reranker {status['reranker']['kind']}"]
    if not status["ingested"]:
        return "\n".join([*lines, status["message"]])
    lines.append(f"last ingest {status['last_ingest']}")
    for ws in status["workspaces"]:
        lines.append(f"  {ws['workspace']}: {ws['notes']} notes, {ws['chunks']} chunks")
    stale = status["stale"]
    lines.append(
        f"stale: {stale['count']} (added {len(stale['added'])}, changed {len(stale['changed'])}, "
        f"deleted {len(stale['deleted'])})"
    )
    lines.append(f"pending quarantine: {status['pending_quarantine']['count']}")
    lines.append(f"invalid files: {status['invalid']['count']}")
    lines.append(f"pending care reviews: {status['pending_care']['count']} (`lucasrag care list --pending`)")
    if status["deference_subjects"]:
        lines.append(f"deference subjects: {', '.join(status['deference_subjects'])}")
    if status.get("watch"):
        w = status["watch"]
        lines.append(f"watch: {w['state']}, {w['ingests']} ingests, last finished {w['last_finished']}")
        if w.get("last_error"):
            lines.append(f"watch: last ingest failed: {w['last_error']}")
    return "\n".join(lines)


def recent_content(result: dict) -> dict:
    """The ``recent`` result with, per hint, how to reach what it announces."""
    for hint in result["hints"]:
        if hint.get("kind") == "deference":
            hint["reach"] = _bridge_reach("recent", {"days": result["days"]}, hint["subject"])
        else:
            hint["reach"] = {"tool": "search", "arguments": None, "when": "ask about the past with search"}
    return result


def recent_text(result: dict) -> str:
    lines = [f"notes written or changed since {result['since']} ({result['days']} days), newest first:"]
    for note in result["notes"]:
        lines.append(f"- {note['changed']} {note['path']} · {note['workspace']}")
    if not result["notes"]:
        lines.append("(none)")
    for hint in result["hints"]:
        lines.append(f"\nhint: {hint['message']}")
    return "\n".join(lines)
