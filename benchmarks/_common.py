"""What the benchmark scripts share: the query set and the percentile."""

QUERIES = [
    "where do I live?",
    "where did I live in 2013?",
    "what is my cat called?",
    "how do I tune postgres vacuum?",
    "kubernetes cluster upgrade steps",
    "poem about the sea",
    "when is my tax return due?",
    "insurance policy number",
    "what did I do growing up?",
    "who are my friends in Lisbon?",
    "terraform state lock",
    "story draft characters",
    "pension transfer",
    "lease renewal",
    "debugging nginx",
    "holiday plans",
    "rust borrow checker",
    "bank account",
    "what was my first job?",
    "how is grandad?",
]


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
