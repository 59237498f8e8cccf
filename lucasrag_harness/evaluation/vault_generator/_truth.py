"""Ground truth: what each generated file should become, and the query cases."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path


@dataclass
class NoteTruth:
    """What one generated file is expected to become."""

    status: str  # indexed | quarantined | invalid
    workspace: str | None
    band: str | None
    date: str | None
    charged: list[str] = field(default_factory=list)
    kind: str = (
        "regular"  # regular, facts, childhood, charged_marked, charged_unmarked, neutral_mention, content_free, bad
    )
    states: dict[str, str] = field(default_factory=dict)  # fact -> value this note states as true
    mentions: list[str] = field(default_factory=list)  # deference subjects named in the note
    reason: str | None = None  # invalid: malformed_yaml | empty | non_utf8 | nul


@dataclass
class QueryCase:
    kind: str  # present_fact | archive_year | archive_cue | charged_withheld | charged_bridged | quarantine_never | workspace_restriction | period_* | false_alarm_* (see policy_eval.KINDS)
    query: str
    expect_paths: list[str]  # any of these should be returned (empty: nothing in particular)
    forbid_paths: list[str]  # none of these may be returned (a sample, at most FORBID_CAP)
    bridge: list[str] = field(default_factory=list)
    workspaces: list[str] | None = None
    archival_open: bool = False  # expected temporal.archival_open
    withheld: list[str] = field(default_factory=list)  # subjects that must get a hint
    expect_text: str | None = None  # a phrase the expected answer contains
    period: list[str] | None = None  # period_* cases: the named period, [start, end] (ISO, inclusive)


@dataclass
class GroundTruth:
    vault: str  # the vault folder's name (not its absolute path: keeps the truth reproducible)
    seed: int
    n_notes: int
    now: str
    archival_cutoff: str
    subjects: list[dict]
    timelines: dict[str, list[dict]]
    notes: dict[str, NoteTruth]
    cases: list[QueryCase]

    def to_dict(self) -> dict:
        out = {k: v for k, v in vars(self).items() if k not in ("notes", "cases")}
        out["notes"] = {p: vars(t).copy() for p, t in self.notes.items()}
        out["cases"] = [vars(c).copy() for c in self.cases]
        return out

    def to_json(self) -> str:
        """JSON with one note and one case per line (diffable, and fast for 10^5 notes)."""
        d = self.to_dict()
        dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
        head = [f" {dump(k)}: {dump(v)}" for k, v in d.items() if k not in ("notes", "cases")]
        notes = ",\n".join(f"  {dump(p)}: {dump(t)}" for p, t in d["notes"].items())
        cases = ",\n".join(f"  {dump(c)}" for c in d["cases"])
        return "{\n" + ",\n".join(head) + ',\n "notes": {\n' + notes + '\n },\n "cases": [\n' + cases + "\n ]\n}\n"

    def write(self, path: Path) -> Path:
        path.write_bytes(self.to_json().encode("utf-8"))
        return path

    @classmethod
    def from_dict(cls, raw: dict) -> GroundTruth:
        fields = dict(raw)
        fields["notes"] = {p: NoteTruth(**t) for p, t in raw["notes"].items()}
        fields["cases"] = [QueryCase(**c) for c in raw["cases"]]
        return cls(**fields)

    @classmethod
    def load(cls, path: Path) -> GroundTruth:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def counts(self) -> dict[str, int]:
        """Counts by status and, for indexed notes, by workspace."""
        out: dict[str, int] = {}
        for t in self.notes.values():
            out[t.status] = out.get(t.status, 0) + 1
            if t.status == "indexed":
                out[t.workspace] = out.get(t.workspace, 0) + 1
        return out


def truth_path(root: Path) -> Path:
    """Where the truth JSON of the vault at ``root`` lives (outside the vault)."""
    root = Path(root)
    return root.parent / f"{root.name}.truth.json"


def archival_cutoff(now: date, years: int = 3) -> date:
    try:
        return now.replace(year=now.year - years)
    except ValueError:  # 29 February
        return now.replace(year=now.year - years, day=28)
