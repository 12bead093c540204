"""A2A v1.0 at the edge (the package named for the version; the URL prefix `/v1/` is 0.3's
HTTP+JSON, `v03/`): its wire shapes and their translation to the one internal model.

Everything behind the transports — the service, the journal, the stores, the queues and the
webhooks' bookkeeping — works on the v0.3 models of `a2a_serverless.models`, which is also what
the stores hold: a task is the same task whichever version created it, reads it or continues it.
This package is imported only when a request asks for v1.0 (`A2A-Version: 1.0`), so a v0.3
deployment's cold start never pays for it.

Built as `v03/` is:

- `models.py`: v1.0 request objects (ProtoJSON: camelCase names, enums by name, no `kind`),
  and 1.0's names of the internal states and roles (`STATES`, `ROLES`).
- `convert.py`: v1.0 <-> internal, both ways, the one place that knows how the shapes differ.
- `errors.py`: v1.0's error codes and details (`google.rpc.ErrorInfo`, `BadRequest`).
- `methods.py`: v1.0's methods (one table by JSON-RPC method name: params type, handler,
  result), shared by both of its bindings.
- `jsonrpc.py`: v1.0 over JSON-RPC (the `Protocol` `jsonrpc.handle` serves it with).
- `rest.py`: v1.0 over HTTP+JSON: a route -> method table onto `methods.py`, and its transport.
- `webhook.py`: 1.0's push notification form (a StreamResponse), found by
  `versions.webhook_form` for a config set over 1.0.
"""
