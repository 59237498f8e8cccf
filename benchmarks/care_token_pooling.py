"""Does the care detector gain from reading the shared forward pass token by token? (docs/care.md,
"Attention over the token outputs, measured and not kept".)

    python benchmarks/care_token_pooling.py [--heads 1,4] [--steps 300]

The detector's vector evidence mean-pools MiniLM's token outputs over the sentences about a subject
(``Embedder.embed_spans``). A charged practical entry often turns on one word among figures ("funeral
director 3,840.00"), which a mean dilutes. This measures the alternative on the **tuning half only**: an
attention pooling over the same token outputs (``heads`` learned queries, each a softmax over the
context's tokens with the subject's names masked, plus the mean-pooled vector; one logistic output), fitted
by full-batch Adam with hand-written gradients, against the mean-pooled span vector's logistic regression
(``logistic.fit``, the shipped fit). Both are scored **leave one batch of writers out**
(``pairs.WRITER_BATCHES``): trained on every other tuning batch, scored on the left-out one. Printed per
left-out batch: the area under the ROC curve and the recall at the left-out batch's own 5 % neutral
false-positive cut (an oracle cut: it compares separability, not a shippable threshold), beside the same on
the training rows.
"""

from __future__ import annotations

import argparse
import re
import time

import numpy as np

from lucasrag.embedding import get_embedder
from lucasrag_assets.rules.care.mentions import resolve
from lucasrag_harness.care_training.logistic import fit
from lucasrag_harness.care_training.pairs import FIRST_AUTHOR, author_of
from lucasrag_harness.evaluation.care_corpus import PERSONAS, generate_corpus

FP = 0.05


def token_rows(seed: int):
    """Per tuning pair: token outputs, the context mask (names masked), label and writers batch."""
    embedder = get_embedder()
    states, masks, labels, batches = [], [], [], []
    for p in generate_corpus(seed):
        if p.half != "tune":
            continue
        subject = next(x.subject for x in PERSONAS if x.subject.name == p.subject)
        context = resolve(p.text, subject)
        if context is None or not context.mentions:
            continue
        hidden, offsets = embedder.token_outputs(p.text)
        real = offsets[:, 1] > offsets[:, 0]
        inside = np.zeros(len(offsets), dtype=bool)
        for start, end in context.spans:
            inside |= real & (offsets[:, 0] >= start) & (offsets[:, 1] <= end)
        for name in (subject.name, *subject.aliases):
            for m in re.finditer(rf"\b{re.escape(name)}\b", p.text, re.IGNORECASE):
                inside &= ~((offsets[:, 1] > m.start()) & (offsets[:, 0] < m.end()))
        states.append(hidden)
        masks.append(inside if inside.any() else real)
        labels.append(1.0 if p.label == "charged" else 0.0)
        batches.append(author_of(p))
    width = max(len(h) for h in states)
    h = np.zeros((len(states), width, states[0].shape[1]), dtype=np.float32)
    m = np.zeros((len(states), width), dtype=bool)
    for i, (s, k) in enumerate(zip(states, masks)):
        h[i, : len(s)], m[i, : len(k)] = s, k
    return h, m, np.array(labels), np.array(batches)


