"""The Typer app every command module registers on, and the two consoles they
write to (messages on ``err``, tables on ``out``). Apart from ``common`` so that
``remote``, which ``common`` imports, can use them without an import cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(help="ragline: offline-first retrieval-augmented generation.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)


class _LazyConsole:
    """A rich ``Console`` made on first use: ``ragline search --json`` never imports rich
    (~50 ms of a cold start)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def get(self) -> Console:
        """The Console itself, for rich APIs that take one (``with console:`` needs the real object)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


def real_console(console: Console) -> Console:
    """``err`` or ``out`` as a rich Console object."""
    return console.get() if isinstance(console, _LazyConsole) else console


# A proxy typed as what it stands for: rich is imported on first use, not with the CLI.
err: Console = _LazyConsole(stderr=True)  # type: ignore[assignment]  # the lazy proxy of a Console
out: Console = _LazyConsole(soft_wrap=True)  # type: ignore[assignment]  # the lazy proxy of a Console


def say(style: str, label: str, text: object, **_: Any) -> None:
    """``label: text`` on stderr, the label in ``style``. The text is printed as it is:
    square brackets in it (``pip install 'ragline[postgres]'``, a file name, an
    error message) are not rich markup."""
    from rich.markup import escape

    err.print(f"[{style}]{label}:[/{style}] {escape(str(text))}", highlight=False, soft_wrap=True)
