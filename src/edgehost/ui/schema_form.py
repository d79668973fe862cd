"""A form generated from a flat JSON schema (elicitation, prompt arguments): string, number, integer,
boolean, enum and multi-select fields, defaults filled in, required fields marked. The schema is read by
edgehost.form_fields, which the terminal's elicitation (`edgehost chat`) uses too."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
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

from edgehost.form_fields import FormField, field_problem, form_fields, missing_fields

__all__ = ["SchemaForm"]

_INT_LIMIT = 2**31 - 1


class SchemaForm(QWidget):
    changed = Signal()  # any field was edited

    def __init__(self, schema: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema = schema
        self.form_fields = form_fields(schema)
        self.required = {f.name for f in self.form_fields if f.required}
        self.fields: dict[str, QWidget] = {}
        self.kinds: dict[str, str] = {}
        layout = QFormLayout(self)
        layout.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        layout.setHorizontalSpacing(12)
        layout.setVerticalSpacing(8)
        layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # a field under its label when narrow
        for field in self.form_fields:
            widget = self._widget(field)
            self.fields[field.name] = widget
            self.kinds[field.name] = field.kind
            label = QLabel(field.title + (" *" if field.required else ""))
            label.setTextFormat(Qt.TextFormat.PlainText)
            if field.description:
                label.setToolTip(field.description)
                widget.setToolTip(field.description)
            layout.addRow(label, widget)
            self._watch(widget)

    @staticmethod
    def _widget(field: FormField) -> QWidget:
        default = field.default
        if field.kind == "choices":
            chosen = default if isinstance(default, list) else []
            options = QListWidget()
            for choice in field.choices:
                item = QListWidgetItem(choice.title)
                item.setData(Qt.ItemDataRole.UserRole, choice.value)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(
                    Qt.CheckState.Checked if choice.value in chosen else Qt.CheckState.Unchecked
                )
                options.addItem(item)
            options.setMaximumHeight(min(6, options.count()) * 26 + 8)
            return options
        if field.kind == "choice":
            combo = QComboBox()
            for choice in field.choices:
                combo.addItem(choice.title, choice.value)
            index = next((i for i, c in enumerate(field.choices) if c.value == default), -1)
            if default is not None and index >= 0:
                combo.setCurrentIndex(index)
            return combo
        if field.kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(default))
            return box
        if field.kind == "integer":
            spin = QSpinBox()
            low = int(field.minimum) if field.minimum is not None else -_INT_LIMIT
            spin.setRange(low, int(field.maximum) if field.maximum is not None else _INT_LIMIT)
            spin.setValue(int(default) if isinstance(default, int | float) else max(0, spin.minimum()))
            return spin
        if field.kind == "number":
            dspin = QDoubleSpinBox()
            dspin.setDecimals(4)
            low_number = field.minimum if field.minimum is not None else -1e12
            dspin.setRange(low_number, field.maximum if field.maximum is not None else 1e12)
            dspin.setValue(float(default) if isinstance(default, int | float) else max(0.0, dspin.minimum()))
            return dspin
        line = QLineEdit()
        if isinstance(default, str):
            line.setText(default)
        if field.format or field.description:  # on a touch screen a tooltip is never seen
            line.setPlaceholderText(field.format or field.description)
        if field.secret:  # a token or a password: not shown on the screen
            line.setEchoMode(QLineEdit.EchoMode.Password)
        return line

    def _watch(self, widget: QWidget) -> None:
        """``changed`` is emitted when ``widget``'s value changes, whatever kind of field it is."""
        if isinstance(widget, QListWidget):
            widget.itemChanged.connect(self._changed)
        elif isinstance(widget, QComboBox):
            widget.currentIndexChanged.connect(self._changed)
        elif isinstance(widget, QCheckBox):
            widget.toggled.connect(self._changed)
        elif isinstance(widget, QSpinBox | QDoubleSpinBox):
            widget.valueChanged.connect(self._changed)
        elif isinstance(widget, QLineEdit):
            widget.textChanged.connect(self._changed)

    def _changed(self, *_args: object) -> None:
        self.changed.emit()

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
        """Required fields still empty."""
        return [field.name for field in missing_fields(self.form_fields, self.values())]

    def problems(self) -> list[str]:
        """What is wrong with the answers given ("email must be an email address, like …"), as the
        terminal checks them (form_fields.field_problem)."""
        values = self.values()
        found = (
            (field.title or field.name, field_problem(field, values[field.name]))
            for field in self.form_fields
            if field.name in values and values[field.name] not in ("", None)
        )
        return [f"{title} {problem}" for title, problem in found if problem is not None]
