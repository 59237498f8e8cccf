"""Loading a note's frontmatter as hostile input: bounded size, depth, aliases and expansion.

PyYAML's SafeLoader already refuses tags that construct objects (``!!python/object``...), but
it composes nesting recursively (10,000 ``[`` overflow the stack) and gives every alias the
anchored value itself, so a few lines of "billion laughs" (``&a [*b, *b, ...]`` nine levels
deep) load in microseconds and become billions of items for whatever walks them next (a
serialiser, the entity extractor). The limits below are far beyond any hand-written header and
refused with a reason before anything walks the result.
"""

from __future__ import annotations

import functools

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_FRONTMATTER_BYTES = 64 * 1024
MAX_DEPTH = 32  # nested lists / mappings
MAX_ALIASES = 64  # ``*name`` references
MAX_EXPANDED_NODES = 20_000  # values after every alias is expanded


class FrontmatterRefused(ValueError):
    """The header is not loaded; ``str(exc)`` says why and what to change."""


@functools.cache
def _bounded(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    class Bounded(base):  # type: ignore[misc, valid-type]
        _depth = 0
        _aliases = 0
        _what = "frontmatter"

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                self._aliases += 1
                if self._aliases > MAX_ALIASES:
                    raise FrontmatterRefused(
                        f"{self._what} uses more than {MAX_ALIASES} YAML aliases (*name): refused "
                        "(a 'billion laughs' expansion?); write the values out"
                    )
            self._depth += 1
            try:
                if self._depth > MAX_DEPTH:
                    raise FrontmatterRefused(f"{self._what} is nested more than {MAX_DEPTH} levels deep: refused")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return Bounded


def _expanded_size(root: Node, what: str = "frontmatter") -> int:
    """How many values the document holds once aliases are expanded (refused past the cap,
    and when an alias refers to a node that contains it)."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(node: Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise FrontmatterRefused(f"{what} refers to itself (a recursive YAML alias): refused")
        open_.add(key)
        total = 1
        if isinstance(node, SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        open_.discard(key)
        if total > MAX_EXPANDED_NODES:
            raise FrontmatterRefused(
                f"{what} expands to more than {MAX_EXPANDED_NODES:,} values (YAML aliases): refused"
            )
        sizes[key] = total
        return total

    return size(root)


def load_frontmatter(
    header: str,
    loader: type[yaml.SafeLoader] = yaml.SafeLoader,
    *,
    what: str = "frontmatter",
    max_bytes: int = MAX_FRONTMATTER_BYTES,
) -> object:
    """The YAML ``header`` loaded with ``loader`` (a SafeLoader subclass) within the limits above
    (``max_bytes`` for the size; ``what`` names the text in the reasons: a vault's settings file too).

    Raises :class:`FrontmatterRefused` for a header over a limit or with a tag that would
    construct an object, ``yaml.YAMLError`` for broken YAML (the caller reports its position)."""
    size = len(header.encode("utf-8"))
    if size > max_bytes:
        raise FrontmatterRefused(
            f"{what} is {size / 1024:.0f} KiB, over the {max_bytes // 1024} KiB cap"
            + (": move long text into the body" if what == "frontmatter" else "")
        )
    parser = _bounded(loader)(header)
    parser._what = what
    try:
        node = parser.get_single_node()
        if node is None:
            return None
        _expanded_size(node, what)
        try:
            return parser.construct_document(node)
        except yaml.constructor.ConstructorError as exc:
            if exc.problem and "could not determine a constructor for the tag" in exc.problem:
                tag = exc.problem.rsplit(" ", 1)[-1].strip("'").replace("tag:yaml.org,2002:", "!!")
                raise FrontmatterRefused(
                    f"malformed {what}: the YAML tag {tag} is not loaded (plain values only)"
                ) from None
            raise
        except (ValueError, TypeError, LookupError, AttributeError, OverflowError) as exc:
            # PyYAML's constructors fail with bare Python errors on explicitly tagged bad values
            # (``!!int 0x``, ``!!timestamp 2021-13-01``, ``!!bool maybe``...).
            raise FrontmatterRefused(
                f"malformed {what}: a tagged value cannot be read ({type(exc).__name__}: {exc}); "
                "remove the '!!' tag or fix the value"
            ) from None
    finally:
        parser.dispose()


class UnclosedFrontmatter(ValueError):
    """A header opened on line 1 and never closed; ``str(exc)`` is its opening line."""


def split_frontmatter(text: str) -> tuple[str | None, str, str]:
    """``(header or None, body, syntax)``: a YAML header between ``---`` lines (or closed by ``...``), or a
    TOML one between ``+++`` lines (Hugo and Zola sites kept as vaults). Raises :class:`UnclosedFrontmatter`."""
    lines = text.splitlines(keepends=True)
    opener = lines[0].rstrip() if lines else ""
    if opener not in ("---", "+++"):
        return None, text, "yaml"
    closers = ("---", "...") if opener == "---" else ("+++",)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in closers:
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), "yaml" if opener == "---" else "toml"
    raise UnclosedFrontmatter(opener)
