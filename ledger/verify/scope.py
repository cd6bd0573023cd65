"""Work shared between the checks of one article: computed once per ``verify_article`` call.

Several checks read the same things from an article (its evidence index, the intervals of its
body). :func:`per_article` wraps such a function of an article so that, inside
:func:`article_scope`, each article's result is computed once and handed to every later caller;
outside a scope it simply calls through. The memo lives only as long as the scope, so an article
changed between two ``verify_article`` calls is read afresh, and nothing is kept across articles.

A wrapped function must be pure in the article and its other arguments, and its callers must
not change what it returns. A list argument (the body's traced figures) is taken by its
identity: the scope keeps it alive, and no caller changes it while the scope lasts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["article_scope", "per_article", "per_scope"]

R = TypeVar("R")

_memo: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("ledger_verify_memo",
                                                                  default=None)


@contextmanager
def article_scope() -> Iterator[None]:
    """Share per-article results between the calls made inside this block."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def per_article(fn: Callable[..., R]) -> Callable[..., R]:
    """Memoise ``fn(article, *args)`` by the article's identity inside :func:`article_scope`."""

    @functools.wraps(fn)
    def wrapper(article: Any, *args: Any) -> R:
        memo = _memo.get()
        if memo is None:
            return fn(article, *args)
        key = (fn, id(article), tuple(id(a) if isinstance(a, list) else a for a in args))
        hit = memo.get(key)
        if hit is None:
            # the article (and each list) is kept alive by the memo, so its id is not reused
            hit = memo[key] = (fn(article, *args), article, args)
        return hit[0]  # type: ignore[no-any-return]

    return wrapper


def per_scope(fn: Callable[..., R]) -> Callable[..., R]:
    """Memoise ``fn(*args)`` (hashable arguments, such as a paragraph's text) inside
    :func:`article_scope`: the checks of one article that ask the same question share the
    answer, and the memo ends with the article."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        memo = _memo.get()
        if memo is None:
            return fn(*args, **kwargs)
        key = (fn, args, tuple(sorted(kwargs.items())))
        if key not in memo:
            memo[key] = fn(*args, **kwargs)
        return memo[key]  # type: ignore[no-any-return]

    return wrapper
