"""Help pages in the conventions of ``llm`` and sqlite-utils (click's own): value
types as ``TEXT``, ``INTEGER``, ``FLOAT``, ``PATH``, choices as ``[a|b|c]``, flags
with no type, arguments in capitals (``QUESTION``, ``[PATH]...``), and
descriptions wrapped to the terminal rather than at the source's line breaks.

Typer 0.2x prints ``<str>``, ``<bool>`` and ``{question}``; ``conventional()``
replaces the three methods that print them (``tests/unit/test_cli_help.py`` checks
the pages, so a Typer that changes them is noticed)."""

from __future__ import annotations

import inspect
import re
from typing import Any

import typer

_TYPES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN", "Path": "PATH", "path": "PATH",
          "file": "FILE", "directory": "DIRECTORY", "datetime": "DATETIME", "int range": "INTEGER RANGE",
          "float range": "FLOAT RANGE"}
_patched = False


def _display_type(self: Any, ctx: Any) -> str | None:
    if getattr(self, "is_flag", False) or getattr(self, "count", False):
        return None
    desc = self.type_descriptor
    if desc.is_choice:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in desc.choices or ()) + "]"
    label = _ORIGINAL(self, ctx).strip("<>")
    label = label.removeprefix("list[").removesuffix("]")
    return _TYPES.get(label, label.upper())


def _argument_name(self: Any) -> str:
    return (self.metavar or self.name or "").upper()


def _usage(self: Any) -> str:
    name = _argument_name(self)
    name = name if self.required else f"[{name}]"
    return f"{name}..." if self.nargs != 1 else name


def _paragraphs(text: str | None) -> str | None:
    """A docstring's paragraphs, each on one line (the terminal wraps them)."""
    if not text:
        return text
    return "\n\n".join(re.sub(r"\s*\n\s*", " ", p.strip()) for p in inspect.cleandoc(text).split("\n\n"))


def conventional(app: typer.Typer) -> None:
    """Apply the conventions to ``app``'s commands (and, once, to Typer's help)."""
    global _patched, _ORIGINAL
    if not _patched:
        from typer import core

        _ORIGINAL = core._TyperParameter.display_type
        core._TyperParameter.display_type = _display_type  # type: ignore[method-assign,assignment]
        core.TyperArgument.display_name_raw = property(_argument_name)  # type: ignore[assignment,method-assign]
        core.TyperArgument._usage_display_name = _usage  # type: ignore[method-assign]
        _patched = True
    _join_lines(app)


def _join_lines(app: typer.Typer) -> None:
    for command in app.registered_commands:
        command.help = _paragraphs(command.help if isinstance(command.help, str) else inspect.getdoc(command.callback))
    for group in app.registered_groups:
        if group.typer_instance is not None:
            info = group.typer_instance.info
            if isinstance(info.help, str):
                info.help = _paragraphs(info.help)
            _join_lines(group.typer_instance)


_ORIGINAL: Any = None
