"""A clean install from the built wheel, as a new user gets it: ``python -m build``
makes a wheel and an sdist; a fresh venv (nothing of this one's) installs the
wheel with its dependencies from the package index; ``ragline --help`` works; a
missing model is an error naming ``ragline models install``, which fixes it; the
answer messages' catalogs load from the installed package; then
the sample knowledge base is ingested and a question answered with citations."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How much is the fee for an unarranged overdraft?"


def _run(args: list[str | Path], env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, f"{args}: {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_the_built_wheel_installs_and_answers_in_a_clean_venv(tmp_path: Path) -> None:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", str(tmp_path)),
           "RAGLINE_HOME": str(tmp_path / "home")}
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", dist, ROOT], env)
    wheel, = dist.glob("ragline-*.whl")
    sdist, = dist.glob("ragline-*.tar.gz")
    in_wheel = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("ragline/")}
    prefix = sdist.name.removesuffix(".tar.gz") + "/src/"
    with tarfile.open(sdist) as archive:
        in_sdist = {n.removeprefix(prefix) for n in archive.getnames() if n.startswith(prefix)}
    assert {"ragline/web/static/index.html", "ragline/sample/overdraft-policy.md", "ragline/client/client.py",
            "ragline/server/mcp/server.py", "ragline/messages/locale/en/LC_MESSAGES/ragline.mo",
            "ragline/messages/locale/es/LC_MESSAGES/ragline.mo"} <= in_wheel <= in_sdist

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], env)
    bin_ = venv / "bin"
    _run([bin_ / "pip", "install", "--quiet", wheel], env)
    freeze = _run([bin_ / "pip", "freeze"], env).stdout.lower().splitlines()
    installed = {line.split("==")[0].split(" @ ")[0] for line in freeze}
    assert "ragline" in installed and not installed & {"torch", "pytest", "playwright", "schemathesis", "openai"}
    assert "Usage: ragline" in _run([bin_ / "ragline", "--help"], env).stdout
    # The answer messages' catalogs are read from the installed package (isolated: nothing of the source tree).
    spanish = _run([bin_ / "python", "-I", "-c", "from ragline.messages import languages, message; "
                    "print(languages(), message('nothing_found', 'es'))"], env).stdout
    assert spanish.strip() == "('en', 'es') No he encontrado nada sobre esto en la base de conocimiento."

    sample = tmp_path / "bank"
    sample.mkdir()
    (sample / "overdraft-policy.md").write_bytes((ROOT / "src/ragline/sample/overdraft-policy.md").read_bytes())
    missing = subprocess.run([bin_ / "ragline", "ingest", sample], env=env, capture_output=True, text=True,
                             timeout=300, check=False)
    assert missing.returncode == 1 and "ragline models install" in " ".join(missing.stderr.split())
    _run([bin_ / "ragline", "models", "install"], env)
    assert "installed at" in _run([bin_ / "ragline", "models", "status"], env).stdout

    hashing = {**env, "RAGLINE_EMBEDDER__NAME": "hashing"}  # fast; the model itself is tested elsewhere
    assert "added 1" in _run([bin_ / "ragline", "ingest", sample, "--collection", "bank"], hashing).stdout
    answer = _run([bin_ / "ragline", "ask", QUESTION, "--collection", "bank"], hashing).stdout
    assert "€5" in answer and "[1]" in answer and "overdraft-policy.md" in answer
