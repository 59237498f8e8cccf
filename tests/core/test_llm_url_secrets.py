"""A password in ``LUCASRAG_LLM_URL`` reaches neither the graph mode (hashed into every document
fingerprint) nor the LLM client's errors and log lines (Dagster's event log, the terminal)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from lucasrag import llm_client
from lucasrag.index.sync import doc_fingerprint, graph_mode
from lucasrag.settings import Settings
from lucasrag.vocabulary import ChunkRecord

SECRET = "s3cret-pw"
BASE = Settings(vault=Path("/v"), data=Path("/d"), now=dt.date(2026, 6, 1), graph=True)
RECORD = ChunkRecord("c1", "d1", "personal", "p.md", 0, "text", "present", "default", None, (), "hash")


@pytest.mark.parametrize(
    ("llm_url", "graph", "contains"),
    [
        (f"http://lucas:{SECRET}@llm.lan:8080", True, "+llm:http://lucas:***@llm.lan:8080:local"),
        ("http://llm.lan:8080", True, "+llm:http://llm.lan:8080:local"),  # nothing to mask: unchanged
        (None, True, "graph-v"),
        (f"http://lucas:{SECRET}@llm.lan:8080", False, ""),
    ],
    ids=["password-masked", "no-password", "no-llm", "graph-off"],
)
def test_graph_mode_names_the_server_but_not_its_password(llm_url, graph, contains):
    mode = graph_mode(replace(BASE, llm_url=llm_url, graph=graph))
    assert SECRET not in mode
    assert contains in mode and (mode == "") is (not graph)


def test_a_rotated_password_keeps_fingerprints_and_another_server_changes_them():
    def fingerprint(url: str) -> str:
        return doc_fingerprint([RECORD], graph_mode(replace(BASE, llm_url=url)))

    assert fingerprint(f"http://lucas:{SECRET}@llm.lan:8080") == fingerprint("http://lucas:rotated@llm.lan:8080")
    assert fingerprint("http://llm.lan:8080") != fingerprint("http://other.lan:8080")


@pytest.mark.parametrize(
    ("status", "expect"),
    [(400, "refused the request: HTTP 400"), (503, "failed 3 times; last: HTTP 503"), (200, "not a chat completion")],
    ids=["refused", "retried", "not-a-completion"],
)
def test_llm_errors_and_retries_mask_the_password(status, expect, monkeypatch, caplog):
    monkeypatch.setattr(llm_client, "BACKOFF_S", 0.0)
    transport = httpx.MockTransport(lambda request: httpx.Response(status, text="nope"))
    settings = replace(BASE, llm_url=f"http://lucas:{SECRET}@llm.lan:8080")
    complete = llm_client.chat_model_func(settings, transport=transport)
    with caplog.at_level(logging.WARNING, logger=llm_client.__name__):
        with pytest.raises(llm_client.LLMError, match=expect) as caught:
            asyncio.run(complete("hello"))
    message = str(caught.value)
    assert "http://lucas:***@llm.lan:8080/v1/chat/completions" in message
    assert SECRET not in message and SECRET not in caplog.text
    if status == 503:
        assert "retrying" in caplog.text
