"""Lexical temporal cues: words that point at the past without naming a period (§3.4).

A cue opens the archive only where it is a *time reference*. Each entry is one regex
(matched case-insensitively) whose context rules are part of the pattern, so the whole
decision can be read here:

* "used to" is a habit in the past only after a subject ("I used to live", "Maya used
  to", "where did we use to go") and not before a noun phrase or an -ing form ("I'm
  used to it", "get used to working", "the flour used to make bread" has no subject;
  "what did I use to fix the boiler" asks for a tool).
* "history" is a time reference as the past of something or someone: "the history of the
  house", "the house's history", "our history together", "historically", and "how X came
  about". As a record kept by software, a subject or a name it is not ("git history",
  "browser history", "a history of asthma", "medical history", "history homework", "the
  natural history museum").
* A pattern may name the part to show as the signal's text with a group ``(?P<cue>...)``.
* "ex-" and "my ex" name a relation, not a time: never a cue.
* "years ago" without a number ("years ago", "a few years ago") has no period and is a
  cue; with one ("ten years ago") it is a relative period (:mod:`._temporal_periods`).
  Durations and quantities ("five years' warranty", "for years", "2 years old") are not.
* Growing up, childhood and school: not when they describe someone growing up now ("my
  daughter is growing up fast", "childhood vaccinations"); a bare "at school" is a
  child's present day.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cue:
    """A lexical temporal cue: a regex (matched case-insensitively) and a label."""

    pattern: str
    label: str


def _not_after(words: tuple[str, ...]) -> str:
    """Fixed-width negative lookbehinds: not directly after any of ``words`` + one space."""
    return "".join(rf"(?<!\b{w} )" for w in words)


# A subject before "used to": a pronoun, a family word, or a capitalised name (case-sensitive).
_SUBJECT = (
    r"(?:\b(?:I|we|you|he|she|they|it|there|things|people|everyone|everybody|mum|mom|dad|grandad|grandpa|"
    r"grandma|nan|gran|parents|family)|(?-i:\b[A-Z][a-z]+))"
)
_ADVERB = r"(?:\s+(?:always|never|often|really|once|sometimes|all|both|usually|also))?"
# What may not follow a habitual "used to": an object or an -ing form makes it "accustomed to".
_NOT_ACCUSTOMED = (
    r"(?!(?:it|this|that|these|those|them|him|her|me|us|the|a|an|my|your|his|their|our|being|having|"
    r"such|so|much|all|doing|working)\b|\w+ing\b)"
)
# Verbs after "what ... did I use to" that ask for a tool, not a habit.
_TOOL_VERBS = (
    r"(?:fix|clean|cut|open|unblock|repair|remove|paint|seal|glue|measure|treat|pay|install|build|format|"
    r"connect|sign|wash|descale|sharpen|mount|hang|back\s+up|get\s+rid\s+of|make\s+the)"
)
_SCHOOL = r"(?:school|high\s+school|uni|university|college|sixth\s+form)"
_NOW_GROWING = ("is", "are", "'s", "'re", "keeps", "kids", "children")
# "history" as a record software keeps, a medical record, or a school subject: not the past of anything.
_RECORD_HISTORY = (
    r"(?:browser|browsing|search|chat|call|order|purchase|payment|credit|medical|family|version|commit|git|shell|"
    r"command|revision|edit|watch|viewing|download|transaction|account|location|clipboard|undo)"
)
_SUBJECT_HISTORY = r"(?:teacher|class|classes|exam|exams|lesson|lessons|book|books|degree|homework|essay|module|museum)"

#: The default cue table (order does not matter; ``<vault>/.lucasrag/temporal.yaml`` adds to it).
DEFAULT_CUES: tuple[Cue, ...] = (
    Cue(rf"{_SUBJECT}{_ADVERB}\s+(?P<cue>used\s+to)\s+{_NOT_ACCUSTOMED}", "used to"),
    Cue(
        rf"\b(?P<cue>did\s+(?:I|we|you|he|she|they)\s+use\s+to)\s+(?!{_TOOL_VERBS}\b)",
        "used to",
    ),
    Cue(r"\b(?:my|our|his|her|their)\s+(?:shared\s+|long\s+)?history\s+(?:with|together)\b", "history"),
    Cue(r"\bhistorically\b", "history"),
    # the past of a thing: "the (early/whole) history of X", "X's history"; not "the history of present illness"
    Cue(
        r"(?:\bthe\s+(?:(?:whole|full|long|early|recent|real|entire)\s+)?|^\W*)(?P<cue>history\s+of)\s+"
        r"(?!(?:the\s+)?present\b)",
        "history",
    ),
    Cue(
        rf"(?<![\w'])(?!{_RECORD_HISTORY}'s\b)(?:\w+'s|\w+s')\s+(?P<cue>history)\b(?!\s+{_SUBJECT_HISTORY}\b)",
        "history",
    ),
    Cue(r"\b(?P<cue>how\s+(?:did\s+)?(?:\S+\s+){1,5}?c(?:a|o)me\s+about)\b", "history"),
    Cue(_not_after(_NOW_GROWING) + r"\bgr(?:owing|ew)\s+up\b|\bdid\s+(?:I|we|you)\s+grow\s+up\b", "childhood"),
    Cue(r"\bas\s+an?\s+(?:kid|child|boy|girl|teen|teenager|toddler|student|undergrad)\b", "childhood"),
    Cue(
        r"\bchildhood\b(?!\s+(?:vaccin|immuni|illness|obesity|development|asthma|cancer))"
        r"|\bin\s+my\s+youth\b|\bschool\s+days\b|\b(?:uni|student)\s+days\b",
        "childhood",
    ),
    Cue(
        r"\bwhen\s+(?:I|we)\s+(?:was|were)\s+(?:young|younger|little|small|a\s+(?:kid|child|boy|girl|"
        r"teenager|teen|student)|\d{1,2})\b",
        "childhood",
    ),
    Cue(
        rf"\b(?:when\s+(?:I|we)\s+(?:was|were)|while\s+(?:I|we)\s+(?:was|were)|back)\s+(?:at|in)\s+{_SCHOOL}\b",
        "school",
    ),
    Cue(rf"\bback\s+in\s+(?:the\s+day|{_SCHOOL})\b|\bback\s+then\b|\bway\s+back\b(?!\s*machine)", "back then"),
    Cue(r"\byears\s+(?:ago|back)\b", "years ago"),
    Cue(r"\b(?:decades|ages|long\s+time)\s+ago\b|\blong\s+ago\b", "long ago"),
    Cue(
        r"\bin\s+the\s+past\b|\bformerly\b(?!\s+known\s+as)|\bonce\s+upon\b"
        r"|(?<!\bthe )(?<!\ba )\bpreviously\b(?!\s+(?:installed|selected|configured|saved|mentioned|unknown))",
        "the past",
    ),
    Cue(r"\bold\s+days\b|\bnostalgi(?:a|c)\b|\bremember\s+when\b", "old days"),
    Cue(r"\bmy\s+first\s+(?:job|car|flat|apartment|house|boss|love|girlfriend|boyfriend)\b", "first"),
)
