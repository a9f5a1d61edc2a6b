"""The auto-memo of the file tools: what an agent just read or wrote, kept under
`file:<path>` so it (or the next agent) can recall a file without reading it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zen.stores.memo import AUTO

if TYPE_CHECKING:
    from zen.tools.base import ToolContext

MEMO_CAP = 4000
"""Characters of content an auto-memo entry keeps: enough to recall a file, cheap to read back."""


def remember(ctx: ToolContext, shown: str, content: str, summary: str) -> None:
    """Auto-memo: record what this agent just saw or did to a file under `file:<path>`."""
    if len(content) > MEMO_CAP:
        content = content[:MEMO_CAP] + f"\n… [{len(content) - MEMO_CAP} more chars]"
    ctx.memo.write(f"file:{shown}", content, summary, AUTO, run=ctx.run.id)
