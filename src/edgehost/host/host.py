"""The Host: builds everything from settings and is the one object the GUI and the CLI drive.

A small command surface (start, submit, cancel, resolve_approval, set_*_enabled, ...) and typed
events out (edgehost.host.events). Turns run one at a time; a model crash or a dead server fails a
turn or a call, never the host, and never loses the conversation. The commands about the servers
(catalog, servers file, sign-in) are the ServerCommands it inherits (host/server_commands.py); those
about the model (loading, switching, the catalog, downloads) the ModelCommands (host/model_commands.py);
those about the MCP Registry (search, add a server from it) the RegistryCommands (host/registry_commands.py),
those about MCPB bundles the BundleCommands (host/bundle_commands.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from edgehost.agent.approval import (
    ApprovalDecision,
    ApprovalPolicy,
    ApprovalRequest,
    Approver,
    PendingApprovals,
    with_timeout,
)
from edgehost.agent.arguments import prepare_validators
from edgehost.agent.config import AgentConfig
from edgehost.agent.loop import Conversation, TurnRunner
from edgehost.agent.prompt_warm_up import warm_up_prompt
from edgehost.agent.selection import ToolSelector
from edgehost.host import events as ev
from edgehost.host.app_views import ViewContexts
from edgehost.host.bundle_commands import BundleCommands
from edgehost.host.conversation_commands import ConversationCommands
from edgehost.host.executor import ManagerExecutor
from edgehost.host.history_recorder import HistoryRecorder
from edgehost.host.history_view import HistoryView
from edgehost.host.known_tools import KnownTools
from edgehost.host.model_commands import ModelCommands
from edgehost.host.model_library import ModelLibrary
from edgehost.host.options import HostOptions
from edgehost.host.registry_commands import RegistryCommands
from edgehost.host.sampling import decline_without_model, sampling_handler
from edgehost.host.server_commands import ServerCommands
from edgehost.host.view_commands import ViewCommands
from edgehost.llm.base import Backend, BackendCrashed, BackendError, ChatMessage
from edgehost.mcp import manager as mcp_manager
from edgehost.mcp.auth import uses_oauth
from edgehost.mcp.client_features import ClientFeatures, decline_sampling
from edgehost.mcp.config import BUILT_INS_ONLY, ServersConfig, load_servers_config
from edgehost.mcp.errors import UnknownServer
from edgehost.mcp.manager import ServerManager
from edgehost.mcp.server_state import ServerStatus
from edgehost.paths import Paths
from edgehost.programs import use_runtimes_of
from edgehost.settings import Settings
from edgehost.store import Message, Store, redactor

log = logging.getLogger(__name__)

Listener = Callable[[ev.HostEvent], None]

CANCEL_WAIT_S = 5.0  # a cancelled turn normally ends within 200 ms; past this we stop waiting for it
# What a TurnRunner takes from the settings when it is built (AgentConfig.from_settings, the approver).
_RUNNER_SETTINGS = frozenset(
    {"max_correction_rounds", "max_calls_per_turn", "tool_budget_fraction", "approval_timeout_s", "routing"}
)
# What the model is loaded with: a change takes effect when it is loaded again (switch_model).
MODEL_SETTINGS = frozenset({"model", "backend", "profile", "context_length", "threads"})


class Host(
    ConversationCommands, ModelCommands, ServerCommands, ViewCommands, RegistryCommands, BundleCommands
):
    def __init__(
        self,
        paths: Paths,
        settings: Settings,
        options: HostOptions | None = None,
        profile_override: str | None = None,
    ) -> None:
        self.paths = paths.ensure()
        use_runtimes_of(self.paths.data_dir)  # servers find the runtimes installed into the data folder
        self.settings = settings
        self.options = options or HostOptions()
        self.profile_override = profile_override
        self._listeners: list[Listener] = []
        self._turn_lock = asyncio.Lock()
        self._turn_task: asyncio.Task[Any] | None = None
        self._turn_conversation: int | None = None
        self._turn_asked_from = ""  # where the running turn's question was asked (submit's asked_from)
        # The event goes out once the request can be answered (resolve_approval in the same tick works).
        self.approvals = PendingApprovals(on_request=lambda request: self.emit(ev.ApprovalRequested(request)))
        self._conversations: dict[int, Conversation] = {}
        self._history = HistoryRecorder(lambda: (self.model_status.model, self.model_status.backend))
        self._known_tools = KnownTools({}, self._history.remember_tools)
        self._call_numbers = itertools.count(1)  # a call id is used once in the Host's life (TurnRunner)
        self._view_contexts = ViewContexts()  # what the views of MCP Apps want the model to know
        self._model_task: asyncio.Task[Any] | None = None
        self.backend: Backend | None = self.options.backend
        self.model_status = ev.ModelStatusChanged(
            "loading", self.options.backend_name or settings.backend, ""
        )
        self.board: Any = None
        self.profile: Any = None
        self.profile_warnings: tuple[Any, ...] = ()  # boards.ProfileWarning: set by start()
        self.servers_config = ServersConfig()
        # The faces use the Host's methods and views, never these (decision 9).
        self._mcp: ServerManager | None = None
        self._db: Store | None = None
        self.history = HistoryView(self._store)
        self.policy = ApprovalPolicy()
        self.runner: TurnRunner | None = None
        # Ranking model and tool embeddings (cached on disk) outlive runners: a model switch or a
        # settings change does not load or embed again.
        self._selector = ToolSelector(
            cache_dir=self.paths.cache_dir, log_file=self.paths.log_dir / "ranker.log"
        )
        self._warm_task: asyncio.Task[Any] | None = None
        self._warm_again = False  # the catalog changed while the warm-up ran
        self._turn_ended = False
        self._closing = False
        self._models = ModelLibrary(self.paths.models_dir, self.emit, self.options.hub_endpoint)
        self._auth = self.options.auth

    # ----------------------------------------------------------------- events
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every event; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: ev.HostEvent) -> None:
        if isinstance(event, ev.ModelStatusChanged):
            self.model_status = event
        elif isinstance(event, (ev.TurnCompleted, ev.TurnFailed)):
            self._turn_ended = True
        self._history.record(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a faulty listener must not break a turn
                log.exception("event listener failed on %s", type(event).__name__)

    # -------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Open the store, start the servers (concurrently) and load the model in the background.

        A servers file that cannot be read at all leaves the built-in servers running, its error in
        ``servers_config.file_error``; a bad server entry only marks that server failed. What is wrong
        with the board profile's choice but does not stop the start (a profile the settings name that
        does not exist) is in ``profile_warnings``.
        """
        from edgehost.boards import current_choice, warn_once

        # Reading sysfs and the profiles, parsing the config and opening SQLite take a while on a board:
        # off the event loop, so a window that is already up stays responsive.
        self.board, choice = await asyncio.to_thread(
            current_choice, self.profile_override or self.settings.profile, paths=self.paths
        )
        self.profile, self.profile_warnings = choice.profile, choice.warnings
        for profile_warning in choice.warnings:
            warn_once(profile_warning.problem)
        servers = self.options.servers
        if servers is None:
            servers = await asyncio.to_thread(
                load_servers_config, self.paths, fall_back=True, environ=self.servers_environ()
            )
        if servers.file_error:
            log.warning("%s; %s", servers.file_error, BUILT_INS_ONLY)
        for warning in servers.warnings:
            log.warning("%s", warning)
        self.servers_config = servers
        secrets = self.servers_config.secret_values()
        self._db = await asyncio.to_thread(Store.open, self.paths.history_db, redact=redactor(secrets))
        self._history.attach(self._db)
        self._known_tools = KnownTools(
            await asyncio.to_thread(self._db.known_tools.load), self._history.remember_tools
        )
        # Finding the OS keyring imports its backends (11 MB) and may run `gcc` (ctypes.util.find_library):
        # 40-80 ms that stalled the window when it ran on the loop. Only a host with a server that may
        # sign in looks for it, and in a thread; the others never do (ServerCommands._http_auth).
        if any(uses_oauth(server) for server in self.servers_config.servers):
            await asyncio.to_thread(self.auth)
        self.policy = ApprovalPolicy.from_config(self.servers_config.approval, store=self._db.approval_rules)
        self._mcp = ServerManager(
            self.servers_config,
            self.settings,
            features=self._client_features(),
            on_settings_changed=lambda _settings: self.save_settings(),
            only=self.options.only_servers,
            auto_restart=self.options.auto_restart,
        )
        self._mcp.add_listener(self._on_manager_event)
        if self.options.with_servers:
            await self._mcp.start()
        if self.options.with_model:
            self._model_task = asyncio.create_task(self._load_model(), name="edgehost-model-load")

    def _client_features(self) -> ClientFeatures:
        """Elicitation as injected (GUI form; headless: the schema's defaults); sampling answered by
        our own model once the approver allows the draft."""
        features = self.options.features or ClientFeatures()
        if self.options.servers_in_process is not None:
            features = dataclasses.replace(features, in_process=self.options.servers_in_process)
        if features.http_auth is None:
            features = dataclasses.replace(
                features, http_auth=self._http_auth, signed_in_elsewhere=self._signed_in_elsewhere
            )
        if features.sampling is not decline_sampling:
            return features
        if not self.options.with_model:  # `edgehost call`, `probe`: loading a model for it took a minute
            return dataclasses.replace(features, sampling=decline_without_model)
        handler = sampling_handler(self.wait_model, self._approver, self.emit)
        return dataclasses.replace(features, sampling=handler)

    async def sample(self, server: str, params: Any) -> Any:
        """Answer a sampling request as the servers' requests are answered (our model drafts, the
        approver decides): a types.CreateMessageResult, or types.ErrorData when declined."""
        return await self._client_features().sampling(server, params)

    def _approver(self) -> Approver:
        return self.options.approver or with_timeout(self._ask_user, self.settings.approval_timeout_s)

    async def aclose(self) -> None:
        """Stop the turn, deny pending approvals, stop the servers and the model process."""
        self._closing = True
        self.approvals.shutdown()
        await self.cancel()
        await self._models.aclose()
        if self._warm_task is not None and not self._warm_task.done():
            # Its embedding thread cannot be stopped: cancelled, the task waits for it (seconds at
            # most), so nothing calls back into this event loop once it is closed.
            self._warm_task.cancel()
            with contextlib.suppress(BaseException):
                await self._warm_task
        if self._model_task is not None and not self._model_task.done():
            self._model_task.cancel()
            with contextlib.suppress(BaseException):
                await self._model_task
        await self._selector.aclose()
        if self._mcp is not None:
            await self._mcp.aclose()
        if self.backend is not None:
            with contextlib.suppress(Exception):
                await self.backend.close()
        if self._db is not None:
            self._history.close()  # what is queued is written first
            self._db.close()

    @property
    def started(self) -> bool:
        """Whether start() has opened the history and started the servers."""
        return self._db is not None and self._mcp is not None

    def save_settings(self) -> None:
        self.settings.save(self.paths.settings_file)

    def update_settings(self, values: Mapping[str, Any]) -> set[str]:
        """Set the given settings fields, save the file when one changed and return the names that did.

        What reads a setting when it is used (theme, limits) follows; a model, backend or profile
        change (MODEL_SETTINGS) takes effect through switch_model(). Raises KeyError for an unknown
        field and ValueError naming a field whose value the settings file would not take (nothing
        changes), OSError when the file cannot be written.
        """
        from edgehost._settings_file import check_setting_values

        known = {f.name for f in dataclasses.fields(self.settings)} - {"extra"}
        unknown = sorted(set(values) - known)
        if unknown:
            raise KeyError(", ".join(unknown))
        current = dataclasses.asdict(self.settings)
        current.pop("extra")
        check_setting_values(current, values)
        changed = {name for name, value in values.items() if getattr(self.settings, name) != value}
        for name in changed:
            setattr(self.settings, name, values[name])
        if changed:
            self.save_settings()
        if changed & _RUNNER_SETTINGS:
            self.runner = None  # the next turn builds its runner with the new limits
        return changed

    # ------------------------------------------------------------------ tools
    def _on_manager_event(self, event: mcp_manager.ManagerEvent) -> None:
        if isinstance(event, mcp_manager.ServerStatusChanged):
            try:
                tools = self._manager().status(event.name).tools
            except UnknownServer:  # removed from the file: its last event, once the manager forgot it
                tools = 0
            self.emit(ev.ServerStatusChanged(event.name, event.status.value, event.error, tools))
        elif isinstance(event, mcp_manager.ServerOutputChanged):
            self.emit(ev.ServerOutputChanged(event.name))
        elif isinstance(event, mcp_manager.CatalogChanged):
            self.emit(ev.CatalogChanged())
            self._known_tools.update(self.tools())
            self._warm_tools()

    def _warm_tools(self) -> None:
        """Prepare for the enabled tools in the background: check their argument schemas (the first call
        of a tool would otherwise wait ~3 ms for it) and, where the host routes, load the ranker and
        embed new tools (from the disk cache when it has them), so the first turn that routes does not
        wait for it. Otherwise ranking is needed only when the tools outgrow the prompt's budget, and
        loads on that turn."""
        if self._closing or self._mcp is None:
            return
        if self._warm_task is not None and not self._warm_task.done():
            # The running warm-up took the tools of its moment: it goes round again for the rest (a
            # server that became ready meanwhile would otherwise wait for the next catalog change).
            self._warm_again = True
            return
        if any(t.enabled for t in self.model_tools()):
            self._warm_task = asyncio.create_task(self._prepare_tools(), name="edgehost-tools-warm")

    async def wait_warm(self) -> None:
        """Until the start-up work begun so far is done: the tools' validators and embeddings, and the
        new conversation's prompt prefilled (call it after wait_model and wait_servers_ready)."""
        task = self._warm_task
        if task is not None and not task.done():
            await asyncio.shield(task)

    async def _prepare_tools(self) -> None:
        while True:
            # The tools of this moment, read once the task runs: a server that became ready between the
            # task's creation and its start is in them (taken at creation, they missed it).
            self._warm_again = False
            tools = [t for t in self.model_tools() if t.enabled]
            await prepare_validators([t.input_schema for t in tools])  # cached per schema
            if self.effective_routing(self.settings.routing) == "host":
                await self._selector.prepare(tools)  # embeds only the tools it has not seen
            if not self._warm_again or self._closing:
                break
        await self._warm_prompt()

    async def _warm_prompt(self) -> None:
        """Prefill the system prompt a new conversation starts with (agent/prompt_warm_up.py), once every
        server has settled (a catalog change warms again) and while no turn runs (a turn prefills what
        it needs itself)."""
        backend = self.backend
        if not self.options.warm_prompt or backend is None or self.model_status.status != "ready":
            return
        if self._closing or self._turn_lock.locked():
            return
        if not backend.capabilities.reuses_prompt_prefix or any(
            s.status is ServerStatus.STARTING for s in self.server_states()
        ):
            return
        config = self._runner(backend).config
        async with self._turn_lock:
            try:
                perf = await warm_up_prompt(
                    backend,
                    self._selector,
                    self.model_tools(),
                    tool_budget_fraction=config.tool_budget_fraction,
                    extra_instructions=config.extra_instructions,
                    server_instructions=self.server_instructions(),
                )
            except BackendError as exc:  # the next turn meets it and says so
                log.info("the prompt was not prefilled ahead of the first question: %s", exc)
                return
        if perf is not None:
            log.info(
                "prefilled the prompt of a new conversation: %d tokens in %.1f s (%d already cached)",
                perf.prompt_tokens,
                perf.prefill_ms / 1000,
                perf.cached_tokens,
            )

    # ------------------------------------------------------------------ turns
    async def submit(
        self,
        text: str,
        conversation_id: int | None = None,
        *,
        pinned_tool: str | None = None,
        attachments: Sequence[str] = (),
        asked_from: str = "",
    ) -> ev.TurnCompleted | None:
        """Run one turn; return its TurnCompleted, or None when it failed (TurnFailed was emitted)
        or was cancelled. Turns are serialised; cancel() ends the running one. ``asked_from``: where
        the question was asked, for the approvals of its calls ("the web page (192.168.1.20)")."""
        async with self._turn_lock:
            conv_id = conversation_id if conversation_id is not None else self.new_conversation(text)
            self._turn_asked_from = asked_from
            attachments = [*self._view_contexts.take(conv_id), *attachments]  # a view's latest context
            try:
                return await self._run_turn(conv_id, text, pinned_tool=pinned_tool, attachments=attachments)
            finally:
                self._turn_asked_from = ""

    async def regenerate(self, conversation_id: int) -> ev.TurnCompleted | None:
        """Answer the conversation's last question again, in place of the previous answer.

        The model stops seeing the previous answer and its tool calls and results, now and after the
        conversation is reloaded from the history: the history marks the question, that answer and its
        tool messages superseded (kept, with the executions, as what happened) and records the question
        asked again with its new answer. Returns like submit(). Raises LookupError when the
        conversation has no question yet, RecordNotFoundError (from the store) for an unknown one.
        """
        async with self._turn_lock:
            conversation = self.conversation(conversation_id)
            index = last_question_index(conversation.messages)
            if index is None:
                raise LookupError(f"conversation {conversation_id} has no question to answer again")
            question = conversation.messages[index].content
            store = self._store()
            stored = store.list_messages(conversation_id)
            stored_index = last_question_index(stored)
            if stored_index is not None:
                store.supersede_messages(conversation_id, stored[stored_index].id)
            del conversation.messages[index:]
            return await self._run_turn(conversation_id, question)

    def start_regenerate(self, conversation_id: int) -> asyncio.Task[Any]:
        """regenerate() as a task (the GUI's Regenerate): events report progress, cancel() stops it."""
        return asyncio.create_task(self.regenerate(conversation_id), name="edgehost-turn")

    async def _run_turn(
        self, conv_id: int, text: str, *, pinned_tool: str | None = None, attachments: Sequence[str] = ()
    ) -> ev.TurnCompleted | None:
        """One turn under the turn lock (held by the caller)."""
        conversation = self.conversation(conv_id)
        self._turn_task = asyncio.current_task()
        self._turn_conversation = conv_id
        self._turn_ended = False  # every turn ends in exactly one TurnCompleted or TurnFailed
        try:
            backend = await self.wait_model()
            return await self._runner(backend).run(
                conversation,
                text,
                [*self.model_tools(), *self.switched_off_tools()],
                server_instructions=self.server_instructions(),
                pinned_tool=pinned_tool,
                attachments=attachments,
            )
        except asyncio.CancelledError:
            if not self._turn_ended:  # stopped before the model began (waiting for it to load)
                self.emit(ev.TurnCompleted(conv_id, "", cancelled=True))
            return None
        except BackendError as exc:
            if not self._turn_ended:
                self.emit(ev.TurnFailed(conv_id, str(exc)))
            if isinstance(exc, BackendCrashed):
                name = self.backend.capabilities.backend if self.backend else ""
                self.emit(ev.ModelStatusChanged("crashed", name, "", str(exc)))
                self.emit(
                    ev.ModelStatusChanged("ready", name, self.model_status.model, "restarts on the next turn")
                )
            return None
        except Exception as exc:  # a fault of ours: the window must not wait for this turn forever
            log.exception("the turn in conversation %s failed", conv_id)
            if not self._turn_ended:
                self.emit(ev.TurnFailed(conv_id, f"EdgeHost failed on this turn: {exc} (see edgehost.log)"))
            return None
        finally:
            self._turn_task = None
            self._turn_conversation = None
            self._history.finish_partial(conv_id)

    @property
    def running_turn(self) -> int | None:
        """The conversation whose turn is running, or None."""
        task = self._turn_task
        return self._turn_conversation if task is not None and not task.done() else None

    def start_turn(self, text: str, conversation_id: int | None = None, **kwargs: Any) -> asyncio.Task[Any]:
        """submit() as a task (the GUI's way): events report progress, cancel() stops it."""
        return asyncio.create_task(self.submit(text, conversation_id, **kwargs), name="edgehost-turn")

    def anticipate(self, draft: str) -> None:
        """The next question as it is being typed (the window's composer): its embedding for tool ranking
        is made ahead, off the loop (ToolSelector.anticipate). Cheap to call on every pause in typing."""
        self._selector.anticipate(draft)

    async def cancel(self) -> None:
        """Stop the running turn: generation and tool calls in flight; what was produced is kept."""
        task = self._turn_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
            await asyncio.wait({task}, timeout=CANCEL_WAIT_S)  # ended, or left to end on its own

    def _runner(self, backend: Backend) -> TurnRunner:
        if self.runner is None or self.runner.backend is not backend:
            grammar = None
            if backend.capabilities.supports_grammar:
                from edgehost.agent.grammar import tool_call_grammar

                grammar = tool_call_grammar
            self.runner = TurnRunner(
                backend,
                ManagerExecutor(self._manager()),
                self._approver(),
                self.policy,
                self.emit,
                self.options.agent or AgentConfig.from_settings(self.settings),
                grammar_builder=grammar,
                selector=self._selector,
                call_numbers=self._call_numbers,
            )
        return self.runner

    # -------------------------------------------------------------- approvals
    async def _ask_user(self, request: ApprovalRequest) -> ApprovalDecision:
        """The GUI's approver: the ApprovalRequested event is out; resolve_approval answers."""
        if self._turn_asked_from and request.conversation_id == self.running_turn and not request.asked_from:
            request = dataclasses.replace(request, asked_from=self._turn_asked_from)
        return await self.approvals.approver(request)

    def resolve_approval(self, request_id: str, decision: ApprovalDecision) -> bool:
        """Answer a pending approval; False when it is no longer pending (timed out, cancelled)."""
        return self.approvals.resolve(request_id, decision)


def last_question_index(messages: Sequence[ChatMessage | Message]) -> int | None:
    """Where the user's last question is in a conversation, or None when there is none."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return None
