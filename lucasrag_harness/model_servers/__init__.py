"""Local llama.cpp servers (reranker, chat) for tests, benchmarks and ``lucasrag reranker serve``."""
