"""Cold-start routing on vaults nobody labelled: quarantine share and hand-judged accuracy.

    python benchmarks/cold_start_routing.py --cache /tmp/routing-emb.sqlite --sample --half report \\
        --vault kepano-obsidian=/work/shared/data/vaults/kepano-obsidian \\
        --vault hugwi-obsidian-vault=/tmp/routing-vaults/hugwi \\
        --vault marcjulianschwarz-obsidian-vault-notes=/tmp/routing-vaults/marcjulianschwarz \\
        --vault wrewsama-obsidian-vault=/tmp/routing-vaults/wrewsama
    python benchmarks/cold_start_routing.py --sample-only      # the sample vault, its labels stripped
    python benchmarks/cold_start_routing.py --half all --vault aarnphm-garden=/tmp/routing-vaults/aarnphm
                                               # the fresh report set: whole, never with --half tune

(The three vaults without a licence are read into /tmp, never into this repository; see
docs/routing.md, "Cold start".)

Labels come from ``benchmarks/cold_start_labels.yaml`` (paths and workspaces only), or for the gardens
from ``benchmarks/garden_labels/NAME.labels.yaml`` (``--vault handbook=/tmp/gardens/handbook``).
Every labelled note falls in one half by a hash of its path: ``--half tune`` is what the
router was developed on (``-v``, ``--grid``), ``--half report`` is what docs/routing.md
reports. The router itself sees every note of the vault (it is unsupervised); the halves only decide which
labels are looked at. ``--sample`` adds the sample vault (``vault/``) copied with every
``workspace:`` key removed, judged against tests/fixtures/sample_vault_truth.yaml.

Figures per vault (threshold = LUCASRAG_ROUTE_THRESHOLD's default unless --threshold):
  content-bearing quarantined  notes labelled with workspaces only, held back
  routed accuracy              routed notes whose workspace is one of the label's
  content-free held back       notes labelled `none`, quarantined
``--accept-suggestions`` also measures the first-hour path: accept every folder rule
``lucasrag route suggest`` would propose from the first run, and route again.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import re
import shutil
import sys
import tempfile
from pathlib import Path

import polars as pl
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lucasrag.embedding_cache import EmbeddingCache  # noqa: E402
from lucasrag_assets.assets.notes import notes_frame  # noqa: E402
from lucasrag_assets.rules.routing import router as routing  # noqa: E402
from lucasrag_assets.rules.routing.passes import route_frame  # noqa: E402
from lucasrag_assets.rules.routing.vault_rules import RoutingRules, suggest_folder_rules  # noqa: E402
from lucasrag_assets.rules.vault_scan import scan_vault  # noqa: E402

LABELS = REPO / "benchmarks" / "cold_start_labels.yaml"
GARDEN_LABELS = REPO / "benchmarks" / "garden_labels"
SAMPLE_TRUTH = REPO / "tests" / "fixtures" / "sample_vault_truth.yaml"
_WORKSPACE_LINE = re.compile(rb"^workspace[ \t]*:.*\r?\n", re.MULTILINE)


def half_of(path: str) -> str:
    return "tune" if hashlib.sha256(path.encode()).digest()[0] % 2 == 0 else "report"


def label_set(value) -> frozenset[str]:
    return frozenset([value] if isinstance(value, str) else value)


def stripped_sample(dest: Path) -> tuple[Path, dict[str, frozenset[str]]]:
    """A copy of vault/ without any ``workspace:`` key, and its labels from the truth file."""
    vault = dest / "sample"
    shutil.copytree(REPO / "vault", vault)
    for md in vault.rglob("*.md"):
        raw = md.read_bytes()
        if raw.startswith(b"---"):
            md.write_bytes(_WORKSPACE_LINE.sub(b"", raw, count=1))
    truth = yaml.safe_load(SAMPLE_TRUTH.read_text())["notes"]
    labels = {
        p: frozenset([t["workspace"]] if t["status"] == "indexed" else ["none"])
        for p, t in truth.items()
        if t["status"] != "invalid"
    }
    return vault, labels


def judge(decided: pl.DataFrame, labels: dict[str, frozenset[str]], half: str) -> dict:
    rows = [r for r in decided.iter_rows(named=True) if r["path"] in labels and half in ("all", half_of(r["path"]))]
    bearing = [r for r in rows if "none" not in labels[r["path"]]]
    free = [r for r in rows if labels[r["path"]] == {"none"}]
    routed = [r for r in rows if r["workspace"]]
    right = [r for r in routed if r["workspace"] in labels[r["path"]]]
    return {
        "labelled": len(rows),
        "bearing": len(bearing),
        "bearing_quarantined": sum(r["workspace"] is None for r in bearing),
        "routed": len(routed),
        "routed_right": len(right),
        "free": len(free),
        "free_held": sum(r["workspace"] is None for r in free),
        "wrong": [
            (r["path"], r["workspace"], sorted(labels[r["path"]]), r["confidence"]) for r in routed if r not in right
        ],
        "held": [(r["path"], r["suggestion"], r["confidence"]) for r in bearing if r["workspace"] is None],
    }


def pct(a: int, b: int) -> str:
    return f"{a / b:6.1%} ({a}/{b})" if b else "   n/a"


def report(name: str, j: dict, verbose: bool) -> None:
    print(
        f"{name:<24} labelled {j['labelled']:>3}  content-bearing quarantined {pct(j['bearing_quarantined'], j['bearing'])}"
        f"  routed accuracy {pct(j['routed_right'], j['routed'])}  content-free held back {pct(j['free_held'], j['free'])}"
    )
    if verbose:
        for row in j["wrong"]:
            print("    wrong:", *row)
        for row in j["held"]:
            print("    held: ", *row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vault", action="append", default=[], metavar="NAME=DIR", help="a labelled vault")
    parser.add_argument("--sample", action="store_true", help="also the sample vault with labels stripped")
    parser.add_argument("--sample-only", action="store_true", help="only the stripped sample vault")
    parser.add_argument("--half", choices=("tune", "report", "all"), default="report")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--self-train", type=float, help="override SELF_TRAIN_CONFIDENCE")
    parser.add_argument("--folder-weight", type=float, help="override FOLDER_EVIDENCE_WEIGHT")
    parser.add_argument("--accept-suggestions", action="store_true", help="route again with suggested folder rules")
    parser.add_argument("--grid", action="store_true", help="tuning: the best settings of GRID, real vaults pooled")
    parser.add_argument("--grid-top", type=int, default=15, help="with --grid: how many settings to print")
    parser.add_argument("--cache", type=Path, help="an embedding cache to reuse between runs")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misrouted and held-back notes")
    args = parser.parse_args()
    if args.self_train is not None:
        routing.SELF_TRAIN_CONFIDENCE = args.self_train
    if args.folder_weight is not None:
        routing.FOLDER_EVIDENCE_WEIGHT = args.folder_weight

    all_labels = yaml.safe_load(LABELS.read_text())["vaults"]
    with tempfile.TemporaryDirectory() as tmp:
        targets = []
        if not args.sample_only:
            for spec in args.vault:
                name, _, folder = spec.partition("=")
                garden = GARDEN_LABELS / f"{name}.labels.yaml"
                if name in all_labels:
                    labels = {p: label_set(v) for p, v in all_labels[name]["notes"].items()}
                elif garden.is_file():
                    notes = yaml.safe_load(garden.read_text())["notes"]
                    labels = {p: label_set(v["workspace"]) for p, v in notes.items()}
                else:
                    parser.error(f"no labels for {name!r} in {LABELS} or {GARDEN_LABELS}")
                targets.append((name, Path(folder), labels))
        if args.sample or args.sample_only:
            targets.append(("sample (labels stripped)", *stripped_sample(Path(tmp))))
        cache = EmbeddingCache(args.cache or Path(tmp) / "emb.sqlite")
        if args.grid:
            grid(targets, cache, args)
            cache.close()
            return
        total: dict[str, int] = {}
        print(
            f"half={args.half} threshold={args.threshold} self_train={routing.SELF_TRAIN_CONFIDENCE} "
            f"folder_weight={routing.FOLDER_EVIDENCE_WEIGHT}"
        )
        for name, folder, labels in targets:
            notes = notes_frame(scan_vault(folder, max_bytes=1 << 20))
            decided = route_frame(notes, cache.embed, args.threshold)
            if args.accept_suggestions:
                pairs = [(r["path"], r["workspace"] or r["suggestion"]) for r in decided.iter_rows(named=True)]
                rules = RoutingRules(folders={s.folder: s.workspace for s in suggest_folder_rules(pairs)})
                print(f"  {name}: accepting {len(rules.folders)} suggested folder rules: {dict(rules.folders)}")
                decided = route_frame(notes, cache.embed, args.threshold, rules)
            j = judge(decided, labels, args.half)
            report(name, j, args.verbose)
            if not name.startswith("sample"):
                for k in ("bearing", "bearing_quarantined", "routed", "routed_right", "free", "free_held", "labelled"):
                    total[k] = total.get(k, 0) + j[k]
        cache.close()
        if len([t for t in targets if not t[0].startswith("sample")]) > 1:
            report("real vaults together", {**total, "wrong": [], "held": []}, False)


#: The tuning grid (``--grid``): routing-module constants and the values tried for each.
GRID = {
    "SELF_TRAIN_CONFIDENCE": (0.6, 0.7, 0.8),
    "FOLDER_EVIDENCE_WEIGHT": (2.0, 4.0),
    "FOLDER_WEIGHT": (1.0, 2.0),
    "CODE_WEIGHT": (1.0, 2.0, 3.0),
    "REJECT_LOGIT": (4.0, 4.5, 5.0),
}


def grid(targets, cache, args) -> None:
    """Pooled figures of the real vaults (and the sample vault's separately) for every combination
    in GRID, best first: fewest errors (misrouted plus content-free let through), then fewest
    content-bearing notes held. Only --half's labels are looked at."""
    frames = [(name, notes_frame(scan_vault(folder, max_bytes=1 << 20)), labels) for name, folder, labels in targets]
    rows = []
    for values in itertools.product(*GRID.values()):
        for key, value in zip(GRID, values):
            setattr(routing, key, value)
        pooled: dict[str, int] = {}
        sample = ""
        for name, notes, labels in frames:
            j = judge(route_frame(notes, cache.embed, args.threshold), labels, args.half)
            if name.startswith("sample"):
                sample = f"sample q {j['bearing_quarantined']}/{j['bearing']} acc {j['routed_right']}/{j['routed']}"
                continue
            for k in ("bearing", "bearing_quarantined", "routed", "routed_right", "free", "free_held"):
                pooled[k] = pooled.get(k, 0) + j[k]
        errors = pooled["routed"] - pooled["routed_right"]
        rows.append((errors, pooled["bearing_quarantined"], values, pooled, sample))
    for _errors, _held, values, pooled, sample in sorted(rows, key=lambda r: (r[0], r[1]))[: args.grid_top]:
        setting = " ".join(f"{k}={v}" for k, v in zip(GRID, values))
        print(
            f"{setting}  quarantined {pct(pooled['bearing_quarantined'], pooled['bearing'])}  accuracy "
            f"{pct(pooled['routed_right'], pooled['routed'])}  free held {pct(pooled['free_held'], pooled['free'])}"
            f"  {sample}"
        )


if __name__ == "__main__":
    main()
