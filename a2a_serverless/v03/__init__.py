"""A2A 0.3 at the edge: its methods, its two bindings' tables, and its HTTP+JSON wire form.

The service, the journal, the stores, the queues and the webhooks' bookkeeping work on the
internal models of `a2a_serverless.models` (A2A 1.0's); this package is what only 0.3 speaks,
built the way `v10/` is, and could be deleted on its own:

- `methods.py`: 0.3's methods as the service is called (one table by JSON-RPC method name:
  params type, handler), shared by both of its bindings, with 0.3's rules where they differ
  from the service's (which are 1.0's).
- `errors.py`: 0.3's names for the refusals 1.0 names otherwise.
- `jsonrpc.py`: 0.3 over JSON-RPC (the `Protocol` `jsonrpc.handle` serves it with);
  `jsonrpc_models.py`: its parts, messages, tasks and events (with `kind`, a status update's
  `final`), and `jsonrpc_convert.py` between them and the internal model (results and stream
  events are written there); `jsonrpc_params.py`: its method params, converted into the
  internal requests.
- `rest.py`: 0.3 over HTTP+JSON, the routes under `/v1/`: a route -> method table onto
  `methods.py`, each route with its request reader and result encoder.
- `models.py`: the HTTP+JSON wire form (ProtoJSON) as msgspec Structs, read as proto3 JSON is,
  with 0.3's proto names of the internal states and roles (`STATES`, `ROLES`); `convert.py`:
  those Structs to the internal model, and the internal model to ProtoJSON (the server and
  the client both use it).
- `webhook.py`: 0.3's push notification form (the Task), found by `versions.webhook_form`.
- `card.py`: 0.3's agent card (its models, and the internal card, 1.0's, written in them), whose
  members `a2a_serverless/card.py` serves beside 1.0's.

It imports nothing of `v10/` (nor `v10/` of it: tests/unit/test_import_graph.py).
"""
