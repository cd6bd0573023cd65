"""What articles publish from a run, and whether a rerun still holds each figure.

:func:`cited_figures` finds, in the latest version of every ingested article, each body figure
that traces to a measurement citing a run (directly, or through ``derived_from`` over
measurements of that run), with its sentence. :func:`figure_holds` says whether a rerun's value
of that metric still supports the printed figure:

* a range ``a-b`` holds when the rerun's value, at the printed precision, lies inside it;
* a single value holds when the rerun's value is within the tolerance the run's configuration
  states: ``rate_tolerance`` (absolute) for a fraction, ``ratio_tolerance`` (relative) for
  anything else.

A figure that does not hold on a loaded machine must therefore be published as a range.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from .articles import list_articles
from .figures import Figure, FigureKind, quantize
from .models import Article, Measurement
from .tables import LogEntry, sql_table
from .verify.arithmetic import ArithmeticError_, evaluate
from .verify.prose import enclosing, sentences
from .verify.spread import measurement_traces
from .verify.tracing import trace_figures

__all__ = ["CitedFigure", "cited_figures", "figure_holds", "measurement_value"]

_IDS = re.compile(r"\bM[1-9][0-9]*\b")


@dataclass(frozen=True)
class CitedFigure:
    """A body figure of an article that rests on a measurement of a run."""

    article_id: str
    version: int
    measurement: Measurement
    inputs: tuple[Measurement, ...]
    figure: Figure
    sentence: str

    @property
    def metric(self) -> str:
        return self.measurement.metric

    def to_dict(self) -> dict[str, Any]:
        return {"article": self.article_id, "version": self.version,
                "measurement": self.measurement.id, "metric": self.metric,
                "figure": self.figure.text, "sentence": self.sentence}


def _runs_of(m: Measurement, by_id: Mapping[str, Measurement]) -> tuple[set[str], list[Measurement]]:
    """The runs a measurement rests on, and its inputs when it is derived."""
    if m.derived_from is None:
        return {m.run_id}, []
    names = set(_IDS.findall(m.derived_from.expression))
    inputs = [by_id[n] for n in sorted(names) if n in by_id and n != m.id]
    return {x.run_id for x in inputs}, inputs


def _article_figures(article: Article, version: int, run_id: str) -> list[CitedFigure]:
    by_id = {m.id: m for m in article.measurements or []}
    spans = sentences(article.body)
    found = []
    for traced in trace_figures(article):
        ids = measurement_traces(traced)
        for mid in ids[:1]:  # a figure rests on its first matching measurement
            m = by_id[mid]
            runs, inputs = _runs_of(m, by_id)
            if run_id not in runs and m.run_id != run_id:
                continue
            span = enclosing(spans, traced.figure.start, traced.figure.end)
            found.append(CitedFigure(article.id, version, m, tuple(inputs), traced.figure,
                                     span.text.strip() if span else traced.figure.text))
    return found


def _document(conn: Connection, seq: int) -> dict[str, Any]:
    t = sql_table(LogEntry)
    payload = conn.execute(sa.select(t.c.payload).where(t.c.seq == seq)).scalar_one()
    return dict(json.loads(payload)["data"]["document"])


def cited_figures(conn: Connection, run_id: str,
                  article_id: str | None = None) -> list[CitedFigure]:
    """Every figure the latest version of each ingested article (or of ``article_id``) prints
    from ``run_id``."""
    out: list[CitedFigure] = []
    for version in list_articles(conn):
        if article_id is not None and version.article_id != article_id:
            continue
        article = Article.model_validate_json(json.dumps(_document(conn, version.entry_seq)))
        out += _article_figures(article, version.version, run_id)
    return out


def measurement_value(cited: CitedFigure, metrics: Mapping[str, float]) -> float | None:
    """The measurement's value in a run whose metrics are ``metrics`` (name -> value):
    the metric itself, or its ``derived_from`` expression over the inputs' metrics."""
    m = cited.measurement
    if m.derived_from is None:
        return metrics.get(m.metric)
    names = {x.id: metrics.get(x.metric) for x in cited.inputs}
    if any(v is None for v in names.values()):
        return None
    try:
        return evaluate(m.derived_from.expression, {k: float(v) for k, v in names.items()
                                                    if v is not None})
    except (ArithmeticError_, ZeroDivisionError):
        return None


def _scale(figure: Figure, unit: str) -> Decimal:
    percent_unit = unit.strip().lower() in ("%", "percent", "pct")
    is_percent = figure.kind is FigureKind.percent or (figure.unit or "").strip() == "%"
    return Decimal(100) if is_percent and not percent_unit else Decimal(1)


def figure_holds(figure: Figure, value: float | None, unit: str,
                 tolerances: Mapping[str, float]) -> tuple[bool, str]:
    """Whether ``value`` (in the measurement's unit) still supports the printed figure."""
    if value is None or figure.value is None:
        return False, "the rerun does not report it"
    scale = _scale(figure, unit)
    printed = quantize(Decimal(repr(value)) * scale, figure.decimals)
    if figure.upper is not None and figure.value <= printed <= figure.upper:
        return True, f"rerun {printed} is inside the printed range"
    # A range is a few rounds' spread, not a bound: the rerun is held to the tolerance a single
    # figure gets, measured from the range's nearer end.
    nearer = figure.value
    if figure.upper is not None and printed > figure.upper:
        nearer = figure.upper
    where = "" if figure.upper is None else f" outside the printed range, nearer end {nearer}:"
    stated = float(nearer / scale)
    if unit.strip() == "fraction":
        diff, limit = abs(value - stated), tolerances.get("rate", 0.05)
        return diff <= limit, (f"rerun {printed}{where} {diff:.3f} apart"
                               f" (tolerance {limit:g} absolute)")
    diff = abs(value - stated) / abs(stated) if stated else abs(value)
    limit = tolerances.get("ratio", 0.35)
    return diff <= limit, (f"rerun {printed}{where} {diff:.0%} apart"
                           f" (tolerance {limit:.0%} relative)")