def mean_pooled(h: np.ndarray, m: np.ndarray) -> np.ndarray:
    v = (h * m[..., None]).sum(axis=1) / np.maximum(m.sum(axis=1, keepdims=True), 1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _attend(h, m, q):
    e = np.where(m[:, None, :], np.einsum("ntd,kd->nkt", h, q), -1e9)
    a = np.exp(e - e.max(axis=-1, keepdims=True))
    return a / a.sum(axis=-1, keepdims=True)


def fit_attention(h, m, y, *, heads: int, steps: int, l2: float = 1.0, lr: float = 0.02, seed: int = 0):
    """Attention pooling + the mean-pooled vector → one logit; class-balanced, L2, full-batch Adam."""
    rng = np.random.default_rng(seed)
    n, _, d = h.shape
    params = [rng.normal(0, 0.1, (heads, d)), np.zeros((heads, d)), np.zeros(d), np.zeros(1)]  # q, v, v0, c
    first, second = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    p0 = mean_pooled(h, m)
    balance = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    for t in range(1, steps + 1):
        q, v, v0, c = params
        a = _attend(h, m, q)
        pooled = np.einsum("nkt,ntd->nkd", a, h)
        per_head = np.einsum("nkd,kd->nk", pooled, v)
        z = per_head.sum(axis=1) + p0 @ v0 + c[0]
        g = balance * (1 / (1 + np.exp(-z)) - y) / n
        # d z / d e_kt = a_kt (v_k·h_t − v_k·pooled_k): the softmax's gradient through the pooled vector
        de = a * (np.einsum("ntd,kd->nkt", h, v) - per_head[..., None]) * g[:, None, None]
        grads = [
            np.einsum("nkt,ntd->kd", de, h) + l2 * q / n,
            np.einsum("n,nkd->kd", g, pooled) + l2 * v / n,
            p0.T @ g + l2 * v0 / n,
            np.array([g.sum()]),
        ]
        for j, (p, grad) in enumerate(zip(params, grads)):
            first[j] = 0.9 * first[j] + 0.1 * grad
            second[j] = 0.999 * second[j] + 0.001 * grad**2
            p -= lr * (first[j] / (1 - 0.9**t)) / (np.sqrt(second[j] / (1 - 0.999**t)) + 1e-8)
    q, v, v0, c = params

    def score(h2, m2):
        pooled = np.einsum("nkt,ntd->nkd", _attend(h2, m2, q), h2)
        return np.einsum("nkd,kd->n", pooled, v) + mean_pooled(h2, m2) @ v0 + c[0]

    return score


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    ranks = np.empty(len(scores))
    ranks[np.argsort(scores)] = np.arange(1, len(scores) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def recall_at_own_cut(scores: np.ndarray, y: np.ndarray) -> float:
    return float((scores[y == 1] > np.quantile(scores[y == 0], 1 - FP)).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heads", default="1,4", help="Attention heads to try, comma-separated (0: none).")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11, help="The corpus seed (the training module's).")
    args = ap.parse_args()
    started = time.perf_counter()
    h, m, y, batches = token_rows(args.seed)
    print(f"{len(y)} tuning pairs, {h.shape[1]} token slots, embedded in {time.perf_counter() - started:.0f} s")
    held_out = sorted(set(batches) - {FIRST_AUTHOR})
    models = ["mean-pooled span vector"] + [f"attention, {k} head(s)" for k in map(int, args.heads.split(",")) if k]
    for name in models:
        started, rows = time.perf_counter(), []
        for batch in held_out:
            train, test = batches != batch, batches == batch
            if name.startswith("mean"):
                x = mean_pooled(h, m).astype(np.float64)
                w, b = fit(x[train], y[train], dense=True)
                s_train, s_test = x[train] @ w + b, x[test] @ w + b
            else:
                score = fit_attention(h[train], m[train], y[train], heads=int(name.split()[1]), steps=args.steps)
                s_train, s_test = score(h[train], m[train]), score(h[test], m[test])
            rows.append((batch, auc(s_test, y[test]), recall_at_own_cut(s_test, y[test]), auc(s_train, y[train])))
        print(f"\n{name} ({time.perf_counter() - started:.0f} s)")
        print("| left out | AUC | recall at its own 5 % FP cut | training AUC |\n|---|---|---|---|")
        for batch, a, r, a_train in rows:
            print(f"| {batch} | {a:.3f} | {r:.3f} | {a_train:.3f} |")
        print(f"| mean | {np.mean([r[1] for r in rows]):.3f} | {np.mean([r[2] for r in rows]):.3f} | |")


if __name__ == "__main__":
    main()
