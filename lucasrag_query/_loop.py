"""One background event loop for the process.

LightRAG's storages hold asyncio primitives bound to the loop that opened
them; keeping one loop alive lets ``query()`` reuse opened indexes across calls
and be called from synchronous code and from inside other event loops alike.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def _get_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="lucasrag-query-loop", daemon=True).start()
        return _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the shared loop and wait for its result."""
    return asyncio.run_coroutine_threadsafe(coro, _get_loop()).result()


async def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the shared loop from another event loop (an MCP server's, say),
    without blocking that loop: the opened indexes stay bound to the shared one."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, _get_loop()))
