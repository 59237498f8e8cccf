"""What the private-note rule costs: the scan of a generated vault with and without `.lucasrag/private`
(and `private: true` on some notes), and the per-result header check a query makes.

    python benchmarks/private_cost.py --notes 1000

The vault is generated (lucasrag_harness.evaluation.vault_generator) into a scratch folder; the scan is
``scan_vault`` (every note parsed, as a cold ingest's first step), best of ``--repeat`` runs each way.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import tempfile
import time
from pathlib import Path

from lucasrag.privacy import load_privacy, private_now
from lucasrag_assets.rules.vault_scan import scan_vault
from lucasrag_harness.evaluation.vault_generator import generate_vault

PATTERNS = "\n".join(
    ["# twenty patterns, as a person with several private places might write them"]
    + [f"private-{i}/" for i in range(10)]
    + ["*.secret.md", "/passwords.md", "journal/**/dreams-*.md", "medical/", "therapy/", "!therapy/public.md"]
    + ["admin/bank/*.md", "writing/drafts/", "**/letters/*.md", "personal/health*.md"]
)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        generate_vault(vault, args.notes, seed=7, now=dt.date(2026, 6, 1))
        notes = sorted(p for p in vault.rglob("*.md") if ".lucasrag" not in p.parts)
        without = best(lambda: scan_vault(vault, max_bytes=1 << 20), args.repeat)

        (vault / ".lucasrag").mkdir(exist_ok=True)
        (vault / ".lucasrag" / "private").write_text(PATTERNS + "\n")
        for path in random.Random(7).sample(notes, len(notes) // 20):  # 5 % marked private: true
            raw = path.read_text(encoding="utf-8", errors="replace")
            body = raw.replace("---\n", "---\nprivate: true\n", 1) if raw.startswith("---\n") else raw
            path.write_text(body if body != raw else "---\nprivate: true\n---\n" + raw, encoding="utf-8")
        scanned = scan_vault(vault, max_bytes=1 << 20)
        private = sum(n.status == "private" for n in scanned)
        with_rule = best(lambda: scan_vault(vault, max_bytes=1 << 20), args.repeat)

        rules = load_privacy(vault)
        rels = [p.relative_to(vault).as_posix() for p in notes[:25]]
        per_query = best(lambda: [private_now(vault, r, rules, max_bytes=1 << 20) for r in rels], 20)
    print(
        f"{args.notes} generated notes; {private} private with the rule ({len(rules.lines)} patterns, 5 % private: true)"
    )
    print(f"scan without .lucasrag/private: {without:.2f} s; with it: {with_rule:.2f} s ({with_rule - without:+.2f} s)")
    print(f"a query's check of its 25 results (pattern, then header): {per_query * 1000:.2f} ms")


if __name__ == "__main__":
    main()
