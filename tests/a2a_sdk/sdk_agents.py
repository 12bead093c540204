"""The agent the a2a-sdk tests serve: the sample executors of whichever a2a-sdk line is
installed (executors03.py for 0.3.x, executors1.py for 1.x), as one `Agent`.

    a2a-serverless dev tests.a2a_sdk.sdk_agents:samples
"""

from __future__ import annotations

import os

from a2a_serverless.a2a_sdk import from_a2a_sdk, sdk_line

if sdk_line() == "1":
    from tests.a2a_sdk.executors1 import SampleExecutor
else:
    from tests.a2a_sdk.executors03 import SampleExecutor  # type: ignore[assignment]

samples = from_a2a_sdk(
    SampleExecutor(),
    name="SDK Samples",
    description="a2a-sdk sample executors (echo, trip, story, slow, session), run durably.",
    # A cancel made by another instance is seen within this (one in this process at once).
    cancel_poll_s=float(os.environ.get("SDK_CANCEL_POLL_S", "0.2")),
)
