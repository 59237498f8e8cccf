"""Human-readable output for the CLI (``--json`` prints the raw shapes instead)."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.text import Text

#: A passage is cut (at a word) to about this many characters and lines unless ``--full``: enough for the
#: sentence or table row that answers (the insured amount of the pocket watch) without a wall of text.
PASSAGE_CHARS = 480
PASSAGE_LINES = 10
#: Passages are indented under their heading line by this many columns.
PASSAGE_INDENT = 4


def render_rows(console: Console, title: str, rows: list[dict], *, heading: str = "path") -> None:
    """One block per row, readable at 80 columns: the ``heading`` field (a note's path) on its own line,
    the other fields below it as ``name: value``, indented, packed onto as few lines as fit whole.

    A table of a dozen columns folds every cell into slivers on a narrow terminal; a block keeps each
    value whole. Empty values (None, "", []) are left out: most notes have no warning, care pair or
    suggestion, and a column of blanks says nothing. ``--json`` has every field of every row.
    """
    if not rows:
        console.print(f"{title}: none")
        return
    console.print(Text(f"{title} ({len(rows)})", style="bold"))
    room = max(console.width - PASSAGE_INDENT, 20)
    for row in rows:
        console.print(Text(str(row.get(heading)), style="bold cyan"), overflow="fold")
        fields = [f"{name}: {_cell(value)}" for name, value in row.items() if name != heading and _cell(value)]
        for line in _packed(fields, room):
            console.print(Text(" " * PASSAGE_INDENT + line), overflow="fold")


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def _packed(fields: list[str], room: int, sep: str = " · ") -> list[str]:
    """``fields`` joined by ``sep`` into lines of at most ``room`` characters, no field split across
    two lines; a field longer than a line starts a line of its own and is word-wrapped."""
    lines: list[str] = []
    for field in fields:
        if lines and len(lines[-1]) + len(sep) + len(field) <= room:
            lines[-1] += sep + field
        else:
            lines += textwrap.wrap(field, room) or [field]
    return lines


def passage(text: str, *, full: bool = False) -> str:
    """The chunk's non-blank lines (inner whitespace collapsed), cut at a word unless ``full``.

    Lines are kept because notes are Markdown: a table row or a list item reads as one.
    """
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    if full:
        return "\n".join(lines)
    kept: list[str] = []
    room = PASSAGE_CHARS
    for line in lines:
        if len(kept) == PASSAGE_LINES or room <= 0:
            kept[-1] += " …"
            break
        if len(line) > room:
            kept.append(textwrap.shorten(line, max(room, 20), placeholder=" …"))
            break
        kept.append(line)
        room -= len(line)
    return "\n".join(kept)


def deference_reason(subject: str) -> str:
    """Why a deference hint's passages were held back, and how they come back (one line)."""
    return (
        f"why: these refer to {subject}, who is on your deference list; passages about {subject} are withheld "
        f"until released (plainly neutral ones already are; review the rest with `lucasrag care list`)."
    )


def _print_wrapped(console: Console, text: str | Text, *, indent: int = 0, style: str = "") -> None:
    """``text`` wrapped to the terminal, every line indented by ``indent``, and no line padded or ended with
    spaces (rich fills a ``Padding`` to the block's width and keeps the space at a wrap: noise in a pipe
    or a copied answer)."""
    text = Text(text, style=style) if isinstance(text, str) else text
    for line in text.wrap(console, max(20, console.width - indent), overflow="fold"):
        line.rstrip()
        console.print(Text(" " * indent) + line, soft_wrap=True)


def render_query(console: Console, result, *, full: bool = False) -> None:
    """One block per result: a heading line (rank, path, workspace, band, date, score), the passage below it.

    The heading is one line when it fits; on a narrow terminal the fields go whole onto a second line.
    """
    console.print(f"[bold]{result.query}[/] — ranked by {result.reranker}", highlight=False)
    line = result.temporal_line or ("archive open" if result.archival_open else "archive closed")
    _print_wrapped(console, Text.assemble(("temporal: ", "cyan"), line))
    for r in result.results:
        more = [f"+{r.more} more in this note"] if r.more else []
        meta = " · ".join((r.workspace, r.band, r.date or "undated", f"score {r.score:.3f}", *more))
        heading = Text.assemble((f"{r.rank}. ", "bold"), (r.path, "bold cyan"))
        if heading.cell_len + 2 + len(meta) <= console.width:
            heading.append("  " + meta, "dim")
        else:  # a long path on a narrow terminal: the fields go whole onto the next line
            heading.append("\n" + " " * PASSAGE_INDENT + meta, "dim")
        console.print()
        console.print(heading, overflow="fold")
        _print_wrapped(console, passage(r.text, full=full), indent=PASSAGE_INDENT)
    if not result.results:
        console.print("no passages matched")
    for hint in result.hints:
        console.print()
        _print_wrapped(console, Text.assemble(("hint: ", "yellow"), hint.message))
        if hint.kind == "deference" and hint.subject:
            _print_wrapped(console, deference_reason(hint.subject), indent=PASSAGE_INDENT, style="dim")
    for warning in result.warnings:
        console.print()
        _print_wrapped(console, Text.assemble(("warning: ", "red"), warning))
    if result.reranker_note:
        _print_wrapped(console, result.reranker_note, style="dim")
