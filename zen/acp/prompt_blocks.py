"""An ACP prompt's content blocks as the one task text zen's session runs.

Editors send text, links to files and embedded files (open buffers); zen takes text, so a
link becomes its path, an embedded text file a tagged block, anything else a short note.
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)


def prompt_text(blocks: list[Any]) -> str:
    """The prompt's blocks as one task: text as it is, a linked file as its path, an embedded
    file (an editor buffer) in a tagged block the model can tell from the request."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"@{_path_of(block.uri)}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(
                    f'\n<context ref="{_path_of(resource.uri)}">\n{resource.text}\n</context>\n'
                )
            else:
                parts.append(f"[binary attachment {_path_of(resource.uri)} not read]")
        else:
            parts.append(f"[{getattr(block, 'type', 'an')} attachment not read: zen takes text]")
    return " ".join(p for p in parts if p) if len(parts) > 1 else "".join(parts)


def _path_of(uri: str) -> str:
    if uri.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(uri).path)
    return uri
