"""`skill`: load a skill's instructions, or a file beside its SKILL.md, when the model asks.

The system prompt lists only skills' names and descriptions; this tool hands over the body on
demand, so ten skills cost ten lines until one is used. Files are read only from inside the
skill's own folder (symlinks resolved), whatever the path says.
"""

from __future__ import annotations

from pydantic import Field

from zen.settings.extensions import FILE_LIMIT
from zen.tools.base import Params, Tool, ToolContext, ToolResult


class SkillParams(Params):
    name: str
    file: str | None = Field(None, description="a file beside SKILL.md, relative to it")


class Skill(Tool):
    name = "skill"
    Params = SkillParams
    read_only = True
    acp_kind = "read"
    needs = "skills"

    def key_arg(self, args: dict[str, object]) -> str:
        return " ".join(str(args.get(k) or "") for k in ("name", "file")).strip()

    async def execute(self, params: SkillParams, ctx: ToolContext) -> ToolResult:
        skills = {s.name: s for s in ctx.skills}
        skill = skills.get(params.name)
        if skill is None:
            return ToolResult.error(f"no skill {params.name!r}; skills: {', '.join(skills)}")
        if not params.file:
            beside = sorted(
                p.relative_to(skill.folder).as_posix()
                for p in skill.folder.rglob("*")
                if p.is_file() and p != skill.path
            )[:50]
            files = f"\n\nFiles beside it (skill file=...): {', '.join(beside)}" if beside else ""
            return ToolResult(True, skill.body + files, summary=f"loaded {skill.name}")
        folder = skill.folder.resolve()
        path = (folder / params.file).resolve()
        if folder not in path.parents or not path.is_file():
            return ToolResult.error(f"{params.file!r} is not a file inside skill {skill.name}")
        with path.open("rb") as handle:
            text = handle.read(FILE_LIMIT).decode("utf-8", "replace")
        return ToolResult(True, text, summary=f"read {params.file}")
