"""``lucasrag reranker serve``: a GGUF cross-encoder behind llama.cpp's /v1/rerank, for the query's rerank step."""

from __future__ import annotations

from pathlib import Path

import typer

from lucasrag_cli._console import fail

reranker_app = typer.Typer(help="A local llama.cpp reranker server.", no_args_is_help=True)


@reranker_app.command("serve")
def reranker_serve(
    model: Path = typer.Option(..., "--model", help="A GGUF reranker (e.g. bge-reranker-v2-m3)."),
    host: str = typer.Option("127.0.0.1", help="Bind address."),
    port: int = typer.Option(8181, help="Port."),
) -> None:
    """Serve a GGUF cross-encoder with llama.cpp's /v1/rerank until Ctrl-C."""
    from lucasrag_harness.model_servers.llama_server import RerankerServerError, serve

    try:
        serve(model, host, port)
    except RerankerServerError as exc:
        fail(str(exc))
