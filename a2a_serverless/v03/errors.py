"""A2A 0.3's rules for errors, where they differ from the service's (which speaks 1.0's).

0.3's JSON-RPC errors are the internal ones as they are (`A2AError.to_jsonrpc`); its HTTP+JSON
error body is `rest.py`'s. Two refusals are named by spec 1.0 and not by 0.3, and this kit has
always answered them as invalid params over 0.3 (same message, same data):

- a message to a task in a terminal state (1.0: UnsupportedOperationError, §3.1.1);
- a push config id the task does not have (1.0: TaskNotFoundError, §3.1.8).

`in_v03_terms` applies them to a method handler: `methods.py` wraps each of its methods with it.
"""

from __future__ import annotations

from typing import Any

from ..errors import FinishedTaskError, InvalidParamsError, PushConfigNotFoundError
from ..transport import Call, Handler

_AS_INVALID_PARAMS = (FinishedTaskError, PushConfigNotFoundError)


def in_v03_terms(handler: Handler) -> Handler:
    """`handler`, its refusals named as 0.3 names them."""

    async def handle(params: Any, call: Call) -> Any:
        try:
            return await handler(params, call)
        except _AS_INVALID_PARAMS as error:
            raise InvalidParamsError(error.message, data=error.data) from None

    return handle
