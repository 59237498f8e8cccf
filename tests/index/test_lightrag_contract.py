"""The LightRAG contract: one case per assumption listed in ``lucasrag/index/_lightrag/_contract.py``.

A LightRAG upgrade that breaks an assumption fails here, in the case that names it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import inspect
import re
import subprocess
import sys
import time
import typing
from pathlib import Path

import pytest

from lucasrag.index._lightrag import _contract

# The shared-storage and PostgreSQL client patches are installed lazily; install them
# here so the PATCHES cases check the originals they replaced, whatever ran before.
from lucasrag.index._lightrag._production import (
    _install_neo4j_batch_deletes,
    _install_pg_client_pools,
    _install_workspace_vector_indexes,
)


def _resolve(dotted: str):
    module_name, _, path = dotted.partition(":")
    obj = importlib.import_module(module_name)
    for part in path.split(".") if path else ():
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("symbol", list(_contract.SYMBOLS))
def test_symbol_exists(symbol):
    module_name, _, path = symbol.partition(":")
    obj = importlib.import_module(module_name)
    for part in path.split("."):
        assert hasattr(obj, part), f"{symbol} is gone; relied on by: {_contract.SYMBOLS[symbol]}"
        obj = getattr(obj, part)


@pytest.mark.parametrize("target", list(_contract.SIGNATURES))
def test_keyword_parameters(target):
    obj = _resolve(target)
    params = set(inspect.signature(obj).parameters)
    missing = [p for p in _contract.SIGNATURES[target] if p not in params]
    assert not missing, f"{target} no longer takes {missing}"


@pytest.mark.parametrize("field", _contract.LIGHTRAG_FIELDS)
def test_lightrag_field(field):
    from lightrag import LightRAG

    assert field in {f.name for f in dataclasses.fields(LightRAG)}, f"LightRAG.{field} is gone"


@pytest.mark.parametrize("target", list(_contract.PATCHES))
def test_patched_method_keeps_its_shape(target):
    _install_pg_client_pools()
    _install_neo4j_batch_deletes()
    _install_workspace_vector_indexes()
    owner_path, _, method = target.rpartition(".")
    owner = _resolve(owner_path)
    original = getattr(owner, f"_lucasrag_original_{method}")
    assert inspect.iscoroutinefunction(original), f"{target} is no longer a coroutine function"
    params = list(inspect.signature(original).parameters)
    assert params == list(_contract.PATCHES[target]), f"{target} now takes {params}; the replacement must follow"


@pytest.mark.parametrize(("name", "module"), list(_contract.STORAGE_CLASSES.items()))
def test_storage_class(name, module):
    from lightrag.kg import STORAGES

    assert STORAGES.get(name) == module.removeprefix("lightrag"), f"LightRAG no longer maps {name} to {module}"
    assert hasattr(importlib.import_module(module), name)


@pytest.mark.parametrize(("name", "spec"), list(_contract.OWN_STORAGES.items()))
def test_own_storage_class_is_found_by_name_and_implements_the_base(name, spec):
    """LightRAG resolves our name through its registry to our class, which implements every abstract method
    of LightRAG's base class and takes the fields LightRAG constructs storages with."""
    from lightrag.kg import STORAGE_IMPLEMENTATIONS, verify_storage_implementation
    from lightrag.kg.factory import get_storage_class

    from lucasrag.index._lightrag._setup import _OWN_STORAGES, register_own_storages

    register_own_storages()
    base_name, fields = spec
    base = _resolve(base_name)
    cls = get_storage_class(name)
    kind, module = _OWN_STORAGES[name]
    assert cls.__module__ == module and issubclass(cls, base)
    assert name in STORAGE_IMPLEMENTATIONS[kind]["implementations"]
    verify_storage_implementation(kind, name)
    assert not getattr(cls, "__abstractmethods__", None), f"{name} leaves {cls.__abstractmethods__} unimplemented"
    assert set(fields) <= {f.name for f in dataclasses.fields(cls)}, f"{base_name} now has other fields"


@pytest.mark.parametrize(("variable", "module"), list(_contract.ENVIRONMENT.items()))
def test_environment_variable_is_read_where_expected(variable, module):
    source = Path(inspect.getfile(importlib.import_module(module))).read_text()
    assert f'"{variable}"' in source, f"{module} no longer reads {variable}"


