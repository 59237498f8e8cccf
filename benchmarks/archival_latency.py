"""Cost of a closed archive that removes everything (a benchmark, not a test).

    python benchmarks/archival_latency.py --notes 120

Two copies of one generated vault, the same notes with every note's band forced in
frontmatter: ``present`` in one, ``archival`` in the other. Signal-free questions
(no period, no cue) are asked of both: on the archival copy the policy removes every
candidate and the answer is the archive hint alone. Before the store counted its
eligible chunks, the over-fetch loop asked for up to 8× more candidates that the band
filter then removed (~10× slower). Prints p50/p95 of each copy and the ratio of p50s
(target ≤ 1.5).
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.settings import Settings  # noqa: E402
from lucasrag_assets.ingest import run_ingest  # noqa: E402
from lucasrag_harness.evaluation.vault_generator import generate_vault  # noqa: E402
from lucasrag_query import query  # noqa: E402
from lucasrag_query.temporal import detect_temporal  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import QUERIES, pct  # noqa: E402

_FRONTMATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.DOTALL)


def force_band(text: str, band: str) -> str:
    """The note with ``band: <band>`` in its frontmatter (added, or replacing a band key)."""
    m = _FRONTMATTER.match(text)
    if not m:
        return f"---\nband: {band}\n---\n{text}"
    keys = [line for line in m.group(1).splitlines() if not line.startswith("band:")]
    return "---\n" + "\n".join([*keys, f"band: {band}"]) + "\n---\n" + text[m.end() :]


def copy_with_band(src: Path, dst: Path, band: str) -> None:
    shutil.copytree(src, dst)
    for path in dst.rglob("*.md"):
        if ".lucasrag" in path.parts or ".obsidian" in path.parts or ".trash" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, ValueError):
            continue  # the generator's invalid files stay as they are
        if "\x00" not in text and not text.startswith("---\n:"):
            path.write_text(force_band(text, band), encoding="utf-8")


def timed(settings: Settings, questions: list[str], repeats: int) -> tuple[list[float], int, int]:
    """Latencies (ms), results returned and archival passages announced by hints."""
    ms, returned, withheld = [], 0, 0
    query(questions[0], settings=settings)  # opens the indexes: not part of any latency
    for _ in range(repeats):
        for q in questions:
            t0 = time.perf_counter()
            result = query(q, settings=settings)
            ms.append((time.perf_counter() - t0) * 1000)
            returned += len(result.results)
            withheld += sum(h.withheld for h in result.hints if h.kind == "archive")
    return ms, returned, withheld


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=120, help="files in the generated vault (default 120)")
    ap.add_argument("--repeats", type=int, default=3, help="times each question is asked (default 3)")
    ap.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one, removed)")
    args = ap.parse_args()
    now = dt.date(2026, 6, 1)
    work = args.work or Path(tempfile.mkdtemp(prefix="lucasrag-archival-"))
    try:
        src = work / "generated"
        if not src.is_dir():
            generate_vault(src, args.notes, now=now)
        questions = [q for q in QUERIES if not detect_temporal(q, now=now).archival_open]
        p50 = {}
        for band in ("present", "archival"):
            vault = work / f"vault-{band}"
            if not vault.is_dir():
                copy_with_band(src, vault, band)
            settings = Settings.from_env(vault=vault, data=work / f"data-{band}", now=now)
            t0 = time.perf_counter()
            run_ingest(settings)
            ingest_s = time.perf_counter() - t0
            ms, returned, withheld = timed(settings, questions, args.repeats)
            p50[band] = statistics.median(ms)
            print(
                f"{band:8} vault: {len(ms)} signal-free queries, p50 {p50[band]:.0f} ms, p95 {pct(ms, 0.95):.0f} ms; "
                f"{returned / len(ms):.1f} results and {withheld / len(ms):.1f} archival passages in the hint "
                f"per query (ingest {ingest_s:.0f}s)"
            )
        print(f"ratio archival/present p50: {p50['archival'] / p50['present']:.2f} (target <= 1.5)")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
