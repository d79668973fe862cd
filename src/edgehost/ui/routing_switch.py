"""Who decides a conversation's tool calls (decision 11): a small switch in the chat's header."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QWidget

from edgehost.settings import ROUTING_LABELS

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["RoutingSwitch"]

# (routing, label): the order of the items.
CHOICES = tuple(ROUTING_LABELS.items())
_EFFECTIVE = {
    "host": "EdgeHost decides whether a question needs a tool and which one; the model fills in the arguments.",
    "model": "The model decides by itself whether and which tool to call.",
}


class RoutingSwitch(QComboBox):
    """Shows and sets the routing of the conversation on screen. For a conversation that does not
    exist yet the choice is kept and applied by ``apply_to`` once it is created."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RoutingSwitch")
        for routing, label in CHOICES:
            self.addItem(label, routing)
        self.host: Host | None = None
        self.conversation_id: int | None = None
        self._pending: str | None = None  # chosen before the conversation existed
        self.currentIndexChanged.connect(self._chosen)

    def show_for(self, host: Host | None, conversation_id: int | None) -> None:
        """Show the routing of ``conversation_id`` (None: a new conversation, the setting)."""
        self.host, self.conversation_id, self._pending = host, conversation_id, None
        chosen, effective = host.routing(conversation_id) if host is not None else ("auto", "model")
        self.blockSignals(True)
        self.setCurrentIndex(max(self.findData(chosen), 0))
        self.blockSignals(False)
        self._explain(chosen, effective)

    def apply_to(self, conversation_id: int) -> None:
        """The conversation was just created: give it the choice made before it existed."""
        self.conversation_id = conversation_id
        if self._pending is not None and self.host is not None:
            self.host.set_routing(conversation_id, self._pending)
            self._pending = None

    def _chosen(self, index: int) -> None:
        routing = str(self.itemData(index))
        if self.host is None:
            return
        if self.conversation_id is None:
            self._pending = routing
        else:
            self.host.set_routing(self.conversation_id, routing)
        self._explain(routing, self.host.effective_routing(routing))

    def _explain(self, chosen: str, effective: str) -> None:
        prefix = "Automatic, by the model's size: " if chosen == "auto" else ""
        self.setToolTip(prefix + _EFFECTIVE[effective])
