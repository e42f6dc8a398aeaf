"""Run a fake LLM provider on 127.0.0.1 for demos (the same servers the tests use).

It speaks the real wire protocol (OpenAI chat completions by default; Gemini or
Anthropic with --protocol) and "answers" by quoting the first sentence of source
[1] with its citation — or fails on purpose:

    .venv/bin/python scripts/fake_openai_server.py --port 8911            # answers
    .venv/bin/python scripts/fake_openai_server.py --port 8912 --fail 500 # always HTTP 500

then point ragline at it:

    RAGLINE_GENERATOR__BASE_URL=http://127.0.0.1:8911/v1 OPENAI_API_KEY=fake \\
        ragline ask "..." --generator openai

Stops on Ctrl-C, or by itself after --seconds (default 600).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.llm import PROTOCOLS, FakeLLMServer, Reply, Slow, Status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8911)
    parser.add_argument("--protocol", choices=PROTOCOLS, default="openai")
    parser.add_argument("--fail", type=int, default=None, metavar="STATUS", help="answer every request with this status")
    parser.add_argument("--slow", type=float, default=None, metavar="SECONDS", help="wait this long before answering")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long")
    args = parser.parse_args()
    behaviour = Status(args.fail, message=f"fake provider failing with {args.fail}") if args.fail else Reply()
    if args.slow:
        behaviour = Slow(args.slow, behaviour) if isinstance(behaviour, Reply) else behaviour
    server = FakeLLMServer(args.protocol, default=behaviour, port=args.port).start()
    print(f"fake {args.protocol} server on {server.base_url} "
          f"({'failing with ' + str(args.fail) if args.fail else 'quoting source [1]'})", flush=True)
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print(f"served {len(server.requests)} request(s)", flush=True)


if __name__ == "__main__":
    main()
