"""LucasRAG over the Model Context Protocol (architecture §3.10): what assistants attach.

    from lucasrag_query.mcp import serve
    serve(settings)                         # stdio
    serve(settings, http=True, port=8765)   # streamable HTTP on 127.0.0.1, /mcp, bearer token

Read side only: re-ingesting for ``--watch`` is injected (``reingest=``), never imported.
"""

from lucasrag_query.mcp.server import INSTRUCTIONS, build_server, serve

__all__ = ["INSTRUCTIONS", "build_server", "serve"]
