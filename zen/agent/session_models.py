"""The session's model roles at run time: each role's client and window, and what it cost
(which endpoint, key and model a role uses is resolved by `zen/settings/model_roles.py`).

`main` is the top level; `orchestrator`, `coder` and `scout` follow it unless `dual_agent`
gives them a model of their own. Clients and windows are cached by their settings, so a
switched model gets its own and a role that shares another's settings shares its
connections. What each endpoint serves is learned once, at its first request, and shared
(`served`): a role's settings follow it (the one served model for a placeholder).
Every agent's `Usage` events are tallied here by role, which is how interrupted runs count
too, and the current task's cost is checked against its budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable

from zen.agent.context import WindowResolver
from zen.base import events as ev
from zen.llm.client import ChatClient
from zen.llm.deadlines import Deadlines
from zen.llm.pricing import price_for
from zen.llm.served import applied
from zen.llm.served_book import ServedBook
from zen.llm.types import ChatModel, TokenUsage
from zen.settings.model_roles import resolve_model
from zen.settings.schema import DUAL_ROLES, Config, ConfigError, ModelSettings

Connect = Callable[[ModelSettings], ChatModel]
"""How a role's settings become the model it streams from: a `ChatClient` (the default), or a
scripted model in a unit test (`tests/fakes/scripted.py`)."""


class SessionModels:
    def __init__(self, config: Config, connect: Connect | None = None) -> None:
        self.config = config
        """The configuration, with the models switched to in this session."""
        self.usage: dict[str, TokenUsage] = defaultdict(TokenUsage)
        """Tokens and cost by role (sub-agents together) since the session began."""
        self.run_usage: dict[str, TokenUsage] = defaultdict(TokenUsage)
        """Tokens and cost by role of the current (or last) task alone (`zen -p`'s result)."""
        self.run_cost: float | None = 0.0
        """USD the current (or last) task cost; None when a price was unknown."""
        self.stop_run: Callable[[str], None] | None = None
        """Stops the current task (with "budget") once it cost more than `max_budget_usd`."""
        self._connect = connect
        self._clients: dict[str, ChatModel] = {}
        self._windows: dict[str, WindowResolver] = {}
        self.served = ServedBook()
        """What each endpoint serves, asked at its first request."""

    def start_run(self) -> None:
        """A task begins: its usage and cost count from zero (the session's go on)."""
        self.run_usage = defaultdict(TokenUsage)
        self.run_cost = 0.0

    def configured(self, role: str) -> ModelSettings:
        """`role`'s settings as the configuration gives them."""
        return resolve_model(self.config, role if role in DUAL_ROLES else None)

    def settings(self, role: str) -> ModelSettings:
        """`role`'s settings as its requests use them: adapted to what its server serves,
        once that is known."""
        settings = self.configured(role)
        return applied(settings, self.served.known(settings), self.config.model_profiles)

    async def learn(self, roles: tuple[str, ...]) -> bool:
        """Ask the endpoints of `roles` what they serve before their agents are built, where
        the model's profile may choose the tool protocol (nobody set one, or `auto`); True
        when something new was learned. Scripted models (`connect`) are never asked."""
        if self._connect is not None:
            return False
        learned = False
        for role in roles:
            try:
                settings = self.configured(role)
            except ConfigError:  # a role without a key: said when it runs
                continue
            if settings.tool_protocol in (None, "auto") and self.served.known(settings) is None:
                learned = await self.served.get(settings) is not None or learned
        return learned

    def one_model(self) -> bool:
        """Every role (the top level, the Orchestrator, the Coder and the scouts) talks to the
        same model at the same endpoint: delegating then buys no cheaper tokens, so dual
        mode's triage may start a task direct (`agent/triage.py`)."""
        try:
            found = {(s.model, s.base_url) for s in map(self.configured, ("main", *DUAL_ROLES))}
        except ConfigError:  # a role without a key: it is said when that role runs
            return False
        return len(found) == 1

    def client(self, role: str) -> ChatModel:
        settings = self.configured(role)
        key = settings.model_dump_json()
        if key in self._clients:
            return self._clients[key]
        if self._connect is not None:
            self._clients[key] = self._connect(settings)
        else:
            c = self.config
            self._clients[key] = ChatClient(
                settings,
                retries=c.retries,
                deadlines=Deadlines(
                    c.connect_timeout, c.first_byte_timeout, c.idle_timeout, c.timeout
                ),
                price=price_for(settings.model, settings.base_url, c.pricing),
                repeat_limit=c.repeat_limit,
                book=self.served,
                profiles=c.model_profiles,
            )
        return self._clients[key]

    def window(self, role: str) -> WindowResolver:
        """The context window of `role`'s model, asked of its server at most once."""
        settings = self.configured(role)
        key = settings.model_dump_json()
        if key not in self._windows:
            self._windows[key] = WindowResolver(settings, self._server_window(settings))
        return self._windows[key]

    def _server_window(self, settings: ModelSettings) -> Callable[[], Awaitable[int | None]]:
        async def ask() -> int | None:
            served = await self.served.get(settings)
            return served.context_window if served is not None else None

        return ask

    def set_model(self, model: str | None, role: str) -> None:
        """Switch `role`'s model: `main` is the top level, which every dual role without a
        model of its own follows; `orchestrator`, `coder` and `scout` get their own
        `dual_agent` model."""
        if role == "main":
            self.config = self.config.model_copy(update={"model": model})
        else:
            dual = self.config.dual_agent
            over = getattr(dual, role).model_copy(update={"model": model})
            self.config = self.config.model_copy(
                update={"dual_agent": dual.model_copy(update={role: over})}
            )

    def names(self, roles: tuple[str, ...] = ("main",)) -> dict[str, str | None]:
        """`model` as configured (None: the provider's default; what a resumed session
        restores), then the model each of `roles` talks to (what `zen sessions show` says)."""
        found: dict[str, str | None] = {"model": self.config.model}
        for role in roles:
            try:
                found[role] = self.settings(role).model
            except ConfigError:  # a role without a key: said when it runs, not here
                found[role] = None
        return found

    @property
    def cost_usd(self) -> float | None:
        """The session's cost so far; None when some request's price is unknown."""
        total: float | None = 0.0
        for u in self.usage.values():
            total = None if total is None or u.cost_usd is None else total + u.cost_usd
        return total

    def counting(self, emit: ev.Emit) -> ev.Emit:
        """Tally every agent's `Usage` events by role, so interrupted runs count too."""

        def counted(event: ev.Event) -> None:
            if isinstance(event, ev.Usage):
                role = "sub-agents" if event.agent.startswith("sub:") else event.agent
                used = TokenUsage(
                    event.prompt_tokens,
                    event.completion_tokens,
                    event.cached_tokens,
                    1,
                    event.estimated,
                    event.cost_usd,
                )
                self.usage[role].add(used)
                self.run_usage[role].add(used)
                emit(event)
                self._charge(event, emit)
                return
            emit(event)

        return counted

    def _charge(self, usage: ev.Usage, emit: ev.Emit) -> None:
        """Add a request's cost to the task's; stop the task once it passes the budget."""
        known = self.run_cost is not None
        if self.run_cost is not None:
            self.run_cost = None if usage.cost_usd is None else self.run_cost + usage.cost_usd
        budget = self.config.max_budget_usd
        if budget is None or self.stop_run is None:
            return
        if self.run_cost is None:
            if known:
                emit(
                    ev.Notice(
                        agent=usage.agent,
                        text="max_budget_usd is not enforced: the price of this "
                        "model is unknown (add it under `pricing:`)",
                        level="warning",
                    )
                )
            return
        if self.run_cost > budget:
            self.stop_run("budget")

    async def aclose(self) -> None:
        """Close the model clients' HTTP connections."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
