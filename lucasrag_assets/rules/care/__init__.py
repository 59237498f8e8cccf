"""Care at ingest: which deference subjects a chunk is charged for, with evidence and review.

``detector.assess_chunk`` is the entry point; ``decisions`` records a person's
confirmations and dismissals in the vault.
"""
