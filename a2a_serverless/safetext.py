"""Client text made safe to show on a terminal or in a text log line.

Ids, names and message text come from clients and may hold control characters: ESC (and the C1
CSI, U+009B) starts a terminal escape sequence that retitles the window, erases lines or moves
the cursor; BEL rings; CR and LF start what looks like a new row of a table or a new log line of
our own; the Unicode bidi controls reorder what follows them on the line. `escape_controls`
writes each of them as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``), leaving every other
character, non-ASCII letters and emoji included, as it is. `EscapingFormatter` does that to each
text log line; `escape_json_text` does the same inside a JSON document, where C0 controls are
already escaped by the encoder and the others get a JSON ``\\uXXXX`` escape.
"""

from __future__ import annotations

import logging
import re

# C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi controls
# (marks, embeddings, overrides, isolates).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# What a JSON encoder leaves raw of the above (it escapes C0 controls itself).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character written as a visible escape (see the module)."""
    return _UNSAFE.sub(_escape, text)


def escape_json_text(document: str) -> str:
    """A JSON document (from `json.dumps(..., ensure_ascii=False)`) with the control
    characters its encoder left raw written as ``\\uXXXX``: the same JSON, safe to print."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", document)


class EscapingFormatter(logging.Formatter):
    """A text log formatter whose lines cannot be forged: the message (client ids, URLs and
    reasons in it included) has its control characters escaped, so a newline in a logged id
    cannot start a fake log line. A traceback, the formatter's own text, follows as usual."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_controls(super().formatMessage(record))
