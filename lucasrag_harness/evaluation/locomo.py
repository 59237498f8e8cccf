"""LoCoMo → vault converter and lenient evidence parsing.

LoCoMo (Maharana et al., 2024; CC BY-NC 4.0) is read from a local copy of
``locomo10.json`` at evaluation time and never copied into the repository.

Each conversation becomes its own vault: one note per session with turns,
``sessions/YYYY-MM-DD session N.md``, frontmatter ``date`` (the session's day),
``workspace: personal`` (a conversation is personal; declaring it keeps the
router out of the measurement) and a ``title``. The body holds one paragraph per
turn, ``[D3:7] Speaker: text``: the ``dia_id`` marker stays in the text so that
evidence can be located in whatever chunk a turn lands in, and a blank line
between turns keeps every chunk a run of whole turns. The derived annotations
(``event_summary``, ``observation``, ``session_summary``) are never written:
they would leak the answers.
"""

from __future__ import annotations

import calendar
import datetime as dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Category number → name (5, adversarial, has no answer in the conversation and is not scored).
CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
ADVERSARIAL = 5
#: The session-level protocol scores every category, adversarial included (its evidence names the
#: sessions an adversarial question is built on); reported with and without it.
SESSION_CATEGORIES: dict[int, str] = {**CATEGORIES, ADVERSARIAL: "adversarial"}

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE_TIME = re.compile(
    r"^\s*(?:(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+)?(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_MONTHS = {calendar.month_name[i].lower(): i for i in range(1, 13)}
_ID = re.compile(r"^D(\d+):(\d+)$")
_REPAIRABLE = re.compile(r"^D\D*?(\d+)\D+(\d+)$")  # "D:11:26" → D11:26 (exactly two numbers)


def parse_session_datetime(text: str) -> dt.datetime:
    """``"1:56 pm on 8 May, 2023"`` → ``datetime(2023, 5, 8, 13, 56)`` (time optional)."""
    m = _DATE_TIME.match(text or "")
    month = _MONTHS.get(m.group(5).lower()) if m else None
    if not m or month is None:
        raise ValueError(f"unrecognised LoCoMo session date {text!r} (expected e.g. '1:56 pm on 8 May, 2023')")
    hour, minute = (int(m.group(1)), int(m.group(2))) if m.group(1) else (0, 0)
    if m.group(3):
        hour = hour % 12 + (12 if m.group(3).lower() == "pm" else 0)
    return dt.datetime(int(m.group(6)), month, int(m.group(4)), hour, minute)


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None = None

    def line(self) -> str:
        photo = f" (shares a photo: {self.caption.strip()})" if self.caption and self.caption.strip() else ""
        text = " ".join(self.text.split())  # one paragraph: no blank line may split a turn
        return f"[{self.dia_id}] {self.speaker}: {text}{photo}".rstrip()


@dataclass(frozen=True)
class Session:
    number: int
    when: dt.datetime
    date_text: str
    turns: tuple[Turn, ...]

    @property
    def filename(self) -> str:
        return f"sessions/{self.when.date().isoformat()} session {self.number}.md"


@dataclass(frozen=True)
class Question:
    index: int  # position in the sample's qa list
    text: str
    category: int
    evidence: tuple[str, ...]  # usable turn ids, normalised ("D3:7")


@dataclass
class EvidenceStats:
    """What lenient parsing had to do (reported with every evaluation)."""

    ids_total: int = 0  # raw strings in evidence lists
    ids_split: int = 0  # raw strings that held several ids ("D8:6; D9:17")
    ids_repaired: int = 0  # "D:11:26" → "D11:26"
    ids_skipped: int = 0  # unparseable or ambiguous ("D")
    ids_unknown: int = 0  # well-formed but no such turn in the conversation
    questions_without_evidence: int = 0  # scored categories with no usable id left
    skipped_examples: list[str] = field(default_factory=list)

    def add(self, other: EvidenceStats) -> None:
        for name in (
            "ids_total",
            "ids_split",
            "ids_repaired",
            "ids_skipped",
            "ids_unknown",
            "questions_without_evidence",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.skipped_examples += other.skipped_examples

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]  # categories 1-4 with usable evidence
    evidence: EvidenceStats
    questions_total: int  # every question, all categories
    adversarial: tuple[Question, ...] = ()  # category 5 with usable evidence (session protocol only)

    @property
    def turn_ids(self) -> frozenset[str]:
        return frozenset(t.dia_id for s in self.sessions for t in s.turns)

    @property
    def turns(self) -> int:
        return sum(len(s.turns) for s in self.sessions)

    @property
    def now(self) -> dt.date:
        """ "Now" for the evaluation: the day after the last session."""
        return max(s.when.date() for s in self.sessions) + dt.timedelta(days=1)


def _normalise(token: str) -> str | None:
    m = _ID.match(token)
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def parse_evidence(raw: list, known: frozenset[str] | None = None) -> tuple[list[str], EvidenceStats]:
    """Turn ids from a LoCoMo evidence list, leniently.

    Well-formed ids pass (leading zeros dropped: ``D30:05`` → ``D30:5``); a string
    with several ids (``"D8:6; D9:17"``, ``"D9:1 D4:4"``) is split; ``"D:11:26"``
    is repaired when exactly two numbers follow the D; anything else (``"D"``) is
    skipped and counted. Ids absent from ``known`` (when given) are counted and dropped.
    """
    stats = EvidenceStats()
    out: list[str] = []
    for item in raw or []:
        stats.ids_total += 1
        parts = [p for p in re.split(r"[;,\s]+", str(item).strip()) if p]
        if len(parts) > 1:
            stats.ids_split += 1
        if not parts:
            parts = [str(item)]
        for part in parts:
            dia = _normalise(part)
            if dia is None and (m := _REPAIRABLE.match(part)):
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                stats.ids_repaired += 1
            if dia is None:
                stats.ids_skipped += 1
                stats.skipped_examples.append(str(item))
                continue
            if known is not None and dia not in known:
                stats.ids_unknown += 1
                stats.skipped_examples.append(str(item))
                continue
            if dia not in out:
                out.append(dia)
    return out, stats


def parse_conversation(sample: dict) -> Conversation:
    conv = sample["conversation"]
    sessions = []
    for key, turns in conv.items():
        m = _SESSION_KEY.match(key)
        if not m or not isinstance(turns, list) or not turns:
            continue  # a date without turns (conv-26 lists 35 dates, 19 sessions)
        number = int(m.group(1))
        date_text = conv.get(f"session_{number}_date_time", "")
        sessions.append(
            Session(
                number,
                parse_session_datetime(date_text),
                date_text,
                tuple(Turn(t["dia_id"], t["speaker"], t.get("text", ""), t.get("blip_caption")) for t in turns),
            )
        )
    sessions.sort(key=lambda s: s.number)
    known = frozenset(t.dia_id for s in sessions for t in s.turns)
    stats = EvidenceStats()
    questions, adversarial = [], []
    qa = sample.get("qa", [])
    for i, q in enumerate(qa):
        category = int(q.get("category", 0))
        if category == ADVERSARIAL:  # not in the evidence statistics, which describe the scored categories
            ids, _ = parse_evidence(q.get("evidence", []), known)
            if ids:
                adversarial.append(Question(i, q["question"], category, tuple(ids)))
            continue
        if category not in CATEGORIES:
            continue
        ids, st = parse_evidence(q.get("evidence", []), known)
        stats.add(st)
        if not ids:
            stats.questions_without_evidence += 1
            continue
        questions.append(Question(i, q["question"], category, tuple(ids)))
    return Conversation(
        sample["sample_id"],
        (conv.get("speaker_a", ""), conv.get("speaker_b", "")),
        tuple(sessions),
        tuple(questions),
        stats,
        len(qa),
        tuple(adversarial),
    )


_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
#: A question names a date: a month with a day or a year ("7 May 2023", "May 7", "May, 2023") or an ISO date.
DATE_CUE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b{_MONTH},?\s+(?:19|20)\d\d\b|\b(?:19|20)\d\d-\d\d-\d\d\b"
)