@pytest.mark.parametrize(("message", "module"), list(_contract.LOG_MESSAGES.items()))
def test_filtered_log_message_still_exists(message, module):
    source = Path(inspect.getfile(importlib.import_module(module))).read_text()
    assert message in source, f"{module} no longer logs {message!r}: the quiet filter drops nothing"


@pytest.mark.parametrize(("store", "spec"), list(_contract.CHUNK_FORMATS.items()))
def test_chunk_row_format(store, spec):
    type_path, keys = spec
    schema = _resolve(type_path)
    if dataclasses.is_dataclass(schema):
        required = {
            f.name
            for f in dataclasses.fields(schema)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        known = {f.name for f in dataclasses.fields(schema)}
    else:  # TypedDict
        required = set(typing.get_type_hints(schema))
        known = required
    assert required <= set(keys), f"{type_path} now requires {sorted(required - set(keys))}"
    assert set(keys) - {"file_path"} <= known | {"status"}, f"{type_path} dropped {sorted(set(keys) - known)}"


# --------------------------------------------------------------------------- record formats

IGNORED_KEYS = {"__id__", "__created_at__", "__vector__", "id", "created_at", "create_time", "update_time", "_id"}


@pytest.fixture(scope="module")
def merged_rows(tmp_path_factory):
    """What LightRAG's own merge writes for one chunk naming Ana and Rosa, and what ours writes."""
    from lightrag.kg.shared_storage import get_namespace_data, get_namespace_lock
    from lightrag.operate import merge_nodes_and_edges
    from lightrag.utils import compute_mdhash_id, make_relation_chunk_key

    from lucasrag.index import open_workspace_index
    from lucasrag.index._lightrag._graph_rows import _entity_vdb_row
    from lucasrag.settings import Settings

    root = tmp_path_factory.mktemp("contract")
    (root / "vault").mkdir()
    settings = Settings.from_env(vault=root / "vault", data=root / "data")

    async def run() -> dict:
        index = await open_workspace_index(settings, "technical")
        rag = index._rag
        try:
            stamp = int(time.time())
            nodes = {
                n: [
                    dict(
                        entity_name=n,
                        entity_type="person",
                        description=f"{n} is here.",
                        source_id="chunk-1",
                        file_path="a.md",
                        timestamp=stamp,
                    )
                ]
                for n in ("Ana", "Rosa")
            }
            edge = dict(
                src_id="Ana",
                tgt_id="Rosa",
                weight=1.0,
                description="Ana works with Rosa.",
                keywords="work",
                source_id="chunk-1",
                file_path="a.md",
                timestamp=stamp,
            )
            await merge_nodes_and_edges(
                chunk_results=[(nodes, {("Ana", "Rosa"): [edge]})],
                knowledge_graph_inst=rag.chunk_entity_relation_graph,
                entity_vdb=rag.entities_vdb,
                relationships_vdb=rag.relationships_vdb,
                global_config=rag._build_global_config(),
                full_entities_storage=rag.full_entities,
                full_relations_storage=rag.full_relations,
                doc_id="doc-1",
                pipeline_status=await get_namespace_data("pipeline_status", workspace=rag.workspace),
                pipeline_status_lock=get_namespace_lock("pipeline_status", workspace=rag.workspace),
                llm_response_cache=rag.llm_response_cache,
                entity_chunks_storage=rag.entity_chunks,
                relation_chunks_storage=rag.relation_chunks,
                file_path="a.md",
            )
            graph = rag.chunk_entity_relation_graph
            node = await graph.get_node("Rosa")
            theirs = {
                "graph node": node,
                "graph edge": await graph.get_edge("Ana", "Rosa"),
                "entities_vdb": await rag.entities_vdb.get_by_id(compute_mdhash_id("Rosa", prefix="ent-")),
                "entity_chunks": await rag.entity_chunks.get_by_id("Rosa"),
                "relation_chunks": await rag.relation_chunks.get_by_id(make_relation_chunk_key("Ana", "Rosa")),
                "full_entities": await rag.full_entities.get_by_id("doc-1"),
                "full_relations": await rag.full_relations.get_by_id("doc-1"),
            }
            our_node = index._node_row("Rosa", "person", ["Rosa is here."], ["chunk-1"], ["a.md"])
            ours = {
                "graph node": our_node,
                "graph edge": index._edge_row(["Ana works with Rosa."], ["chunk-1"], 1.0, "work", ["a.md"]),
                "entities_vdb": _entity_vdb_row("Rosa", our_node),
                "entity_chunks": {"chunk_ids": ["chunk-1"], "count": 1},
                "relation_chunks": {"chunk_ids": ["chunk-1"], "count": 1},
                "full_entities": {"entity_names": ["Ana", "Rosa"], "count": 2},
                "full_relations": {"relation_pairs": [["Ana", "Rosa"]], "count": 1},
            }
            return {"theirs": theirs, "ours": ours}
        finally:
            await index.close()

    return asyncio.run(run())


@pytest.mark.parametrize("store", list(_contract.RECORD_FORMATS))
def test_record_format_matches_lightrags_merge(merged_rows, store):
    theirs = merged_rows["theirs"][store]
    assert theirs, f"LightRAG's merge wrote no {store} row"
    their_keys = set(theirs) - IGNORED_KEYS
    assert their_keys == set(_contract.RECORD_FORMATS[store]) - IGNORED_KEYS, (
        f"LightRAG's merge now writes {store} with {sorted(their_keys)}"
    )
    assert their_keys <= set(merged_rows["ours"][store]), (
        f"our {store} row lacks {their_keys - set(merged_rows['ours'][store])}"
    )


@pytest.mark.parametrize("store", ["graph node", "graph edge", "entities_vdb"])
def test_record_values_match_lightrags_merge(merged_rows, store):
    """The same values as LightRAG's merge for the same input (timestamps aside; an entity
    vector's text is the name and the first sentence, LightRAG's the name and description)."""
    theirs, ours = merged_rows["theirs"][store], merged_rows["ours"][store]
    for key in set(theirs) - IGNORED_KEYS:
        assert ours[key] == theirs[key], f"{store}.{key}: ours {ours[key]!r}, LightRAG's {theirs[key]!r}"


@pytest.mark.parametrize(("name", "use"), list(_contract.DEFERRED_IMPORTS.items()))
def test_deferred_import_is_read_only_by_attribute(name, use):
    module, attributes = use
    source = Path(inspect.getfile(importlib.import_module(module))).read_text()
    assert f"import {name}\n" in source, f"{module} no longer imports {name}: nothing to defer"
    read = set(re.findall(rf"\b{name}\.(\w+)", source))
    assert read <= set(attributes), f"{module} now reads {sorted(read - set(attributes))} from {name}"
    assert f"from {name}" not in source, f"{module} imports names from {name}: a placeholder cannot stand in"


# A fresh process: LightRAG imported through the adapter leaves pypinyin unloaded until its sort key runs.
_DEFERRED_IN_A_FRESH_PROCESS = """
import lucasrag.index._lightrag, lightrag.lightrag
from lightrag.utils import get_pinyin_sort_key
from lucasrag.index._lightrag._deferred import is_loaded
print(is_loaded("pypinyin"), get_pinyin_sort_key("张三 Abc"), is_loaded("pypinyin"))
"""


def test_pypinyin_loads_on_first_use_and_sorts_as_before():
    out = subprocess.run(
        [sys.executable, "-c", _DEFERRED_IN_A_FRESH_PROCESS], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "zhangsan", "abc", "True"]


MERGES = [
    pytest.param(["c1", "c2"], ["c2", "c3"], id="overlap"),
    pytest.param(None, ["c1", " c1 ", ""], id="no-existing-stripped-and-empty"),
    pytest.param(["c1<SEP>c2", "c3"], ["c2<SEP> c4 "], id="joined-elements"),
    pytest.param([f"chunk-{i}" for i in range(5000)], ["chunk-4999", "chunk-new"], id="a-hub-entity"),
    pytest.param(["  ", "c1"], None, id="whitespace-only"),
]


@pytest.mark.parametrize("existing, new", MERGES)
def test_merged_sources_equals_lightrags_merge(existing, new):
    from lightrag.utils import GRAPH_FIELD_SEP, merge_source_ids

    from lucasrag.index._lightrag._graph_rows import _merged_sources

    def joined(values):
        return None if values is None else [v.replace("<SEP>", GRAPH_FIELD_SEP) for v in values]

    assert _merged_sources(joined(existing), joined(new)) == merge_source_ids(joined(existing), joined(new))
