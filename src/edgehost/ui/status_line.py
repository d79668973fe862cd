"""The main window's status bar: the model and where it runs, the last reply's speed, how much of the
context the conversation fills, and the servers' count (a button to their panel)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QToolButton

from edgehost.settings import BACKEND_LABELS
from edgehost.ui._widgets import BackendChoice, ElidedLabel, Part
from edgehost.ui.theme import current_colors

if TYPE_CHECKING:
    from edgehost.host import events as ev

__all__ = ["StatusLine"]

# How the status bar names each backend's runtime, and in short where the bar is short of room.
_RUNTIMES = {**BACKEND_LABELS, "openai": "network server", "scripted": "scripted"}
_SHORT_RUNTIMES = {"llamacpp": "CPU", "rkllm": "NPU", "openai": "network"}

# What the model's line keeps before the bar drops what it can do without (the "Backend" caption, the
# context meter, the speed): a name of some 25 characters beside its state and where it runs.
MODEL_ROOM = 300
_GAP = 8  # what QStatusBar puts between two of its widgets (6 px in Qt 6), rounded up


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
        # Short of room, where the model runs is said in short ("NPU"), then its name is elided (in the
        # middle: a model's name differs from its siblings' at both ends); its state never is.
        self.model_label = ElidedLabel("● Loading model…")
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
        bar.addWidget(self.model_label, 1)
        bar.addWidget(self.backend_label)
        bar.addWidget(self.backend_switch)
        bar.addPermanentWidget(self.speed_label)
        bar.addPermanentWidget(self.context_label)
        bar.addPermanentWidget(self.context_meter)
        bar.addPermanentWidget(self.servers_button)
        # Dropped in this order on a narrow screen, shown again when there is room; the others stay.
        self._extras = (self.backend_label, self.context_meter, self.speed_label)
        self._kept = (self.backend_switch, self.context_label, self.servers_button)
        self._bar = bar
        resizes = _Resizes(bar)
        resizes.resized.connect(self.make_room)
        bar.installEventFilter(resizes)
        self.show_context(0, 0)

    def make_room(self) -> None:
        """Show the extras that leave the model's line MODEL_ROOM in the bar's width, the last dropped
        first: on a 7-inch screen the line says the model's state whatever else is left out."""
        margins = self._bar.contentsMargins()
        free = self._bar.width() - margins.left() - margins.right() - MODEL_ROOM
        free -= sum(widget.sizeHint().width() + _GAP for widget in self._kept)
        for widget in reversed(self._extras):  # the speed is worth keeping most, the caption least
            needs = widget.sizeHint().width() + _GAP
            widget.setVisible(needs <= free)
            free -= needs if needs <= free else 0

    def show_speed(self, tokens_per_second: float) -> None:
        """The last reply's speed; none (0) while a reply is being written or for a new conversation."""
        self.speed_label.setText(f"{tokens_per_second:.1f} tok/s" if tokens_per_second else "")
        self.make_room()

    def show_context(self, used: int, maximum: int) -> None:
        """How much of the model's context (``maximum`` tokens; 0 while no model is loaded) is used."""
        if not maximum:
            self.context_meter.setRange(0, 1)
            self.context_meter.setValue(0)
            self.context_label.setText("context —")
            self.make_room()
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
        self.make_room()

    def show_model(self, event: ev.ModelStatusChanged) -> None:
        colors = current_colors()
        runtime = _RUNTIMES.get(event.backend, event.backend)
        middle, right = Qt.TextElideMode.ElideMiddle, Qt.TextElideMode.ElideRight
        short = _SHORT_RUNTIMES.get(event.backend, "")
        if event.status == "ready":
            parts, color = [Part("● "), Part(event.model or "Model", middle), Part(" · ready")], colors.ok
            parts.append(Part(f" · {runtime}", right, f" · {short}" if short else ""))
            if event.detail:  # another backend crashed while loading: this one stands in
                parts.append(Part(" (the first choice crashed: hover for why)", right, " (stand-in)"))
                color = colors.warn
        elif event.status == "loading":
            parts, color = (
                [Part("◌ Loading the model ("), Part(runtime, right, short), Part(")…")],
                colors.warn,
            )
        else:
            parts, color = [Part(f"✕ Model {event.status}: "), Part(event.detail[:140], right)], colors.error
        self.model_label.show_parts(parts)
        self.model_label.setStyleSheet(f"color: {color};")
        tip = self.model_label.full_text()
        if event.detail and event.detail not in tip:  # why the first choice crashed; a long error whole
            self.model_label.setToolTip(f"{tip}\n\n{event.detail}")

    def show_servers(self, states: Sequence[Any]) -> None:
        """``states``: the host's ServerStates (mcp/server_state.py)."""
        ready = sum(1 for s in states if getattr(s.status, "value", s.status) == "ready")
        failed = [s.name for s in states if getattr(s.status, "value", s.status) == "failed"]
        text = f"servers {ready}/{len(states)}"
        if failed:
            text += f" · {len(failed)} failed"
        self.servers_button.setText(text)
        self.make_room()
        self.servers_button.setToolTip(
            "\n".join(f"{s.name}: {getattr(s.status, 'value', s.status)}" for s in states)
        )


class _Resizes(QObject):
    """``resized`` each time the widget it is installed on changes size (it keeps no reference to it or
    to what is connected, which would make a cycle the garbage collector may break too early)."""

    resized = Signal()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.resized.emit()
        return False


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