def names_a_date(text: str) -> bool:
    """Whether a question names a date (the LoCoMo date-cue slice); written apart from the detector it tests."""
    return bool(DATE_CUE.search(text))


def load_locomo(path: Path) -> list[Conversation]:
    with open(path, encoding="utf-8") as f:
        return [parse_conversation(sample) for sample in json.load(f)]


def session_note(conv: Conversation, session: Session) -> str:
    a, b = conv.speakers
    title = f"{a} and {b}, session {session.number} ({session.date_text})".replace('"', "'")
    head = f'---\ndate: {session.when.date().isoformat()}\nworkspace: personal\ntitle: "{title}"\n---\n\n'
    return head + "\n\n".join(t.line() for t in session.turns) + "\n"


def write_vault(conv: Conversation, root: Path) -> int:
    """Write (or leave unchanged) one note per session under ``root``; return notes written.

    Files whose content is already right are not touched, so a re-run leaves the
    vault's fingerprint alone and the ingest has nothing to do. Stray notes from an
    earlier conversion are removed.
    """
    wanted = {root / s.filename: session_note(conv, s) for s in conv.sessions}
    for stale in set(root.glob("sessions/*.md")) - set(wanted):
        stale.unlink()
    written = 0
    for path, text in wanted.items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written += 1
    return written
