"""Files Windows tools wrote: a UTF-8 BOM (Notepad, PowerShell 7 utf8BOM) or UTF-16 with a BOM
(PowerShell 5.1's `>` and Out-File). Each project or user file zen reads means what it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zen.base.bom import decode_text
from zen.mcp.servers import read_mcp_json
from zen.settings.extensions import load_skills
from zen.settings.loading import load_config
from zen.settings.trust_describe import describe
from zen.tools.hooks import load_hooks

ENCODINGS = ["utf-8-sig", "utf-16", "utf-16-be-bom"]


def encode(text: str, encoding: str) -> bytes:
    if encoding == "utf-16-be-bom":
        return b"\xfe\xff" + text.encode("utf-16-be")
    return text.encode(encoding)  # utf-16: a BOM first, little-endian on every machine here


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_decode_text_drops_the_bom(encoding: str) -> None:
    assert decode_text(encode("é ✓ 中", encoding)) == "é ✓ 中"


def test_without_a_bom_it_is_utf8() -> None:
    assert decode_text("é".encode()) == "é"
    with pytest.raises(UnicodeDecodeError):
        decode_text(b"\xff\xfe"[:1] + b"\xe9")


MCP = {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_mcp_json_with_a_bom_is_read_and_described(tmp_path: Path, encoding: str) -> None:
    (tmp_path / ".mcp.json").write_bytes(encode(json.dumps(MCP), encoding))
    warnings: list[str] = []
    servers = read_mcp_json(tmp_path / ".mcp.json", warnings.append)
    assert list(servers) == ["time"] and warnings == []
    described = " ".join(describe(tmp_path))
    assert "uvx" in described and "not a list" not in described


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_config_yaml_with_a_bom_is_read(tmp_path: Path, encoding: str) -> None:
    (tmp_path / ".zen").mkdir()
    (tmp_path / ".zen" / "config.yaml").write_bytes(encode("max_turns: 7\n", encoding))
    assert load_config(tmp_path, env={}, trusted=True).max_turns == 7
    assert "unreadable" not in " ".join(describe(tmp_path))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_claude_settings_with_a_bom_give_their_hooks(tmp_path: Path, encoding: str) -> None:
    settings = {"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"command": "echo hi"}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_bytes(encode(json.dumps(settings), encoding))
    hooks, problems = load_hooks(None, tmp_path, trusted=True)
    assert problems == [] and [h.command for h in hooks] == ["echo hi"]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_skill_with_a_bom_keeps_its_front_matter(tmp_path: Path, encoding: str) -> None:
    folder = tmp_path / ".zen" / "skills" / "deploy"
    folder.mkdir(parents=True)
    text = "---\nname: deploy\ndescription: ship it\n---\nSteps.\n"
    (folder / "SKILL.md").write_bytes(encode(text, encoding))
    skills = [s for s in load_skills(tmp_path, trusted=True) if s.name == "deploy"]
    assert [(s.description, s.body) for s in skills] == [("ship it", "Steps.")]
