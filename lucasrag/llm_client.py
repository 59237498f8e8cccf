"""An OpenAI-compatible chat client for LightRAG's ``llm_model_func`` (``LUCASRAG_LLM_URL``).

Used only for LightRAG's own entity extraction on top of the structural graph
(``WorkspaceIndex.enable_llm``). httpx, with a per-request timeout and a few
retries with backoff on connection errors, timeouts, 429 and 5xx. Responses are
cached by LightRAG itself (its ``llm_response_cache`` store, keyed by prompt),
so a re-ingest of unchanged chunks asks the model nothing.
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from lucasrag.settings import Settings, mask_secrets

log = logging.getLogger(__name__)

RETRIES = 3
BACKOFF_S = 0.5
MAX_TOKENS = 1024


class LLMError(RuntimeError):
    """The LLM endpoint failed after every retry (the message names the URL and the cause)."""


def _messages(prompt: str, system_prompt: str | None, history: list[dict] | None) -> list[dict]:
    messages = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    messages.extend(m for m in history or [] if isinstance(m, dict) and "role" in m and "content" in m)
    messages.append({"role": "user", "content": prompt})
    return messages


def chat_model_func(settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None):
    """An ``llm_model_func`` for LightRAG that posts to ``{LUCASRAG_LLM_URL}/v1/chat/completions``."""
    if not settings.llm_url:
        raise LLMError("LUCASRAG_LLM_URL is not set")
    base = settings.llm_url.rstrip("/")
    url = (
        base
        if base.endswith("/chat/completions")
        else (f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions")
    )
    timeout = httpx.Timeout(settings.llm_timeout_s, connect=min(10.0, settings.llm_timeout_s))
    shown = mask_secrets(url)  # what errors and logs name: they reach Dagster's event log and the terminal

    async def complete(
        prompt: str, system_prompt: str | None = None, history_messages: list | None = None, **kwargs
    ) -> str:
        payload = {
            "model": settings.llm_model,
            "messages": _messages(prompt, system_prompt, history_messages),
            "temperature": float(kwargs.get("temperature", 0.0)),
            "max_tokens": int(kwargs.get("max_tokens") or MAX_TOKENS),
            "stream": False,
        }
        last: str = "no attempt"
        async with httpx.AsyncClient(timeout=timeout, transport=transport) as client:
            for attempt in range(RETRIES):
                try:
                    r = await client.post(url, json=payload)
                    if r.status_code == 429 or r.status_code >= 500:
                        last = f"HTTP {r.status_code}: {r.text[:200]}"
                    elif r.status_code >= 400:
                        raise LLMError(f"LLM at {shown} refused the request: HTTP {r.status_code}: {r.text[:200]}")
                    else:
                        data = r.json()
                        return data["choices"][0]["message"].get("content") or ""
                except (httpx.TimeoutException, httpx.TransportError) as exc:
                    last = f"{type(exc).__name__}: {exc}"
                except (ValueError, KeyError, IndexError, TypeError) as exc:
                    raise LLMError(f"LLM at {shown} answered something that is not a chat completion: {exc}") from exc
                if attempt + 1 < RETRIES:
                    log.warning("LLM call to %s failed (%s); retrying", shown, mask_secrets(last))
                    await asyncio.sleep(BACKOFF_S * 2**attempt)
        raise LLMError(f"LLM at {shown} failed {RETRIES} times; last: {mask_secrets(last)}")

    return complete
