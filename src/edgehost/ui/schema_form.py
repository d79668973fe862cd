"""A form generated from a flat JSON schema (elicitation, prompt arguments): string, number, integer,
boolean, enum and multi-select fields, defaults filled in, required fields marked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QWidget,
)

__all__ = ["SchemaForm"]

_INT_LIMIT = 2**31 - 1


class SchemaForm(QWidget):
    def __init__(self, schema: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema = schema
        self.required = set(schema.get("required") or [])
        self.fields: dict[str, QWidget] = {}
        self.kinds: dict[str, str] = {}
        layout = QFormLayout(self)
        layout.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        layout.setHorizontalSpacing(12)
        layout.setVerticalSpacing(8)
        properties = schema.get("properties") or {}
        for name, prop in properties.items():
            if not isinstance(prop, Mapping):
                continue
            widget, kind = self._field(prop)
            self.fields[name] = widget
            self.kinds[name] = kind
            title = str(prop.get("title") or name)
            label = QLabel(title + (" *" if name in self.required else ""))
            label.setTextFormat(Qt.TextFormat.PlainText)
            if prop.get("description"):
                label.setToolTip(str(prop["description"]))
                widget.setToolTip(str(prop["description"]))
            layout.addRow(label, widget)

    @staticmethod
    def _enum_values(prop: Mapping[str, Any]) -> list[tuple[str, Any]]:
        if isinstance(prop.get("enum"), list):
            names = prop.get("enumNames") if isinstance(prop.get("enumNames"), list) else None
            return [
                (str(names[i]) if names and i < len(names) else str(v), v) for i, v in enumerate(prop["enum"])
            ]
        options = prop.get("oneOf") or prop.get("anyOf")
        if isinstance(options, list) and all(isinstance(o, Mapping) and "const" in o for o in options):
            return [(str(o.get("title") or o["const"]), o["const"]) for o in options]
        return []

    def _field(self, prop: Mapping[str, Any]) -> tuple[QWidget, str]:
        kind = prop.get("type")
        default = prop.get("default")
        items = prop.get("items")
        if kind == "array" and isinstance(items, Mapping) and self._enum_values(items):
            chosen = set(default) if isinstance(default, list) else set()
            options = QListWidget()
            for title, value in self._enum_values(items):
                item = QListWidgetItem(title)
                item.setData(Qt.ItemDataRole.UserRole, value)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if value in chosen else Qt.CheckState.Unchecked)
                options.addItem(item)
            options.setMaximumHeight(min(6, options.count()) * 26 + 8)
            return options, "multi"
        choices = self._enum_values(prop)
        if choices:
            combo = QComboBox()
            for title, value in choices:
                combo.addItem(title, value)
            if default is not None:
                index = next((i for i, (_t, v) in enumerate(choices) if v == default), -1)
                if index >= 0:
                    combo.setCurrentIndex(index)
            return combo, "enum"
        if kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(default))
            return box, "boolean"
        if kind == "integer":
            spin = QSpinBox()
            spin.setRange(int(prop.get("minimum", -_INT_LIMIT)), int(prop.get("maximum", _INT_LIMIT)))
            spin.setValue(int(default) if isinstance(default, int | float) else max(0, spin.minimum()))
            return spin, "integer"
        if kind == "number":
            dspin = QDoubleSpinBox()
            dspin.setDecimals(4)
            dspin.setRange(float(prop.get("minimum", -1e12)), float(prop.get("maximum", 1e12)))
            dspin.setValue(float(default) if isinstance(default, int | float) else max(0.0, dspin.minimum()))
            return dspin, "number"
        line = QLineEdit()
        if isinstance(default, str):
            line.setText(default)
        if prop.get("format"):
            line.setPlaceholderText(str(prop["format"]))
        return line, "string"

    def values(self) -> dict[str, Any]:
        """The answers; an empty optional text field is left out."""
        result: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QListWidget):
                checked = (widget.item(i) for i in range(widget.count()))
                result[name] = [
                    item.data(Qt.ItemDataRole.UserRole)
                    for item in checked
                    if item is not None and item.checkState() == Qt.CheckState.Checked
                ]
            elif isinstance(widget, QComboBox):
                result[name] = widget.currentData()
            elif isinstance(widget, QCheckBox):
                result[name] = widget.isChecked()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                result[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                text = widget.text()
                if text or name in self.required:
                    result[name] = text
        return result

    def missing(self) -> list[str]:
        """Required text fields still empty."""
        return [
            name
            for name, widget in self.fields.items()
            if name in self.required and isinstance(widget, QLineEdit) and not widget.text().strip()
        ]
