"""YAML that cannot cost more than it is worth: a size cap and an alias-expansion cap.

PyYAML shares the object an alias points at, so a "billion laughs" document (nine levels of
anchors, each listing the previous one nine times) loads quickly, but everything that walks
the result afterwards (variable expansion, merging, validation) walks 9⁹ nodes: 38 s and
1.2 GB in zen 0.1.0. The composed node graph is measured with aliases expanded (memoised, so
the measurement itself is linear) before anything is constructed.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1_000_000
"""A config file is a few kilobytes; a megabyte is already absurd."""
MAX_NODES = 100_000
"""Nodes of the document with every alias expanded."""


class YamlLimitError(yaml.YAMLError):
    """The document is too big, or expands to too many nodes through aliases."""


def read_capped(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileNotFoundError passes through.

    A FIFO or a device named as a config file would block or never end: refused unopened.
    """
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(st.st_mode):
        raise YamlLimitError("not a regular file")
    if st.st_size > limit:
        raise YamlLimitError(f"the file is {st.st_size:,} bytes; the limit is {limit:,}")
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise YamlLimitError(f"the file is over {limit:,} bytes")
    return data


def load_bounded(raw: bytes | str, loader: type, max_nodes: int = MAX_NODES) -> Any:
    """`yaml.load(raw, loader)`, refusing documents that expand to more than `max_nodes`."""
    if len(raw) > MAX_BYTES:
        raise YamlLimitError(f"the document is {len(raw):,} bytes; the limit is {MAX_BYTES:,}")
    reader = loader(raw)
    try:
        node = reader.get_single_node()
        if node is None:
            return None
        size = expanded_size(node, max_nodes)
        if size > max_nodes:
            raise YamlLimitError(
                f"aliases expand the document to more than {max_nodes:,} values "
                "(an alias bomb?); write the values out instead"
            )
        return reader.construct_document(node)
    finally:
        reader.dispose()


def expanded_size(root: yaml.Node, stop_at: int) -> int:
    """Nodes under `root` counting every alias as a copy (stops counting past `stop_at`)."""
    sizes: dict[int, int] = {}
    visiting: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in visiting:  # a recursive alias: constructing it would loop
            return stop_at + 1
        visiting.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                total += size(child)
                if total > stop_at:
                    break
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                total += size(k) + size(v)
                if total > stop_at:
                    break
        visiting.discard(key)
        sizes[key] = total
        return total

    return size(root)
