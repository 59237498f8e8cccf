"""LightRAG's entity graph for the embedded profile: networkx in memory, its rows in ``lightrag.sqlite``.

``NetworkXStorage`` answers every graph read from a ``networkx.Graph`` and saves it by rewriting a GraphML
file whole (0.7 s for one note at 10,000 notes, 1.3–2.8 s at 20,000: docs/scale.md). This subclass keeps
its reads and replaces its persistence: the nodes and edges a write touched are remembered, and the flush
writes only their rows, stamped with the next ``seq`` (a removed node or edge is logged with it, by its row
number: the log never holds a name, so a note turned private leaves none behind). A reader in another
process (or another instance in this one) brings its graph up to date by those rows, as the vector store
does (``_sqlite_vectors``), instead of parsing the whole graph again.

A long-lived process (``lucasrag watch``, ``mcp --watch``, the sensor's in-process run) opens a workspace's
index for every run that changes it: the graph a closed storage held, everything in it flushed, is kept in
the process (``_KEPT``) and the next storage of the same file takes it and follows the flushes since, instead
of reading every row again (≈ 1.1 s for the largest workspace at 100,000 notes). The file's ``generation``,
a random number written with its first flush, tells a rebuilt file from the one the graph came from.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from lightrag.kg.networkx_impl import NetworkXStorage
from lightrag.utils import validate_workspace

from lucasrag.index._lightrag._sqlite_file import Transaction, connect, counter, import_once, store_folder

#: Removals older than this many flushes leave the log; a reader that far behind loads the graph afresh.
KEPT_DELETES = 10_000


@dataclass
class _Kept:
    """A closed storage's graph, every change flushed: what it held at flush ``seq`` of file ``generation``."""

    generation: int
    seq: int
    graph: nx.Graph
    node_rows: dict[int, str]
    edge_rows: dict[int, tuple[str, str]]


#: (lightrag.sqlite's folder, namespace) → the graph the last storage of that file closed with (module doc).
_KEPT: dict[tuple[str, str], _Kept] = {}


def _pair(a: str, b: str) -> tuple[str, str]:
    """An undirected edge's key: its two ends in order."""
    return (a, b) if a <= b else (b, a)


