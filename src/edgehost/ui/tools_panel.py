"""Tools: a tree server → tools with enable checkboxes, a danger badge, description and schema, and the
tool's approval rule (allow / ask / deny, saved in the servers config's ``approval`` list)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from edgehost.agent.tools import ToolSpec
from edgehost.errors import ConfigError
from edgehost.host.tool_view import risk_of, rule_for
from edgehost.ui._screen import fits_screen
from edgehost.ui._widgets import RISK_LABELS, ColoursKeptWhenSelected, pretty_json
from edgehost.ui.theme import current_colors

if TYPE_CHECKING:
    from edgehost.host.host import Host

__all__ = ["ToolsPanel"]

RULE_CHOICES = ("default", "allow", "ask", "deny")


class ToolsPanel(QDialog):
    def __init__(self, host: Host, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.setWindowTitle("Tools — EdgeHost")
        fits_screen(self, QSize(920, 600))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        top = QHBoxLayout()
        title = QLabel("Tools")
        title.setObjectName("SectionTitle")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter tools…")
        self.filter.setMaximumWidth(280)
        self.summary = QLabel()
        self.summary.setObjectName("Caption")
        top.addWidget(title)
        top.addWidget(self.summary)
        top.addStretch(1)
        top.addWidget(self.filter)
        layout.addLayout(top)
        self.notice = QLabel()
        self.notice.setObjectName("ErrorText")
        self.notice.hide()
        layout.addWidget(self.notice)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Tool", "Risk", "Approval"])
        self.tree.setItemDelegate(ColoursKeptWhenSelected(self.tree))
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        splitter.addWidget(self.tree)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(8, 0, 0, 0)
        self.name = QLabel()
        self.name.setObjectName("SectionTitle")
        self.name.setTextFormat(Qt.TextFormat.PlainText)
        self.name.setWordWrap(True)
        self.description = QLabel()
        self.description.setTextFormat(Qt.TextFormat.PlainText)
        self.description.setWordWrap(True)
        self.reasons = QLabel()
        self.reasons.setObjectName("Caption")
        self.reasons.setTextFormat(Qt.TextFormat.PlainText)
        self.reasons.setWordWrap(True)
        schema_label = QLabel("Input schema")
        schema_label.setObjectName("Caption")
        self.schema = QPlainTextEdit()
        self.schema.setObjectName("Mono")
        self.schema.setReadOnly(True)
        for widget in (self.name, self.description, self.reasons, schema_label):
            details_layout.addWidget(widget)
        details_layout.addWidget(self.schema, 1)
        splitter.addWidget(details)
        splitter.setSizes([600, 320])  # on a 7-inch screen, room for a tool's whole name
        layout.addWidget(splitter, 1)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.currentItemChanged.connect(lambda current, _previous: self._show(current))
        self.filter.textChanged.connect(self._apply_filter)
        self._tools: dict[str, ToolSpec] = {}
        self._filling = False
        self.refresh()

    def refresh(self) -> None:
        self._filling = True
        expanded = {item.text(0) for item in self._server_items() if item.isExpanded()}
        selected = self.tree.currentItem()
        current = selected.data(0, Qt.ItemDataRole.UserRole) if selected is not None else None
        self.tree.clear()
        tools = list(self.host.tools())
        self._tools = {t.name: t for t in tools}
        approval = list(getattr(self.host.servers_config, "approval", []) or [])
        colors = current_colors()
        risk_colors = {"destructive": colors.error, "caution": colors.warn, "safe": colors.ok}
        servers: dict[str, QTreeWidgetItem] = {}
        for tool in sorted(tools, key=lambda t: (t.server, t.tool_name)):
            parent = servers.get(tool.server)
            if parent is None:
                parent = QTreeWidgetItem([tool.server])
                font = parent.font(0)
                font.setBold(True)
                parent.setFont(0, font)
                parent.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                self.tree.addTopLevelItem(parent)
                servers[tool.server] = parent
            # The server's own name for it, as the chat's cards and the history show it; the title says more.
            item = QTreeWidgetItem(parent, [tool.tool_name])
            item.setData(0, Qt.ItemDataRole.UserRole, tool.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked if tool.enabled else Qt.CheckState.Unchecked)
            item.setToolTip(0, f"{tool.title} ({tool.name})" if tool.title else tool.name)
            risk, _reasons = risk_of(tool)
            item.setText(1, RISK_LABELS[risk])
            item.setForeground(1, QColor(risk_colors[risk]))
            combo = QComboBox()
            combo.addItems(RULE_CHOICES)
            rule = rule_for(approval, tool)
            if self.host.policy.granted(tool):  # it outranks an "ask" rule: shown as what happens
                rule = "allow"
                combo.setToolTip(
                    "Allowed without asking: you answered Always in an approval. "
                    "Choose another setting to take that back."
                )
            combo.setCurrentText(rule)
            combo.currentTextChanged.connect(lambda action, name=tool.name: self.set_rule(name, action))
            self.tree.setItemWidget(item, 2, combo)
            if tool.name == current:
                self.tree.setCurrentItem(item)
        for name, parent in servers.items():
            parent.setExpanded(not expanded or name in expanded)
        enabled = sum(1 for t in tools if t.enabled)
        self.summary.setText(f"{enabled} of {len(tools)} enabled")
        self._filling = False
        self._apply_filter(self.filter.text())

    def _apply_filter(self, text: str) -> None:
        needle = text.lower().strip()
        for parent in self._server_items():
            visible = 0
            for child in (parent.child(j) for j in range(parent.childCount())):
                if child is None:
                    continue
                name = str(child.data(0, Qt.ItemDataRole.UserRole))
                tool = self._tools.get(name)
                hay = f"{name} {tool.description if tool else ''}".lower()
                child.setHidden(bool(needle) and needle not in hay)
                visible += not child.isHidden()
            parent.setHidden(visible == 0 and bool(needle))

    def _server_items(self) -> list[QTreeWidgetItem]:
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0:
            return
        name = item.data(0, Qt.ItemDataRole.UserRole)
        if name:
            self.host.set_tool_enabled(str(name), item.checkState(0) == Qt.CheckState.Checked)

    def _show(self, item: QTreeWidgetItem | None) -> None:
        name = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        tool = self._tools.get(str(name)) if name else None
        if tool is None:
            self.name.setText(item.text(0) if item is not None else "")
            self.description.clear()
            self.reasons.clear()
            self.schema.clear()
            return
        self.name.setText(tool.name)
        # Servers written in Python give their docstrings, indented as in the source.
        self.description.setText(
            inspect.cleandoc(tool.description) if tool.description else "(no description)"
        )
        risk, reasons = risk_of(tool)
        self.reasons.setText(f"Risk: {risk}" + (f" — {'; '.join(reasons)}" if reasons else ""))
        self.schema.setPlainText(pretty_json(dict(tool.input_schema)))

    def set_rule(self, name: str, action: str) -> None:
        """Save the tool's rule in the servers config; it is used from the next call on."""
        try:
            self.host.set_approval_rule(name, action)
        except ConfigError as exc:
            self.notice.setText(str(exc))
            self.notice.show()
            return
        except KeyError:  # the tool left the catalog since the panel was filled
            return
        self.notice.hide()
