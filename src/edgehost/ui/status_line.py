"""The main window's status bar: the model and where it runs, the last reply's speed, how much of the
context the conversation fills, and the servers' count (a button to their panel)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QToolButton

from edgehost.settings import BACKEND_LABELS
from edgehost.ui._widgets import BackendChoice
from edgehost.ui.theme import current_colors

if TYPE_CHECKING:
    from edgehost.host import events as ev

__all__ = ["StatusLine"]

# How the status bar names each backend's runtime.
_RUNTIMES = {**BACKEND_LABELS, "openai": "network server", "scripted": "scripted"}


class StatusLine:
    """The widgets of ``bar`` and what they show; the window tells it what changed."""

    def __init__(
        self,
        bar: QStatusBar,
        backend: str,
        on_backend: Callable[[str], None],
        on_servers: Callable[[], object],
    ) -> None:
        bar.setSizeGripEnabled(False)
        self.model_label = QLabel("● Loading model…")
        self.backend_label = QLabel("Backend")
        self.backend_switch = BackendChoice(backend)
        self.backend_switch.setToolTip("Where the model runs (choosing another loads it again)")
        self.backend_switch.setAccessibleName("Backend: where the model runs")
        self.backend_label.setBuddy(self.backend_switch)
        self.backend_label.setToolTip(self.backend_switch.toolTip())
        self.backend_switch.chosen.connect(on_backend)
        self.speed_label = QLabel("")
        self.context_meter = QProgressBar()
        self.context_meter.setObjectName("ContextMeter")
        self.context_meter.setTextVisible(False)
        self.context_label = QLabel()
        self.servers_button = QToolButton()
        self.servers_button.setText("servers …")
        self.servers_button.clicked.connect(on_servers)
        self.show_context(0, 0)
        bar.addWidget(self.model_label)
        bar.addWidget(self.backend_label)
        bar.addWidget(self.backend_switch)
        bar.addPermanentWidget(self.speed_label)
        bar.addPermanentWidget(self.context_label)
        bar.addPermanentWidget(self.context_meter)
        bar.addPermanentWidget(self.servers_button)

    def show_speed(self, tokens_per_second: float) -> None:
        """The last reply's speed; none (0) while a reply is being written or for a new conversation."""
        self.speed_label.setText(f"{tokens_per_second:.1f} tok/s" if tokens_per_second else "")

    def show_context(self, used: int, maximum: int) -> None:
        """How much of the model's context (``maximum`` tokens; 0 while no model is loaded) is used."""
        if not maximum:
            self.context_meter.setRange(0, 1)
            self.context_meter.setValue(0)
            self.context_label.setText("context —")
            return
        self.context_meter.setRange(0, maximum)
        self.context_meter.setValue(min(used, maximum))
        self.context_label.setText(f"context {_k(used)} / {_k(maximum)}")
        # The size the model was loaded with, which `edgehost models` does not list (it gives the file's).
        tip = (
            f"{used} of {maximum} tokens of context used: the size the model was loaded with, chosen by "
            "the board profile or the context length in Settings (the model itself may allow more)"
        )
        self.context_meter.setToolTip(tip)
        self.context_label.setToolTip(tip)

    def show_model(self, event: ev.ModelStatusChanged) -> None:
        colors = current_colors()
        runtime = _RUNTIMES.get(event.backend, event.backend)
        if event.status == "ready":
            text, color = f"● {event.model or 'Model'} · ready · {runtime}", colors.ok
            if event.detail:  # another backend crashed while loading: this one stands in
                text, color = f"{text} (the first choice crashed: hover for why)", colors.warn
        elif event.status == "loading":
            text, color = f"◌ Loading the model ({runtime})…", colors.warn
        else:
            text, color = f"✕ Model {event.status}: {event.detail}"[:140], colors.error
        self.model_label.setText(text)
        self.model_label.setStyleSheet(f"color: {color};")
        self.model_label.setToolTip(event.detail or text)

    def show_servers(self, states: Sequence[Any]) -> None:
        """``states``: the host's ServerStates (mcp/server_state.py)."""
        ready = sum(1 for s in states if getattr(s.status, "value", s.status) == "ready")
        failed = [s.name for s in states if getattr(s.status, "value", s.status) == "failed"]
        text = f"servers {ready}/{len(states)}"
        if failed:
            text += f" · {len(failed)} failed"
        self.servers_button.setText(text)
        self.servers_button.setToolTip(
            "\n".join(f"{s.name}: {getattr(s.status, 'value', s.status)}" for s in states)
        )


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