@dataclass
class SqliteGraphStorage(NetworkXStorage):
    def __post_init__(self) -> None:
        # NetworkXStorage's own __post_init__ parses the GraphML file; this one reads nothing until initialize
        validate_workspace(self.workspace)
        self._folder = store_folder(self.global_config, self.workspace)
        self._graphml_xml_file = str(self._folder / f"graph_{self.namespace}.graphml")  # an earlier version's
        self._storage_lock = None
        self.storage_updated = None
        self._commit_gate = None
        self._commit_gate_loop = None
        self._graph = nx.Graph()
        self._db = None
        self._seq = 0  # the last flush the graph in memory holds
        self._version: int | None = None  # PRAGMA data_version when it was last brought up to date
        self._touched_nodes: set[str] = set()
        self._touched_edges: set[tuple[str, str]] = set()
        # row numbers (never reused: AUTOINCREMENT) of the rows the graph in memory holds, for the delete log
        self._node_rows: dict[int, str] = {}
        self._edge_rows: dict[int, tuple[str, str]] = {}

    # --------------------------------------------------------------------------- opening, closing

    async def initialize(self) -> None:
        await super().initialize()  # LightRAG's namespace lock
        if self._db is None:
            self._db = connect(self._folder)
            import_once(self._db, f"graph:{self.namespace}", Path(self._graphml_xml_file), self._copy_legacy)
            kept = _KEPT.pop(self._kept_key(), None)  # taken: no two storages ever share one graph
            if kept is not None and kept.generation == self._count(self._db, "generation"):
                self._graph, self._seq = kept.graph, kept.seq
                self._node_rows, self._edge_rows = kept.node_rows, kept.edge_rows
                self._version = None  # another connection's data_version: check the flushes since
                self._follow()
            else:
                self._load()

    def _kept_key(self) -> tuple[str, str]:
        return (str(self._folder.resolve()), self.namespace)

    def _copy_legacy(self, db, legacy: Path) -> None:
        graph = nx.read_graphml(legacy)
        db.executemany(
            "INSERT OR REPLACE INTO graph_nodes (namespace, id, attrs, seq) VALUES (?, ?, ?, 1)",
            ((self.namespace, n, json.dumps(attrs)) for n, attrs in graph.nodes(data=True)),
        )
        db.executemany(
            "INSERT OR REPLACE INTO graph_edges (namespace, a, b, attrs, seq) VALUES (?, ?, ?, ?, 1)",
            ((self.namespace, *_pair(a, b), json.dumps(attrs)) for a, b, attrs in graph.edges(data=True)),
        )
        self._count(db, "seq", 1)

    async def finalize(self) -> None:
        if self._db is not None:
            generation = self._count(self._db, "generation")
            if generation and not self._touched_nodes and not self._touched_edges:  # all of it is in the file
                _KEPT[self._kept_key()] = _Kept(generation, self._seq, self._graph, self._node_rows, self._edge_rows)
            self._db.close()
            self._db = None

    def _count(self, db, name: str, value: int | None = None) -> int:
        return counter(db, f"graph:{name}:{self.namespace}", value)

    def _load(self) -> None:
        db = self._db
        self._version = db.execute("PRAGMA data_version").fetchone()[0]
        self._seq = self._count(db, "seq")
        graph, ns = nx.Graph(), (self.namespace,)
        self._node_rows, self._edge_rows = {}, {}
        for rid, n, attrs in db.execute("SELECT rid, id, attrs FROM graph_nodes WHERE namespace = ? ORDER BY rid", ns):
            graph.add_node(n, **json.loads(attrs))
            self._node_rows[rid] = n
        edges = db.execute("SELECT rid, a, b, attrs FROM graph_edges WHERE namespace = ? ORDER BY rid", ns)
        for rid, a, b, attrs in edges:
            graph.add_edge(a, b, **json.loads(attrs))
            self._edge_rows[rid] = (a, b)
        self._graph = graph

    def _follow(self) -> None:
        """Apply every flush another connection committed since the graph was last brought up to date."""
        db = self._db
        version = db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._version:
            return
        seq, pruned = self._count(db, "seq"), self._count(db, "pruned")
        if seq < self._seq or self._seq < pruned:
            self._load()
            return
        if seq > self._seq:
            graph, since = self._graph, (self.namespace, self._seq)
            removed = db.execute("SELECT kind, rid FROM graph_deletes WHERE namespace = ? AND seq > ?", since)
            for kind, rid in removed.fetchall():
                if kind == "node" and (n := self._node_rows.pop(rid, None)) is not None and graph.has_node(n):
                    graph.remove_node(n)
                elif kind == "edge" and (e := self._edge_rows.pop(rid, None)) is not None and graph.has_edge(*e):
                    graph.remove_edge(*e)
            nodes = db.execute("SELECT rid, id, attrs FROM graph_nodes WHERE namespace = ? AND seq > ?", since)
            for rid, n, attrs in nodes.fetchall():
                if graph.has_node(n):
                    graph.nodes[n].clear()
                graph.add_node(n, **json.loads(attrs))
                self._node_rows[rid] = n
            edges = db.execute("SELECT rid, a, b, attrs FROM graph_edges WHERE namespace = ? AND seq > ?", since)
            for rid, a, b, attrs in edges.fetchall():
                if graph.has_edge(a, b):
                    graph.edges[a, b].clear()
                graph.add_edge(a, b, **json.loads(attrs))
                self._edge_rows[rid] = (a, b)
        self._seq, self._version = seq, version

    async def _get_graph(self):
        async with self._storage_lock:
            self._follow()
            graph = self._graph
        while not self._gate().is_set():  # NetworkXStorage's commit gate: no read while a flush writes
            await self._gate().wait()
        return graph

    # --------------------------------------------------------------------------- writes: remember what they touch

    async def upsert_node(self, node_id: str, node_data: dict[str, str]) -> None:
        await super().upsert_node(node_id, node_data)
        self._touched_nodes.add(node_id)

    async def upsert_nodes_batch(self, nodes: list[tuple[str, dict[str, str]]]) -> None:
        await super().upsert_nodes_batch(nodes)
        self._touched_nodes.update(n for n, _ in nodes)

    async def upsert_edge(self, source_node_id: str, target_node_id: str, edge_data: dict[str, str]) -> None:
        await super().upsert_edge(source_node_id, target_node_id, edge_data)
        self._touched_nodes.update((source_node_id, target_node_id))  # add_edge adds a missing end
        self._touched_edges.add(_pair(source_node_id, target_node_id))

    async def upsert_edges_batch(self, edges: list[tuple[str, str, dict[str, str]]]) -> None:
        await super().upsert_edges_batch(edges)
        for a, b, _ in edges:
            self._touched_nodes.update((a, b))
            self._touched_edges.add(_pair(a, b))

    async def _touch_incident(self, nodes) -> None:
        graph = await self._get_graph()
        for n in nodes:
            if graph.has_node(n):
                self._touched_edges.update(_pair(n, m) for m in graph.neighbors(n))  # they go with the node
            self._touched_nodes.add(n)

    async def delete_node(self, node_id: str) -> None:
        await self._touch_incident([node_id])
        await super().delete_node(node_id)

    async def remove_nodes(self, nodes: list[str]) -> None:
        await self._touch_incident(nodes)
        await super().remove_nodes(nodes)

    async def remove_edges(self, edges: list[tuple[str, str]]) -> None:
        await super().remove_edges(edges)
        self._touched_edges.update(_pair(a, b) for a, b in edges)

    # --------------------------------------------------------------------------- the flush

    def _write(self, nodes: set[str], edges: set[tuple[str, str]]) -> None:
        graph, ns = self._graph, self.namespace
        written_nodes, written_edges, gone = {}, {}, []
        with Transaction(self._db) as db:
            seq = self._count(db, "seq") + 1
            for n in nodes:
                if graph.has_node(n):
                    (rid,) = db.execute(
                        "INSERT INTO graph_nodes (namespace, id, attrs, seq) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT (namespace, id) DO UPDATE SET attrs = excluded.attrs, seq = excluded.seq "
                        "RETURNING rid",
                        (ns, n, json.dumps(graph.nodes[n]), seq),
                    ).fetchone()
                    written_nodes[rid] = n
                else:
                    for (rid,) in db.execute(
                        "DELETE FROM graph_nodes WHERE namespace = ? AND id = ? RETURNING rid", (ns, n)
                    ).fetchall():
                        gone.append(("node", rid))
            for a, b in edges:
                if graph.has_edge(a, b):
                    (rid,) = db.execute(
                        "INSERT INTO graph_edges (namespace, a, b, attrs, seq) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (namespace, a, b) DO UPDATE SET attrs = excluded.attrs, seq = excluded.seq "
                        "RETURNING rid",
                        (ns, a, b, json.dumps(graph.edges[a, b]), seq),
                    ).fetchone()
                    written_edges[rid] = (a, b)
                else:
                    for (rid,) in db.execute(
                        "DELETE FROM graph_edges WHERE namespace = ? AND a = ? AND b = ? RETURNING rid", (ns, a, b)
                    ).fetchall():
                        gone.append(("edge", rid))
            db.executemany(
                "INSERT OR REPLACE INTO graph_deletes VALUES (?, ?, ?, ?)", ((ns, k, r, seq) for k, r in gone)
            )
            if seq > KEPT_DELETES:
                db.execute("DELETE FROM graph_deletes WHERE namespace = ? AND seq <= ?", (ns, seq - KEPT_DELETES))
                self._count(db, "pruned", seq - KEPT_DELETES)
            self._count(db, "seq", seq)
            if not self._count(db, "generation"):  # this file's own number (a rebuilt file draws another)
                self._count(db, "generation", secrets.randbits(62) or 1)
        for kind, rid in gone:
            (self._node_rows if kind == "node" else self._edge_rows).pop(rid, None)
        self._node_rows.update(written_nodes)
        self._edge_rows.update(written_edges)
        if self._seq == seq - 1:  # nothing else was written in between: the graph in memory is this flush
            self._seq = seq

    async def index_done_callback(self) -> bool:
        if not self._touched_nodes and not self._touched_edges:
            return True
        async with self._storage_lock:
            gate = self._gate()
            gate.clear()
            try:
                nodes, edges = self._touched_nodes, self._touched_edges
                self._write(nodes, edges)
                self._touched_nodes, self._touched_edges = set(), set()
            finally:
                gate.set()
        return True

    async def drop(self) -> dict[str, str]:
        async with self._storage_lock:
            with Transaction(self._db) as db:
                for table in ("graph_nodes", "graph_edges", "graph_deletes"):
                    db.execute(f"DELETE FROM {table} WHERE namespace = ?", (self.namespace,))
                seq = self._count(db, "seq", self._count(db, "seq") + 1)
                self._count(db, "pruned", seq)  # every reader loads afresh
            self._graph = nx.Graph()
            self._touched_nodes, self._touched_edges = set(), set()
            self._node_rows, self._edge_rows = {}, {}
            self._seq = seq
        return {"status": "success", "message": "data dropped"}
