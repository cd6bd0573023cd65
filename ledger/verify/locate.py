"""Map findings to places in the JSON file: body spans inside the escaped string, pointers to
the value they name.

SARIF and editors point into the file as written, where the body is one escaped JSON string:
``\\n`` takes two characters, ``\\u00e9`` six. :func:`body_locator` finds the body's string in
the file text and returns a function from a body offset to a 1-based (line, column) of the file,
columns in Unicode code points.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace

from ..report import Finding

__all__ = ["body_locator", "file_line_col", "locate_findings", "pointer_positions"]

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


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _walk(text: str, i: int, pointer: str, out: dict[str, int],
          decoder: json.JSONDecoder) -> int:
    """Record the start of the value at ``text[i:]`` (and of every value inside it)."""
    i = _skip(text, i)
    out[pointer] = i
    opener = text[i]
    if opener not in "{[":
        return decoder.raw_decode(text, i)[1]
    closer, index, i = ("}" if opener == "{" else "]"), 0, _skip(text, i + 1)
    while text[i] != closer:
        if opener == "{":
            key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            i = _skip(text, i) + 1  # the colon
            child = f"{pointer}/{_escape(key)}"
        else:
            child, index = f"{pointer}/{index}", index + 1
        i = _skip(text, _walk(text, i, child, out, decoder))
        if text[i] == ",":
            i = _skip(text, i + 1)
    return i + 1


def pointer_positions(file_text: str) -> dict[str, tuple[int, int]]:
    """JSON pointer -> 1-based (line, column) where that value starts in ``file_text``.

    Returns an empty mapping for text that is not valid JSON.
    """
    starts: dict[str, int] = {}
    try:
        _walk(file_text, 0, "", starts, json.JSONDecoder())
    except (ValueError, IndexError):
        return {}
    return {p: file_line_col(file_text, i) for p, i in starts.items()}


def _body_offset(body: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = body.index("\n", start) + 1
    return start + column - 1


def _offset_of(text: str, pointer: str, decoder: json.JSONDecoder) -> int:
    """Where the value at ``pointer`` starts in ``text``, or its nearest existing parent: a
    descent along the pointer that skips every other value whole (the decoder reads those in
    C, so a finding costs one pass over the text at most)."""
    i = _skip(text, 0)
    for part in pointer.split("/")[1:] if pointer else []:
        part = part.replace("~1", "/").replace("~0", "~")
        opener = text[i]
        if opener not in "{[":
            return i
        closer, index, j = ("}" if opener == "{" else "]"), 0, _skip(text, i + 1)
        found = None
        while text[j] != closer:
            if opener == "{":
                key, j = json.decoder.scanstring(text, j + 1)  # type: ignore[attr-defined]
                j = _skip(text, _skip(text, j) + 1)  # the colon
                hit = key == part
            else:
                hit, index = str(index) == part, index + 1
                j = _skip(text, j)
            if hit:
                found = j
                break
            j = _skip(text, decoder.raw_decode(text, j)[1])
            if text[j] == ",":
                j = _skip(text, j + 1)
        if found is None:
            return i
        i = found
    return i


def _nearest_pointer(file_text: str, pointer: str, decoder: json.JSONDecoder
                     ) -> tuple[int, int]:
    try:
        return file_line_col(file_text, _offset_of(file_text, pointer, decoder))
    except (ValueError, IndexError):
        return 1, 1


def locate_findings(file_text: str, body: str | None, findings: list[Finding]) -> list[Finding]:
    """Fill ``file_line``/``file_column``: body spans inside the escaped string, other findings
    at the value their pointer names (or its nearest existing parent)."""
    if not findings:
        return findings
    # the body's map only when a body finding needs it; other values found one by one
    decoder = json.JSONDecoder()
    locate = body_locator(file_text, body) if body is not None and any(
        f.file_line is None and f.pointer == "/body" for f in findings) else None
    out = []
    for f in findings:
        if f.file_line is None:
            if f.pointer == "/body" and f.line and f.column and locate is not None:
                line, column = locate(_body_offset(body or "", f.line, f.column))
            else:
                line, column = _nearest_pointer(file_text, f.pointer, decoder)
            f = replace(f, file_line=line, file_column=column)
        out.append(f)
    return out
