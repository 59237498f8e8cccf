"""The MCP server: three read-only tools over the query side, on the official SDK's ``MCPServer``.

Every failure an assistant can cause or meet (an empty query, an unknown workspace,
no index yet, a path that is not a note) is an MCP tool error (``isError``) with its
reason; anything unforeseen is caught by the SDK and answered as a tool error too,
so the server never goes down with a call. No tool writes to the vault.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, WithJsonSchema

from lucasrag.settings import Settings
from lucasrag.vault_watch import Reingest, VaultWatcher
from lucasrag.vocabulary import WORKSPACES
from lucasrag_query import _loop
from lucasrag_query.mcp import auth, render
from lucasrag_query.mcp.notes import NoteRefused, read_note
from lucasrag_query.mcp.schemas import NoteOutput, RecentOutput, SearchOutput, StatusOutput
from lucasrag_query.mcp.status import status

INSTRUCTIONS = """\
LucasRAG is the person's own vault of notes (journal, technical notes, writing, admin papers), \
indexed in four workspaces: technical, creative, personal, administrative. It keeps three duties; keep them too.

Recency: search answers from the present by default; older (archival) notes are left out and announced by a \
hint. The archive opens only when the question itself is about the past: a year ("in 2013"), a decade \
("the 90s"), or words like "back then", "growing up", "used to", "the history of". Put such words in the query \
only when the person said them — never to get more results. When the person asks about the past in other words, \
search with archive=True.

Care: some subjects are painful for the person (their names are in status). Passages about them are \
withheld unless bridged, and a hint always says that material exists and how many passages matched. Bridge a \
subject (bridge=["Name"]) only when the person asks about that subject themselves — never to fill a result \
list, never because a hint mentions it. Tell the person when something was withheld, if it matters.

Governance: notes awaiting a person's review (quarantine) are never served; approving them is the person's \
job, not a tool's. Every tool here is read-only.

