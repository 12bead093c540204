"""A webhook receiver for an agent's push notifications, verifying each one before trusting it.

Run the example agent (dev mode allows http://127.0.0.1 webhooks), then this receiver:

    a2a-serverless dev                          # the agent on http://127.0.0.1:8000
    python examples/webhook_receiver.py         # this receiver on http://127.0.0.1:9000/webhook

and send the agent a message with a push notification config (non-blocking, so the answer
comes by webhook):

    curl -s http://127.0.0.1:8000/ -H 'Content-Type: application/json' -d '{
      "jsonrpc": "2.0", "id": 1, "method": "message/send",
      "params": {
        "message": {"role": "user", "messageId": "m-1",
                    "parts": [{"kind": "text", "text": "Plan a weekend in Lisbon"}]},
        "configuration": {
          "blocking": false,
          "pushNotificationConfig": {"url": "http://127.0.0.1:9000/webhook",
                                     "token": "my-secret-token"}
        }
      }
    }'

Each notification is checked with `WebhookVerifier`: the JWT against the agent's JWKS
(/.well-known/jwks.json), the body's hash, the audience (this URL), its age, a replayed `jti`
and the token. Genuine ones are printed; a notification already seen (same
X-A2A-Notification-Id: delivery is at least once) is acknowledged and skipped. The answers tell
the agent what to do: 200 done, 401 rejected (not retried), 503 try again later.

Needs PyJWT[crypto] (`pip install 'PyJWT[crypto]'`). Options: --help.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from a2a_serverless.webhook_receiver import (
    KeySetUnavailable,
    NotificationRejected,
    VerifiedNotification,
    WebhookVerifier,
)

MAX_BODY = 10 * 1024 * 1024


class SeenNotifications:
    """The last few thousand notification ids, to drop duplicates."""

    def __init__(self, size: int = 10_000) -> None:
        self.size = size
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, notification_id: str | None) -> bool:
        if notification_id is None:
            return True
        with self._lock:
            if notification_id in self._ids:
                return False
            self._ids[notification_id] = None
            if len(self._ids) > self.size:
                self._ids.popitem(last=False)
            return True


def show(notification: VerifiedNotification) -> None:
    task = notification.task
    state = task.get("status", {}).get("state")
    print(
        f"task {notification.task_id} is {state} "
        f"(notification {notification.notification_id}, seq {notification.seq})"
    )
    message = task.get("status", {}).get("message") or {}
    for part in message.get("parts", []):
        if part.get("kind") == "text":
            print(f"  agent says: {part['text']}")
    for artifact in task.get("artifacts") or []:
        texts = [p["text"] for p in artifact.get("parts", []) if p.get("kind") == "text"]
        print(f"  artifact {artifact.get('name') or artifact.get('artifactId')}: {''.join(texts)}")
    sys.stdout.flush()


def make_handler(
    verifier: WebhookVerifier,
    *,
    path: str = "/webhook",
    on_notification: Any = show,
) -> type[BaseHTTPRequestHandler]:
    seen = SeenNotifications()

    class WebhookHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            # The ownership challenge some agents send before using a URL: echo the token.
            parts = urlsplit(self.path)
            token = parse_qs(parts.query).get("validationToken", [None])[0]
            if parts.path != path or token is None:
                self._answer(404, "not found")
                return
            self._answer(200, token)

        def do_POST(self) -> None:
            if urlsplit(self.path).path != path:
                self._answer(404, "not found")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._answer(413, "too large")
                return
            body = self.rfile.read(length)
            headers = {name: value for name, value in self.headers.items()}
            try:
                notification = verifier.verify_sync(headers, body)
            except NotificationRejected as rejected:
                print(f"rejected ({rejected.reason}): {rejected}", file=sys.stderr)
                self._answer(401, rejected.reason)
                return
            except KeySetUnavailable as unavailable:
                print(f"cannot verify now: {unavailable}", file=sys.stderr)
                self._answer(503, "try again later")
                return
            if seen.first_time(notification.notification_id):
                on_notification(notification)
            self._answer(200, "ok")

        def _answer(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # print notifications, not access logs

    return WebhookHandler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", default="http://127.0.0.1:8000", help="the agent's base URL")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--path", default="/webhook")
    parser.add_argument(
        "--public-url", help="this receiver's URL as given to the agent (the JWT audience)"
    )
    parser.add_argument("--token", help="the token given in the push config, if any")
    args = parser.parse_args(argv)
    audience = args.public_url or f"http://{args.host}:{args.port}{args.path}"
    verifier = WebhookVerifier(
        args.agent.rstrip("/") + "/.well-known/jwks.json", audience=audience, token=args.token
    )
    server = ThreadingHTTPServer((args.host, args.port), make_handler(verifier, path=args.path))
    print(f"receiving notifications at {audience} (keys from {verifier.jwks_url})")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
