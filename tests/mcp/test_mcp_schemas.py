"""The search output schema checks what an assistant relies on: every result carries every field."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from lucasrag_query.mcp.schemas import SearchOutput

RESULT = {
    "rank": 1,
    "chunk_id": "chunk-1",
    "workspace": "personal",
    "path": "journal/a.md",
    "band": "present",
    "date": None,
    "score": 0.5,
    "text": "x",
    "why": {"signals": {}, "pool": 1, "summary": "s"},
}
HINT = {"subject": None, "kind": "archive", "withheld": 2, "message": "m", "reach": {"tool": "search"}}


def _output(results: list[dict]) -> dict:
    return {"query": "q", "results": results, "hints": [HINT], "temporal": {}, "reranker": "fallback"}


@pytest.mark.parametrize(
    ("results", "valid"),
    [
        ([RESULT], True),
        ([RESULT, {**RESULT, "extra": "kept open"}], True),
        ([], True),
        *[([{k: v for k, v in RESULT.items() if k != missing}], False) for missing in RESULT],
        (["not an object"], False),
    ],
)
def test_result_items_need_every_field(results: list[dict], valid: bool) -> None:
    validator = Draft202012Validator(SearchOutput.model_json_schema())
    assert validator.is_valid(_output(results)) is valid