Use search for questions, recent for what the person wrote or changed lately, read_note(path) to read a whole \
note that search or recent found, status for what is indexed and how fresh it is."""

_READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
# The schema lists the four names; the check is query()'s own, whose error names them too.
Workspace = Annotated[str, WithJsonSchema({"type": "string", "enum": list(WORKSPACES)})]
Workspaces = Annotated[list[Workspace] | None, Field(description="Restrict to these workspaces (default: all four).")]
Bridge = Annotated[
    list[str] | None,
    Field(description="Deference subjects to include deliberately — only when the person asks about that subject."),
]


def _result(text: str, structured: dict) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _service_error(exc: RuntimeError) -> Exception:
    """A production server that is down or unconfigured (ServiceError names it and its setting)
    becomes a tool error with that message; any other RuntimeError stays unforeseen (the SDK
    answers it as a tool error and logs the traceback)."""
    from lucasrag.index import IndexDamaged
    from lucasrag.services import ServiceError

    return ToolError(str(exc)) if isinstance(exc, (ServiceError, IndexDamaged)) else exc


class Tools:
    """The tools' state: settings (with "now" kept current) and the optional watcher."""

    def __init__(self, settings: Settings, watcher: VaultWatcher | None = None) -> None:
        self._settings = settings
        # A server runs for days: unless "now" was fixed (LUCASRAG_NOW, or settings given with
        # another day), it follows the calendar instead of staying the day the server started.
        self._follow_today = not os.environ.get("LUCASRAG_NOW") and settings.now == dt.date.today()
        self.watcher = watcher

    @property
    def settings(self) -> Settings:
        return replace(self._settings, now=dt.date.today()) if self._follow_today else self._settings

    async def search(
        self,
        query: Annotated[
            str,
            Field(
                description="The person's question, in their words (a year or 'back then' "
                "included only if they said it)."
            ),
        ],
        workspaces: Workspaces = None,
        bridge: Bridge = None,
        top_k: Annotated[int | None, Field(ge=1, le=100, description="How many results (default 25).")] = None,
        archive: Annotated[
            bool,
            Field(
                description="Open the whole archive (older notes) although the query names no period — only when "
                "the person asked about the past in their own words."
            ),
        ] = False,
        after: Annotated[
            str | None,
            Field(
                description="Only notes dated on or after this ISO date (2019-04-01) or period ('2019', "
                "'April 2024'); opens the archive for that period only. Pass it only when the person named the period."
            ),
        ] = None,
        before: Annotated[
            str | None,
            Field(
                description="Only notes dated on or before this ISO date or period; opens the archive for it only. "
                "Pass it only when the person named the period."
            ),
        ] = None,
        folders: Annotated[
            list[str] | None, Field(description="Only notes under these vault-relative folders (e.g. 'journal').")
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description="Only notes with one of these tags (nested tags too).")
        ] = None,
        chunks: Annotated[
            bool,
            Field(description="List every matching passage in its own place (default: one place per note)."),
        ] = False,
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Search the person's notes (all four workspaces unless restricted). Present notes by default; a year, a \
decade or 'back then' in the query opens the archive. Passages about deference subjects are withheld and \
announced by hints; bridge a subject only when the person asks about it. Each result says why it surfaced \
and gives the vault path for read_note."""
        from lucasrag.deference import DeferenceConfigError
        from lucasrag_query import IndexMissing, QueryError, aquery

        started = time.perf_counter()
        try:
            result = await _loop.run_async(
                aquery(
                    query,
                    workspaces=workspaces,
                    bridge=bridge or (),
                    top_k=top_k,
                    settings=self.settings,
                    archive=archive,
                    after=after,
                    before=before,
                    folders=folders,
                    tags=tags,
                    chunks=chunks,
                )
            )
        except (QueryError, IndexMissing, DeferenceConfigError) as exc:
            raise ToolError(str(exc)) from None
        except RuntimeError as exc:
            raise _service_error(exc) from None
        queried = time.perf_counter()
        structured = render.search_content(result.to_dict(why=True))
        text = render.search_text(structured)
        # Where the time went on the server: the query, and the tool around it (rendering included).
        structured["timings_ms"] = {
            "query": round((queried - started) * 1000, 2),
            "tool": round((time.perf_counter() - started) * 1000, 2),
        }
        return _result(text, structured)

    async def read_note(
        self,
        path: Annotated[str, Field(description="Vault-relative path, as search results give it.")],
        bridge: Annotated[
            list[str] | None,
            Field(
                description="Deference subjects whose passages to include — "
                "only when the person asks about that subject."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, NoteOutput]:
        """Read one whole note by its vault path, as indexed. Passages about deference subjects are replaced by a \
withholding notice unless bridged (bridge only when the person asks about the subject). Archival notes are \
served and marked as archival. Quarantined, invalid, hidden and outside-the-vault paths are refused with the \
reason."""
        from lucasrag.deference import DeferenceConfigError

        try:
            note = await anyio.to_thread.run_sync(read_note, self.settings, path, tuple(bridge or ()))
        except (NoteRefused, DeferenceConfigError) as exc:
            raise ToolError(str(exc)) from None
        except RuntimeError as exc:
            raise _service_error(exc) from None
        return _result(render.note_text(note), note)

    async def recent(
        self,
        days: Annotated[int, Field(ge=1, le=366, description="How many days back, today included (default 7).")] = 7,
        workspaces: Workspaces = None,
        bridge: Bridge = None,
    ) -> Annotated[CallToolResult, RecentOutput]:
        """What's new: notes written or changed in the last N days (by the note's own date or its updated \
property, never a file's time), newest first, with the same care policy and hints as search; paths for \
read_note."""
        from lucasrag.deference import DeferenceConfigError
        from lucasrag_query.recent import RecentError
        from lucasrag_query.recent import recent as recent_notes

        try:
            result = await anyio.to_thread.run_sync(
                lambda: recent_notes(days, workspaces=workspaces, bridge=bridge or (), settings=self.settings)
            )
        except (RecentError, DeferenceConfigError) as exc:
            raise ToolError(str(exc)) from None
        structured = render.recent_content(result.to_dict())
        return _result(render.recent_text(structured), structured)

    async def status(self) -> Annotated[CallToolResult, StatusOutput]:
        """What is indexed and how fresh it is: per workspace notes and chunks; the last ingest; notes changed in \
the vault since (stale); notes pending a person's review (quarantine); the deference subjects' names; the \
profile and reranker in use; and, when the server watches the vault, the watcher's state."""
        watch = self.watcher.state() if self.watcher else None
        try:
            out = await anyio.to_thread.run_sync(status, self.settings, watch)
        except (OSError, ValueError) as exc:
            raise ToolError(f"status unavailable: {exc}") from None
        except RuntimeError as exc:
            raise _service_error(exc) from None
        return _result(render.status_text(out), out)


def build_server(
    settings: Settings, *, watcher: VaultWatcher | None = None, token: str | None = None, port: int | None = None
) -> MCPServer:
    """The LucasRAG MCP server; with ``token`` (HTTP), every request must carry it as a bearer token."""
    tools = Tools(settings, watcher)
    secured = {}
    if token is not None:
        secured = {"token_verifier": auth.StaticTokenVerifier(token), "auth": auth.auth_settings(port or 0)}
    server = MCPServer("lucasrag", instructions=INSTRUCTIONS, log_level="WARNING", **secured)
    for fn in (tools.search, tools.recent, tools.read_note, tools.status):
        server.add_tool(fn, title=f"LucasRAG {fn.__name__.replace('_', ' ')}", annotations=_READ_ONLY)
    return server


def _log(message: str) -> None:
    print(f"lucasrag mcp: {message}", file=sys.stderr, flush=True)


def serve(
    settings: Settings,
    *,
    http: bool = False,
    port: int = 8765,
    reingest: Reingest | None = None,
    debounce_s: float | None = None,
    log: Callable[[str], None] = _log,
    events: bool = True,
) -> None:
    """Run until the client closes stdio (or Ctrl-C over HTTP). With ``reingest``, watch the
    vault and re-ingest when it changes (``--watch``; ``events=False``: check every second instead of
    waiting for the file system's change events)."""
    watcher = None
    if reingest is not None:
        extra = {"debounce_s": debounce_s} if debounce_s is not None else {}
        watcher = VaultWatcher(settings, reingest, log=log, events=events, **extra).start()
    try:
        if not http:
            build_server(settings, watcher=watcher).run("stdio")
            return
        token, source = auth.load_or_create_token(settings)
        server = build_server(settings, watcher=watcher, token=token, port=port)
        log(f"serving http://{auth.HOST}:{port}{auth.PATH} (bearer token from {source})")
        auth.serve_http(server, port)
    finally:
        if watcher is not None:
            watcher.stop(timeout=1)
