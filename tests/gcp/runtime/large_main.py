"""The user's main.py of the large-content tests: an agent that produces each payload.

"text <n>"          <n> characters of text (the contract suite's `large_text`, seed 0)
"file <n>"          a file part of <n> random bytes (`large_file`, seed 0)
"chunks <k> <n>"    <k> chunks of <n> characters, streamed (seeds 0..k-1)
anything else       "read it"
"""

from collections.abc import Iterator
from typing import Any

from a2a_serverless import Context, agent
from a2a_serverless.testing.store_contract import large_file, large_text
from a2a_serverless_gcp import http_function, worker_function


@agent(name="Producer", description="Produces large payloads on request.")
def producer(ctx: Context) -> Iterator[Any]:
    kind, *rest = ctx.text.split() or [""]
    numbers = [int(word) for word in rest] if kind in ("text", "file", "chunks") else []
    if kind == "text":
        yield large_text(numbers[0])
    elif kind == "file":
        yield large_file(numbers[0])
    elif kind == "chunks":
        for seed in range(numbers[0]):
            yield large_text(numbers[1], seed=seed)
    else:
        yield "read it"


a2a = http_function(producer)
worker = worker_function(producer)
