"""LucasRAG's write side: the Dagster asset graph from vault to four indexes."""
