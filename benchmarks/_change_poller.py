"""A second process that asks, as an assistant would, until a one-note change shows: the query side of a
writer that runs elsewhere (``mcp --watch`` asks in its server while its ingest process writes). Used by
``benchmarks/change_kinds.py --poll``; ``found_first`` / ``found_anywhere`` are the checks both processes make.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def found_first(settings, word: str, workspaces=None) -> bool:
    from lucasrag_query import query

    result = query(f"{word} gasket", settings=settings, workspaces=workspaces)
    return bool(result.results) and word in result.results[0].text


def found_anywhere(settings, word: str) -> bool:
    from lucasrag_query import query

    return any(word in r.text for r in query(f"{word} gasket", settings=settings, top_k=25).results)


#: The second process (``Poller`` starts it with its arguments filled in).
_POLLER = """
import json, sys, time
sys.path[:0] = [{bench!r}, {repo!r}]
if {stand_in!r}:
    from _common import install_stand_in_vectors
    install_stand_in_vectors()
import datetime as dt
from pathlib import Path
from lucasrag.settings import Settings
import _change_poller as ck
settings = Settings(vault=Path({vault!r}), data=Path({data!r}), now=dt.date.fromisoformat({now!r}))
ck.found_anywhere(settings, "warm")  # the four workspaces open, as a running server's are
print("ready", flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    print("polling", flush=True)
    while True:
        try:
            if ask["gone"]:
                ok = not ck.found_anywhere(settings, ask["word"])
            else:
                ok = ck.found_first(settings, ask["word"], ask["workspaces"])
        except Exception as exc:  # a query that fails while the ingest writes: reported, and asked again
            print(json.dumps({{"error": f"{{type(exc).__name__}}: {{exc}}"}}), flush=True)
            ok = False
        if ok:
            print(json.dumps({{"found_at": time.time()}}), flush=True)
            break
        time.sleep({every})
"""


class Poller:
    """The ``_POLLER`` process: ``ask(word, ...)`` before the save, ``found_at()`` once the ingest is done (None:
    not shown within ``WAIT_S`` of the ingest's end — the process is replaced for the next change)."""

    WAIT_S = 60.0

    def __init__(self, settings, stand_in: bool, every: float) -> None:
        self._code = _POLLER.format(
            bench=str(Path(__file__).resolve().parent),
            repo=str(Path(__file__).resolve().parents[1]),
            stand_in=stand_in,
            vault=str(settings.vault),
            data=str(settings.data),
            now=settings.now.isoformat(),
            every=every,
        )
        self._start()

    def _start(self) -> None:
        import subprocess

        self._process = subprocess.Popen(
            [sys.executable, "-c", self._code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout.readline().strip() == "ready"

    def ask(self, word: str, *, gone: bool = False, workspaces=None) -> None:
        self._process.stdin.write(json.dumps({"word": word, "gone": gone, "workspaces": workspaces}) + "\n")
        self._process.stdin.flush()
        assert self._process.stdout.readline().strip() == "polling"

    def found_at(self) -> float | None:
        import select

        while select.select([self._process.stdout], [], [], self.WAIT_S)[0]:
            line = self._process.stdout.readline()
            if not line:
                break
            if "error" in (said := json.loads(line)):
                print(f"  (the other process's query failed: {said['error']})", flush=True)
                continue
            return said["found_at"]
        print(f"  (the other process did not see the change within {self.WAIT_S:g} s)", flush=True)
        self._process.kill()
        self._process.wait()
        self._start()
        return None

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=30)
