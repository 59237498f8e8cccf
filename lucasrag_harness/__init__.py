"""The harness: what measures and exercises LucasRAG but is not the product.

``evaluation/`` (LoCoMo, policy and graph evaluations, the vault generator), ``model_servers/``
(llama.cpp reranker and chat servers for tests and local runs) and ``services/`` (runs PostgreSQL
and Neo4j locally: ``lucasrag services``, the test fixtures). Installed, because ``lucasrag eval`` and
``lucasrag services`` use it; the core and the read side never import it.
"""
