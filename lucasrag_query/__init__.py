"""LucasRAG's read side: what assistants call.

    from lucasrag_query import query
    result = query("where did I live in 2013?", workspaces=None, bridge=(), top_k=25)
    result.to_dict()

Importing this package never imports Dagster.
"""

from lucasrag_query._indexes import IndexMissing
from lucasrag_query._query import QueryError, aquery, query
from lucasrag_query.options import QueryOptions
from lucasrag_query.result import QueryResult, ResultItem

__all__ = ["query", "aquery", "QueryResult", "ResultItem", "QueryOptions", "QueryError", "IndexMissing"]
