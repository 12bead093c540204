"""The largest response a platform passes on, and how an answer is kept within it.

Some platforms refuse a response over a size, and the client then sees the platform's opaque
error instead of ours: AWS Lambda refuses a synchronous invocation's response over 6 MiB (the
whole JSON envelope its HTTP handler returns, the body JSON-escaped or, binary, base64), and API
Gateway answers 502; Cloud Run functions pass on at most 32 MiB of a response that is not
streamed. An entry point that answers on such a platform hands the app a `ResponseBudget` (the
limit, and how the platform counts a response: `overhead`, `text_size`, `binary_size`), and
`ResponseBudget.fit` keeps every answer within it:

- a client that accepts gzip (`Accept-Encoding: gzip`) gets a body compressed when it is over
  `GZIP_FROM` bytes or would not fit otherwise, where the budget says the platform passes
  compressed bodies (`compress`): JSON text shrinks several times;
- a whole answer still over the limit is replaced by `ResponseTooLargeError` in the wire form
  of the transport that made it (`Response.refusal`): a JSON-RPC error with the request's id,
  an HTTP+JSON error in its version's form; it names the limit, the figure and what to do;
- a buffered SSE stream stops before the event that would take it over, and ends with that
  error as its last event (`Response.error_frame`), naming the last event delivered, so a
  client resubscribes from there (`Last-Event-ID`) and reads on.

Nothing here knows a platform: the AWS adapter's budget counts the Lambda envelope, the GCP
adapter's counts body bytes. Without a budget (the dev server, uvicorn, the Lambda Web Adapter's
live streams) responses are as large as they come.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from .errors import A2AError, UnsupportedOperationError
from .http import Headers, Response, json_response
from .limits import limit_data

# A body smaller than this is not worth compressing (CPU spent for little).
GZIP_FROM = 64 * 1024
# Room kept at the end of a stream for the error event that ends it.
_ERROR_ROOM = 4 * 1024
_GZIP_HEADERS: Headers = [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding")]
# gzip (RFC 1952) container (16 + zlib.MAX_WBITS), default compression level: 8 MB of JSON in
# ~0.1 s. zlib is imported where a body is compressed: most responses never are.
_GZIP_WBITS = 16 + 15


class ResponseTooLargeError(UnsupportedOperationError):
    """The answer would be larger than the platform passes on (`max_response_bytes`).

    -32004 (UnsupportedOperationError: clients of both versions know it), HTTP 400; `data`
    names the setting, the maximum, the figure and the platform."""

    def __init__(self, message: str, *, maximum: int, actual: int | None, platform: str) -> None:
        data = limit_data("max_response_bytes", maximum, actual)
        data["platform"] = platform
        super().__init__(message, data=data)


class ResponseBudget:
    """How large a response the platform passes on, counted as it counts them.

    This base counts the body's bytes (what Cloud Run's limit counts); a platform that wraps the
    body (AWS Lambda's JSON envelope) overrides the counts."""

    def __init__(self, limit: int, platform: str, *, compress: bool = False) -> None:
        if limit < 1:
            raise ValueError("a response budget must be at least one byte")
        self.limit = limit
        self.platform = platform
        # Whether bodies are compressed for clients that accept gzip.
        self.compress = compress

    def overhead(self, status: int, headers: Headers) -> int:
        """What a response costs besides its body."""
        return 0

    def is_text(self, headers: Headers) -> bool:
        """Whether the body goes as text (`text_size`) rather than bytes (`binary_size`)."""
        return True

    def text_size(self, chunk: bytes) -> int:
        """What `chunk` of a text body costs (additive over a body's chunks)."""
        return len(chunk)

    def binary_size(self, size: int) -> int:
        """What a binary body (a compressed one included) of `size` bytes costs."""
        return size

    async def fit(self, response: Response, headers: dict[str, str]) -> Response:
        """`response` within this budget, for a request with these `headers`: compressed if the
        client accepts it, replaced by an error if it is still too large; an SSE stream is run
        to its end (or to the event that would not fit) and kept as one body."""
        gzip = self.compress and accepts_gzip(headers)
        if response.events is None:
            return _fit_whole(response, self, gzip)
        return await _fit_stream(response, self, gzip)

    def bound(self, status: int, headers: Headers, body_size: int) -> int:
        """At least what a response costs, from its sizes alone: a response within the limit
        by this bound needs no exact count (most answers are a few KB against MBs)."""
        return self.overhead(status, headers) + body_size


def accepts_gzip(headers: dict[str, str]) -> bool:
    """Whether a request's Accept-Encoding allows gzip (RFC 9110 §12.5.3: named, or `*`, with
    a q-value above 0)."""
    value = headers.get("accept-encoding")
    if not value:
        return False
    allowed: dict[str, bool] = {}
    for item in value.lower().split(","):
        coding, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, number = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(number)
                except ValueError:
                    q = 0.0
        allowed[coding.strip()] = q > 0
    return allowed.get("gzip", allowed.get("x-gzip", allowed.get("*", False)))


def _fit_whole(response: Response, budget: ResponseBudget, gzip: bool) -> Response:
    body = response.body
    if not gzip or len(body) <= GZIP_FROM:
        if budget.bound(response.status, response.headers, len(body)) <= budget.limit:
            return response
        cost = budget.overhead(response.status, response.headers) + _body_cost(budget, response)
        if cost <= budget.limit:
            return response
    if gzip:
        import zlib

        compressed = zlib.compress(body, wbits=_GZIP_WBITS)
        headers = [*response.headers, *_GZIP_HEADERS]
        cost = budget.overhead(response.status, headers) + budget.binary_size(len(compressed))
        if cost <= budget.limit:
            response.body, response.headers = compressed, headers
            return response
    advice = [
        "ask for less: tasks/get and ListTasks with historyLength=0 leave out the history, "
        "and ListTasks without includeArtifacts leaves out artifacts"
    ]
    if budget.compress and not gzip:
        advice.append("send Accept-Encoding: gzip to have JSON compressed")
    advice.append(
        "content larger than this cannot be read through this endpoint; have the agent send "
        "large files by URI"
    )
    error = ResponseTooLargeError(
        f"The answer is {cost} bytes as {budget.platform} counts it, and {budget.platform} "
        f"passes on at most {budget.limit} (A2A_MAX_RESPONSE_BYTES): " + "; ".join(advice),
        maximum=budget.limit,
        actual=cost,
        platform=budget.platform,
    )
    return _refusal(response, error)


def _body_cost(budget: ResponseBudget, response: Response) -> int:
    if not response.body:
        return 0
    if budget.is_text(response.headers):
        return budget.text_size(response.body)
    return budget.binary_size(len(response.body))


def _refusal(response: Response, error: A2AError) -> Response:
    """`error` in the form of the transport that made `response`, with its CORS headers."""
    if response.refusal is not None:
        refused = response.refusal(error)
    else:
        refused = json_response(error.rest_status, {"error": error.message, "data": error.data})
    kept = [h for h in response.headers if h[0].startswith(b"access-control-") or h[0] == b"vary"]
    refused.headers = [*refused.headers, *kept]
    return refused


class _StreamBody:
    """An SSE body being built within a budget: as text, then (for a client that accepts gzip,
    once it passes `GZIP_FROM` or would not fit otherwise) compressed frame by frame, each frame
    flushed, so its size is known exactly before it is taken."""

    def __init__(self, budget: ResponseBudget, response: Response, gzip: bool) -> None:
        self.budget = budget
        self.gzip = gzip
        self.text = budget.is_text(response.headers)
        # Counted as if compressed headers were there: the error frame must fit either way (and
        # 64 bytes of slack for what the counts round).
        extra = _GZIP_HEADERS if gzip else []
        self.room = (
            budget.limit - budget.overhead(response.status, [*response.headers, *extra]) - 64
        )
        self.chunks: list[bytes] = []
        self.raw_size = 0
        self.cost = 0
        self.compressor: Any = None

    def take(self, frame: bytes, room: int) -> bool:
        """Add `frame` if the body stays within `room` bytes; whether it did."""
        if self.compressor is None:
            cost = (
                self.budget.text_size(frame)
                if self.text
                else self.budget.binary_size(self.raw_size + len(frame))
                - self.budget.binary_size(self.raw_size)
            )
            fits = self.cost + cost <= room
            if not self.gzip or (fits and self.raw_size + len(frame) <= GZIP_FROM):
                if not fits:
                    return False
                self.chunks.append(frame)
                self.raw_size += len(frame)
                self.cost += cost
                return True
            self._start_compressing()
        import zlib

        trial = self.compressor.copy()
        piece = trial.compress(frame) + trial.flush(zlib.Z_SYNC_FLUSH)
        # The gzip trailer (a final empty block, CRC and length) is at most a dozen bytes.
        cost = self.budget.binary_size(self.raw_size + len(piece) + 16)
        if cost > room:
            return False
        self.compressor = trial
        self.chunks.append(piece)
        self.raw_size += len(piece)
        self.cost = cost
        return True

    def _start_compressing(self) -> None:
        import zlib

        self.compressor = zlib.compressobj(wbits=_GZIP_WBITS)
        so_far = b"".join(self.chunks)
        first = self.compressor.compress(so_far) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
        self.chunks = [first]
        self.raw_size = len(first)

    def close(self, response: Response) -> None:
        if self.compressor is not None:
            self.chunks.append(self.compressor.flush())
            response.headers = [*response.headers, *_GZIP_HEADERS]
        response.body = b"".join(self.chunks)
        response.events = None


async def _fit_stream(response: Response, budget: ResponseBudget, gzip: bool) -> Response:
    events: AsyncIterator[bytes] = response.events  # type: ignore[assignment]
    body = _StreamBody(budget, response, gzip)
    last_id: int | None = None
    delivered = 0
    overflow: bytes | None = None
    try:
        async for frame in events:
            if not body.take(frame, body.room - _ERROR_ROOM):
                overflow = frame
                break
            if frame.startswith(b"id: "):
                last_id = int(frame[4 : frame.index(b"\n")])
                delivered += 1
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    if overflow is not None:
        error = _stream_error(budget, last_id, delivered, gzip)
        frame = (
            response.error_frame(error)
            if response.error_frame is not None
            else b"event: error\ndata: " + error.message.encode() + b"\n\n"
        )
        if not body.take(frame, body.room):
            raise AssertionError("no room left for a stream's error event")
    body.close(response)
    return response


def _stream_error(
    budget: ResponseBudget, last_id: int | None, delivered: int, gzip: bool
) -> A2AError:
    where = (
        f"after event {last_id}; resubscribe with Last-Event-ID: {last_id} to read on"
        if last_id is not None
        else "before its first event"
    )
    message = (
        f"The stream stopped {where}: the next event would take this response over the "
        f"{budget.limit} bytes {budget.platform} passes on (A2A_MAX_RESPONSE_BYTES)"
    )
    if delivered == 0:
        message += (
            ". That event alone is too large for one response: read the task with tasks/get "
            "and historyLength=0"
        )
        if budget.compress and not gzip:
            message += ", and send Accept-Encoding: gzip to have it compressed"
    error = ResponseTooLargeError(
        message, maximum=budget.limit, actual=None, platform=budget.platform
    )
    if last_id is not None:
        error.data["lastEventId"] = last_id
    return error


def response_limit(max_response_bytes: int | None, platform_default: int) -> int | None:
    """The response limit an entry point applies: the setting (`A2A_MAX_RESPONSE_BYTES`) if
    given, else the platform's own; None for no limit (a setting of 0)."""
    value = platform_default if max_response_bytes is None else max_response_bytes
    return value or None
