"""The Host's commands about conversations (a mixin of ``Host``, host/host.py): making one, the model's view
of one (reloaded from the history), who decides its tool calls, renaming and deleting. The Host owns
the state they use, declared below."""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgehost.agent.approval import ApprovalPolicy
from edgehost.agent.loop import Conversation, TurnRunner
from edgehost.agent.routing import resolve_routing
from edgehost.errors import EdgeHostError
from edgehost.host import events as ev
from edgehost.llm.base import Backend, ChatMessage
from edgehost.settings import Settings
from edgehost.store import Store

__all__ = ["ConversationCommands", "conversation_title"]


class ConversationCommands:
    """The conversations' side of the Host's command surface; ``Host`` inherits it."""

    # The Host's, set in Host.__init__ and Host.start().
    settings: Settings
    backend: Backend | None
    model_status: ev.ModelStatusChanged
    policy: ApprovalPolicy
    _db: Store | None
    _conversations: dict[int, Conversation]
    _turn_conversation: int | None

    if TYPE_CHECKING:

        def emit(self, event: ev.HostEvent) -> None: ...
        def _runner(self, backend: Backend) -> TurnRunner: ...

    def _store(self) -> Store:
        if self._db is None:
            raise RuntimeError("Host.start() has not run")
        return self._db

    def new_conversation(self, question: str = "") -> int:
        """A new conversation, titled after its first question (the faces name none of their own)."""
        conv_id = self._store().create_conversation(conversation_title(question))
        self._conversations[conv_id] = Conversation(conv_id)
        self.emit(ev.ConversationsChanged())
        return conv_id

    def conversation(self, conv_id: int) -> Conversation:
        """The model's view of a conversation, reloaded from the history when not in memory."""
        if conv_id not in self._conversations:
            # Without the messages a regenerate replaced (list_messages leaves them out).
            store = self._store()
            messages = [
                ChatMessage(m.role, m.content, m.name, m.tool_call_id) for m in store.list_messages(conv_id)
            ]
            record = store.get_conversation(conv_id)
            self._conversations[conv_id] = Conversation(
                conv_id, messages, routing=record.routing if record is not None else None
            )
        return self._conversations[conv_id]

    def routing(self, conv_id: int | None = None) -> tuple[str, str]:
        """(chosen, effective) for a conversation, or for a new one when ``conv_id`` is None: chosen is
        auto | host | model (the conversation's choice, else the setting); effective is host | model,
        by the rule of decision 11 for the loaded model (`model` while none is loaded)."""
        chosen = (
            self.conversation(conv_id).routing if conv_id is not None else None
        ) or self.settings.routing
        return chosen, self.effective_routing(chosen)

    def effective_routing(self, chosen: str) -> str:
        """`host` or `model` for a routing choice (auto | host | model) with the loaded model.
        Raises ValueError for an unknown choice."""
        if self.backend is None or self.model_status.status != "ready":
            return resolve_routing(chosen, None)
        return self._runner(self.backend).routing_for(Conversation(-1, routing=chosen))

    def set_routing(self, conv_id: int, routing: str | None) -> None:
        """Who decides this conversation's tool calls from its next turn on: auto | host | model, or
        None for the setting. Raises ValueError for another value and RecordNotFoundError for an
        unknown conversation."""
        if routing is not None:
            resolve_routing(routing, None)  # raises ValueError for an unknown mode
        self._store().set_conversation_routing(conv_id, routing)
        self.conversation(conv_id).routing = routing
        self.emit(ev.ConversationsChanged())

    def forget_conversation(self, conv_id: int) -> None:
        self._conversations.pop(conv_id, None)
        self.policy.forget_conversation(conv_id)

    def rename_conversation(self, conv_id: int, title: str) -> None:
        """Set a conversation's title (trimmed). Raises ValueError for a blank title and
        RecordNotFoundError for an unknown conversation."""
        if not title.strip():
            raise ValueError("a conversation's title cannot be blank")
        self._store().rename_conversation(conv_id, title.strip())
        self.emit(ev.ConversationsChanged())

    def delete_conversation(self, conv_id: int) -> None:
        """Delete a conversation with its messages, tool executions and conversation-scoped rules.

        Raises EdgeHostError while a turn runs in it (cancel() first) and RecordNotFoundError for an
        unknown conversation.
        """
        if self._turn_conversation == conv_id:
            raise EdgeHostError("a turn is running in this conversation; stop it first")
        self._store().delete_conversation(conv_id)
        self.forget_conversation(conv_id)
        self.emit(ev.ConversationsChanged())


def conversation_title(text: str) -> str:
    """A conversation's title: the first line of its first question, at most 60 characters."""
    line = text.strip().splitlines()[0] if text.strip() else "New conversation"
    return line[:60] + ("…" if len(line) > 60 else "")
