"""Pause points: places in a request's work (between search stages, before the
answer is generated) where the host running it may make it step aside. The library
calls ``pause_point()``, which does nothing unless the caller installed a hook for
the current context: the server's fair gate does, so that an older request of one
tenant yields the CPU to a newer one of another (``server/fairness.py``)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable

_Hook = Callable[[], None]
_hook: contextvars.ContextVar[_Hook | None] = contextvars.ContextVar("ragline_pause_hook", default=None)


def pause_point() -> None:
    hook = _hook.get()
    if hook is not None:
        hook()


def install(hook: Callable[[], None]) -> contextvars.Token[_Hook | None]:
    """Run ``hook`` at every pause point reached in this context (and the threads it starts)."""
    return _hook.set(hook)


def uninstall(token: contextvars.Token[_Hook | None]) -> None:
    _hook.reset(token)
