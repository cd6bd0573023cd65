"""Map a place in the decoded body to the same place in the JSON file (inside the string).

SARIF and editors point into the file as written, where the body is one escaped JSON string:
``\\n`` takes two characters, ``\\u00e9`` six. :func:`body_locator` finds the body's string in
the file text and returns a function from a body offset to a 1-based (line, column) of the file,
columns in Unicode code points.
"""

from __future__ import annotations

import json
import re
from typing import Callable

__all__ = ["body_locator", "file_line_col"]

_BODY_KEY_RE = re.compile(r'"body"\s*:\s*"')


def file_line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _raw_offsets(text: str, start: int) -> list[int]:
    """For each decoded character of the string at ``text[start]`` (after the quote), its raw
    index in ``text``; the last entry is the closing quote."""
    offsets, i = [], start
    while text[i] != '"':
        offsets.append(i)
        if text[i] != "\\":
            i += 1
        elif text[i + 1] != "u":
            i += 2
        else:
            code = int(text[i + 2:i + 6], 16)
            is_pair = 0xD800 <= code < 0xDC00 and text[i + 6:i + 8] == "\\u"
            i += 12 if is_pair else 6
    offsets.append(i)
    return offsets


def body_locator(file_text: str, body: str) -> Callable[[int], tuple[int, int]] | None:
    """A function body offset -> file (line, column), or None when the body is not found."""
    decoder = json.JSONDecoder()
    for m in _BODY_KEY_RE.finditer(file_text):
        try:
            value, _ = decoder.raw_decode(file_text, m.end() - 1)
        except ValueError:
            continue
        if value == body:
            offsets = _raw_offsets(file_text, m.end())
            return lambda offset: file_line_col(file_text, offsets[min(offset, len(offsets) - 1)])
    return None
