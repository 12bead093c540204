"""A2A v1.0 at the edge: its wire shapes and their translation to the one internal model.

Everything behind the transports — the service, the journal, the stores, the queues and the
webhooks' bookkeeping — works on the v0.3 models of `a2a_serverless.models`, which is also what
the stores hold: a task is the same task whichever version created it, reads it or continues it.
This package is imported only when a request asks for v1.0 (`A2A-Version: 1.0`), so a v0.3
deployment's cold start never pays for it.

- `models.py`: v1.0 request objects (ProtoJSON: camelCase names, enums by name, no `kind`).
- `convert.py`: v1.0 <-> internal, both ways, the one place that knows how the shapes differ.
- `jsonrpc.py`: the v1.0 JSON-RPC method table and its error details (`google.rpc.ErrorInfo`).
"""
