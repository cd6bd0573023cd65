"""Strict JSON for the desk's documents: what ``json.loads`` accepts but an article must not hold.

:func:`loads_strict` parses like :func:`json.loads` and then refuses, with one clear message
and the line and column *of the file as written*:

* non-finite numbers: ``Infinity``, ``-Infinity``, ``NaN`` and literals that overflow a float
  (``1e400``): ``inf <= inf`` would pass any comparison, and no evidence is infinite;
* nesting deeper than :data:`MAX_DEPTH` (a 2 KB file of 1,000 brackets would otherwise exhaust
  the interpreter's recursion limit somewhere downstream);
* lone UTF-16 surrogates in strings (``"\\ud800"``): they cannot be encoded as UTF-8, so every
  later step would fail at a place in some re-serialised copy rather than in the user's file.

Every refusal raises :class:`UnsafeJSON` (a ``ValueError``) carrying ``line`` and ``column``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "UnsafeJSON", "loads_strict"]

#: The deepest nesting of objects and arrays a document may have (articles use about 6).
MAX_DEPTH = 64


class UnsafeJSON(ValueError):
    """A JSON text that parses but must be refused; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def _line_col(text: str, index: int) -> tuple[int, int]:
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


_CONSTANT_RE = re.compile(r"(?<![\w\"])(-?Infinity|NaN)(?![\w\"])")
_LONE_SURROGATE_RE = re.compile(
    r"(?<!\\)(?:\\\\)*\\u(?:[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|[dD][c-fC-F][0-9a-fA-F]{2})")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _where(text: str, pattern: re.Pattern[str]) -> tuple[int | None, int | None]:
    m = pattern.search(text)
    return _line_col(text, m.start()) if m else (None, None)


def _reject_constant(text: str) -> Callable[[str], Any]:
    def reject(token: str) -> Any:
        line, column = _where(text, _CONSTANT_RE)
        raise UnsafeJSON(f"non-finite number {token}: numbers must be finite", line, column)
    return reject


def _finite_float(text: str) -> Callable[[str], float]:
    def parse(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            pattern = re.compile(rf"(?<![\w.]){re.escape(literal)}(?![\w.])")
            line, column = _where(text, pattern)
            raise UnsafeJSON(f"number {literal} is too large to be finite", line, column)
        return value
    return parse


#: What a text needs for a parsed string to hold a surrogate: the escape of one, or one itself.
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_surrogates(text: str) -> bool:
    """A string parsed from ``text`` can hold a surrogate only when ``text`` escapes one or
    holds one raw: otherwise the walk need not look at the strings (most documents)."""
    return bool(_SURROGATE_ESCAPE_RE.search(text) or _SURROGATE_RE.search(text))


def _check_tree(data: Any, text: str) -> None:
    """Depth and lone surrogates, walked without recursion."""
    strings = _may_hold_surrogates(text)
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth > MAX_DEPTH:
                raise UnsafeJSON(f"nested more than {MAX_DEPTH} levels deep")
            for key, value in node.items():
                if strings:
                    _check_string(key, text)
                stack.append((value, depth + 1))
        elif isinstance(node, list):
            if depth > MAX_DEPTH:
                raise UnsafeJSON(f"nested more than {MAX_DEPTH} levels deep")
            stack.extend((value, depth + 1) for value in node)
        elif strings and isinstance(node, str):
            _check_string(node, text)


def _check_string(value: str, text: str) -> None:
    if _SURROGATE_RE.search(value):
        line, column = _where(text, _LONE_SURROGATE_RE)
        raise UnsafeJSON("a string holds a lone UTF-16 surrogate (\\ud800-\\udfff escape "
                         "without its pair), which is not valid Unicode text", line, column)


def loads_strict(text: str, **kwargs: Any) -> Any:
    """``json.loads(text, **kwargs)`` that refuses non-finite numbers, deep nesting and lone
    surrogates with :class:`UnsafeJSON`; other errors are json's own."""
    try:
        data = json.loads(text, parse_constant=_reject_constant(text),
                          parse_float=_finite_float(text), **kwargs)
    except RecursionError:
        raise UnsafeJSON(f"nested more than {MAX_DEPTH} levels deep") from None
    _check_tree(data, text)
    return data
