"""A2A 0.3's HTTP+JSON/REST transport (spec §3.2.3), the routes under `/v1/`: `transport.py`
reads and answers the HTTP request, the 0.3 codec (`v03/rest.py`, `v03/convert.py`) maps
routes to methods and translates proto JSON; `openapi.py` serves the OpenAPI document of these
routes and of A2A 1.0's.
Imported on the first request under `/v1/`."""
