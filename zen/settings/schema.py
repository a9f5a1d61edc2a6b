"""The configuration's schema: the pydantic models the merged layers are validated against.

Field checks fail closed (a misspelt `permissions` tool or an unknown provider is an error with a
did-you-mean, not a silent default); `ConfigError` is the one-line message the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from zen.settings.permissions import CommandRule, PermissionKey, PermissionLevel
from zen.settings.permissions import Level as Level
from zen.settings.profiles import Profile
from zen.settings.providers import PROVIDERS
from zen.settings.sandbox_options import SandboxMode, SandboxOptions

AgentMode = Literal["single", "dual"]
Collaboration = Literal["delegated", "autonomous", "controlled"]
Triage = Literal["auto", "question", "small", "direct", "large"]
OnOff = Literal["on", "off"]
ToolProtocol = Literal["native", "text", "auto"]
"""How a model acts: tool calls (native), edit blocks in its text (text), or native until it
shows it cannot call tools (auto)."""


class ConfigError(Exception):
    """One clear line for the user; the CLI prints it and exits 2."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Endpoint(_Strict):
    """Checks shared by the top level and the per-role overrides."""

    @field_validator("provider", "base_url", "api_key", mode="before", check_fields=False)
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """`api_key: ${KEY:-}` with KEY unset means "not given", not an empty key."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("provider", check_fields=False)
    @classmethod
    def _known_provider(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = value.strip().lower()
        if name not in PROVIDERS:
            raise ValueError(f"unknown provider {value!r}; known: {', '.join(PROVIDERS)}")
        return name

    @field_validator("base_url", check_fields=False)
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} should start with http:// or https://")
        return value


class ModelOverride(_Endpoint):
    """Per-role overrides for dual mode: any field left out comes from the top level."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, ge=0)
    stream_tools: bool | None = None
    context_window: int | None = Field(default=None, ge=1000)
    tool_protocol: ToolProtocol | None = None


class ModelPrice(_Strict):
    """USD per million tokens (`pricing:` in the config, by model name)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    """None: the same as `input` (no cache discount)."""


class DualAgent(_Strict):
    orchestrator: ModelOverride = Field(default_factory=ModelOverride)
    coder: ModelOverride = Field(default_factory=ModelOverride)
    scout: ModelOverride = Field(default_factory=ModelOverride)
    """Explore and plan sub-agents: the role that reads, so the cheapest model that reads well."""


DUAL_ROLES: tuple[str, ...] = tuple(DualAgent.model_fields)
"""Model roles whose model `dual_agent` can override: its fields, so a new one is declared
once (a `Role` in zen/agent/roles.py names the model role it runs on)."""


class Features(_Strict):
    git: Literal["auto", "on", "off"] = "auto"
    mcp: OnOff = "on"
    planning_layer: OnOff = "on"
    parallel_agents: OnOff = "on"
    todo: OnOff = "on"

    @field_validator("*", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        """`todo: false` means what it says."""
        return ("on" if value else "off") if isinstance(value, bool) else value


class Checkpoints(_Strict):
    """Snapshots of the workspace before and after turns that may change files."""

    enabled: OnOff = "on"
    max_file_size: int = Field(default=2_000_000, gt=0)
    """Bytes; bigger files are left out of snapshots."""
    keep_days: float = Field(default=7, gt=0)
    max_mb: float = Field(default=500, gt=0)
    """Per workspace; the oldest checkpoints go first."""

    @field_validator("enabled", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value


class MemoSettings(_Strict):
    persist: OnOff = "on"
    """Keep `file:*` memo entries for the workspace's next sessions."""

    @field_validator("persist", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value


class McpServer(_Strict):
    """A stdio server (`command`) or a streamable-HTTP one (`url`)."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=120.0, gt=0)
    """Seconds one tool call may take before it ends as an error."""
    start_timeout: float = Field(default=30.0, gt=0)
    """Seconds to start, handshake and list the tools."""
    auto_approve: list[str] = Field(default_factory=list)
    """Tools (the server's names) that run without asking unless `permissions` say otherwise."""


class ModelSettings(_Strict):
    """Everything the LLM client needs for one role, fully resolved."""

    provider: str = "openai"
    model: str
    base_url: str
    api_key: str | None = None
    """None only for local endpoints, which need no key."""
    temperature: float | None = None
    max_tokens: int | None = None
    """None: the default cap for a local server (`llm/request.output_cap`); 0: none sent."""
    default_model: bool = False
    """The model is the provider preset's default (none was configured): front-ends say so."""
    stream_tools: bool | None = None
    """False: requests carrying tools go out unstreamed, with `tool_choice: auto`; None:
    streamed, unless the endpoint lookup finds llama-cpp-python (`zen/llm/served.applied`)."""
    context_window: int | None = None
    """Tokens the model holds, when the configuration says; else the preset's or the server's."""
    tool_protocol: ToolProtocol | None = None
    """None: nobody set it; the model's profile decides, else native (`protocol`)."""
    profile: str = ""
    """The model profile in use (`zen/settings/profiles.py`), for doctor and `zen config`."""
    key_source: str = ""
    """Where the key came from (`environment DEEPSEEK_API_KEY`, `--api-key`, a file), for
    `/model` and `zen config`; never the key itself."""
    model_source: str = ""
    """Where the model came from (a flag, a variable, a file and key, a preset's default)."""
    url_source: str = ""
    """Where the base URL came from, the same way."""

    @property
    def protocol(self) -> ToolProtocol:
        """The tool protocol in force: the set or profiled one, else native."""
        return self.tool_protocol or "native"


@dataclass(frozen=True)
class Redirect:
    """A role whose host the project layer changed (see `allowed_key`)."""

    source: str
    """The project file that changed it."""
    key: str | None
    """The key that same file names for it (or --api-key): the only one that may go there."""
    key_source: str = ""


class Config(_Endpoint):
    provider: str | None = None
    model: str | None = Field(default=None, min_length=1)
    """None: the provider preset's default model."""
    api_key: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    """Sent only when set: some providers reject any but their fixed value."""
    max_tokens: int | None = Field(default=None, ge=0)
    stream_tools: bool | None = None
    """None: what the server is decides (false for llama-cpp-python, found by the lookup)."""
    context_window: int | None = Field(default=None, ge=1000)
    """Tokens the model holds; None: from the provider table or the server."""
    tool_protocol: ToolProtocol | None = None
    """text: no tools on the wire, the model answers with edit blocks (small local models);
    None: the model's profile decides, else native."""
    model_profiles: list[Profile] = Field(default_factory=list)
    """The user's model profiles, before zen's (`config/profiles.yaml`)."""
    compact_at: float = Field(default=0.8, gt=0.1, le=1.0)
    """Share of the context window at which the conversation is compacted."""
    agent_mode: AgentMode = "single"
    collaboration: Collaboration = "delegated"
    work_mode: str | None = None
    triage: Triage = "auto"
    """Dual mode: how much orchestration a task gets; auto: zen's rule decides per task."""
    """bug-fix, develop, explain (read-only), optimize, or a mode in ~/.zen/modes/."""
    dual_agent: DualAgent = Field(default_factory=DualAgent)
    features: Features = Field(default_factory=Features)
    checkpoints: Checkpoints = Field(default_factory=Checkpoints)
    memo: MemoSettings = Field(default_factory=MemoSettings)
    permissions: dict[PermissionKey, PermissionLevel] = Field(default_factory=dict)
    allow_commands: list[CommandRule] = Field(default_factory=list)
    """bash commands that run without asking, by their first words (`command_rules.py`)."""
    sandbox: SandboxMode = "auto"
    sandbox_options: SandboxOptions = Field(default_factory=SandboxOptions)
    mcp_servers: dict[str, McpServer] = Field(default_factory=dict)
    prompts: list[str] = Field(default_factory=list)
    hooks: dict[str, Any] = Field(default_factory=dict)
    """Claude Code's hooks format; checked by zen/tools/hooks.py, never variable-expanded."""
    bash_inherits_keys: bool = False
    """Let bash (and `!cmd`) see zen's API key variables (ZEN_API_KEY, the providers' own,
    any variable holding a key zen uses); off: they are removed from its environment."""
    test_cmd: str | None = None
    """The project's tests, run through bash after each reply that changed files."""
    test_timeout: int = Field(default=120, gt=0, le=600)
    nudge_unchanged: bool = True
    """A task that asked for a change and changed nothing is told once before it ends."""
    max_tool_output: int = Field(default=30_000, gt=200)
    max_edit_bytes: int = Field(default=10_000_000, gt=0)
    max_turns: int = Field(default=100, gt=0)
    coder_max_turns: int = Field(default=50, gt=0)
    repeat_limit: int = Field(default=10, ge=0)
    """An answer whose end repeats one piece this many times is stopped; 0: off."""
    loop_limit: int = Field(default=3, ge=0)
    """The same call with the same arguments this many times in a row is refused; 0: off."""
    parallel_agents_max: int = Field(default=4, gt=0)
    allowed_roots: list[str] = Field(default_factory=list)
    """Folders outside the workspace that file tools may also touch."""
    retries: int = Field(default=4, ge=0)
    """How often a failed model request is retried (429, 5xx, dropped connections)."""
    connect_timeout: float = Field(default=10.0, gt=0)
    first_byte_timeout: float = Field(default=300.0, gt=0)
    """From sending a request to the first byte of its answer (reasoning models think first)."""
    idle_timeout: float = Field(default=120.0, gt=0)
    """The longest silence inside a streaming answer."""
    timeout: float = Field(default=900.0, gt=0)
    """One model request in all, however it trickles (caps the two above)."""
    max_time: float | None = Field(default=None, gt=0)
    """One task (a `-p` run, a shell message) in all; None: no limit."""
    pricing: dict[str, ModelPrice] = Field(default_factory=dict)
    """USD per million tokens by model name; adds to and overrides the provider table."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    """Stop a task once it has cost more than this (when its price is known)."""

    _mcp_skipped: dict[str, str] = PrivateAttr(default_factory=dict)
    """MCP servers left out because a variable they use is unset: name -> why."""
    _env: dict[str, str] = PrivateAttr(default_factory=dict)
    """The provider key variables (and OPENAI_BASE_URL) seen by `load_config`, for
    `resolve_model`. Empty for a Config built in code, so its resolution never depends on
    the process environment."""
    _project_trusted: bool = PrivateAttr(default=False)
    _prompts_confined: bool = PrivateAttr(default=True)
    _redirected: dict[str, Redirect] = PrivateAttr(default_factory=dict)
    _sources: dict[tuple[str, ...], str] = PrivateAttr(default_factory=dict)
    """Where each api_key, model, base_url and provider came from (`("model",)` or
    `("dual_agent", role, "model")` -> `environment ZEN_MODEL`), for `zen config`."""
    _network_by_project: bool = PrivateAttr(default=False)
    _refused: list[str] = PrivateAttr(default_factory=list)
    """The project's settings only the user may set (`user_only.py`), ignored."""

    def known_keys(self) -> list[str]:
        """Every API key this config can see (its own and the environment's), for
        `zen.base.redaction.remember`: a key is a secret whether or not this run sends it."""
        roles = [getattr(self.dual_agent, role).api_key for role in DUAL_ROLES]
        env = [value for name, value in self._env.items() if name.endswith("_API_KEY")]
        return [key for key in (self.api_key, *roles, *env) if key]

    @field_validator("permissions")
    @classmethod
    def _sandboxed_is_bash(cls, value: dict[str, str]) -> dict[str, str]:
        for key, level in value.items():
            if level == "sandboxed" and key != "bash":
                raise ValueError(f"{key}: only bash can be `sandboxed`")
        return value

    @property
    def project_trusted(self) -> bool:
        """The workspace's own inputs (this project layer, `.mcp.json`) may be used."""
        return self._project_trusted

    @property
    def prompts_confined(self) -> bool:
        """`prompts` files must lie in the workspace or allowed roots (unless the user's own
        config listed them)."""
        return self._prompts_confined
