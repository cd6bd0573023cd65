"""Verification levels of measurements, facts and figures, derived from the ledger.

Four levels, in order (after ACM's artifact badges):

``reported``
    a figure a source published; the desk has not measured it.
``measured``
    a figure from a desk run recorded in the ledger.
``reproduced``
    a later rerun of that run's configuration held the figure within its tolerance (the
    reproduction is in the ledger with its date and machine).
``independently-reproduced``
    such a rerun on another machine, or by another person.

Nobody types a level: :func:`article_levels` derives it from the article's evidence (a source's
fact is ``reported``, a measurement ``measured``) and from the reproductions the ledger recorded
(:class:`Reproduction`, appended by ``ledger reproduce``). A fact backed by measurements takes
the lowest level among them; a figure takes the highest level among the evidence it traces to.
This module needs no database: the caller passes the reproductions of each run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .models import Article
from .verify.tracing import TracedFigure

__all__ = [
    "MACHINE_KEYS",
    "Level",
    "LevelInfo",
    "Reproduction",
    "ReproductionsFor",
    "article_levels",
    "figure_level",
    "figure_levels",
    "machine_fingerprint",
    "metric_level",
    "same_machine",
]

#: Environment keys that identify a machine (those a run recorded are compared).
MACHINE_KEYS = ("machine_id", "cpu", "cpu_count", "memory_bytes", "machine", "os")


class Level(str, Enum):
    reported = "reported"
    measured = "measured"
    reproduced = "reproduced"
    independently_reproduced = "independently-reproduced"

    @property
    def rank(self) -> int:
        return list(Level).index(self)


@dataclass(frozen=True)
class LevelInfo:
    """A level and what it rests on, in words."""

    level: Level
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"level": self.level.value, "detail": self.detail}


@dataclass(frozen=True)
class Reproduction:
    """One rerun of a recorded run: when, where, by whom, and which metrics held."""

    original: str
    run_id: str
    date: str
    machine: str
    operator: str | None
    revision: str | None
    independent: bool
    held: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    figures: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        return {"original": self.original, "run_id": self.run_id, "date": self.date,
                "machine": self.machine, "operator": self.operator, "revision": self.revision,
                "independent": self.independent, "ok": self.ok, "held": list(self.held),
                "failed": list(self.failed), "figures": self.figures}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reproduction:
        return cls(str(data["original"]), str(data["run_id"]), str(data["date"]),
                   str(data["machine"]), data.get("operator"), data.get("revision"),
                   bool(data.get("independent")), tuple(data.get("held", ())),
                   tuple(data.get("failed", ())), list(data.get("figures", [])))


#: run id -> the reproductions the ledger recorded for it (oldest first).
ReproductionsFor = Callable[[str], Sequence[Reproduction]]


def machine_fingerprint(environment: dict[str, Any]) -> str:
    """A short digest of the machine-identifying part of a run's environment."""
    ident = {k: environment.get(k) for k in MACHINE_KEYS if environment.get(k) is not None}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]


def same_machine(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two environments describe the same machine, on the keys both recorded (a
    ``machine_id`` in both decides alone)."""
    if a.get("machine_id") and b.get("machine_id"):
        return bool(a["machine_id"] == b["machine_id"])
    keys = [k for k in MACHINE_KEYS if a.get(k) is not None and b.get(k) is not None]
    return all(a[k] == b[k] for k in keys)


def metric_level(run_id: str, metric: str, reproductions: Iterable[Reproduction]) -> LevelInfo:
    """The level of one metric of a recorded run: ``measured`` unless a rerun held it."""
    best = LevelInfo(Level.measured, f"run {run_id}")
    for r in reproductions:
        if metric not in r.held:
            continue
        level = Level.independently_reproduced if r.independent else Level.reproduced
        if level.rank > best.level.rank or best.level is Level.measured:
            best = LevelInfo(level, f"{level.value} {r.date[:10]} on machine {r.machine} "
                                    f"(run {r.run_id})")
    return best


def _lowest(infos: Iterable[LevelInfo], default: LevelInfo) -> LevelInfo:
    found = list(infos)
    return min(found, key=lambda i: i.level.rank) if found else default


def article_levels(article: Article,
                   reproductions_for: ReproductionsFor | None = None) -> dict[str, LevelInfo]:
    """The level of every measurement (``M#``), fact (``F#``) and inference (``I#``)."""
    lookup = reproductions_for or (lambda _run: ())
    levels: dict[str, LevelInfo] = {}
    for m in article.measurements or []:
        levels[m.id] = metric_level(m.run_id, m.metric, lookup(m.run_id))
    for f in article.facts:
        backing = [levels[x] for x in f.measurement_ids or [] if x in levels]
        levels[f.id] = _lowest(backing, LevelInfo(Level.reported, f"sources {', '.join(f.source_ids)}"))
    for i in article.inferences:
        basis = [levels[x] for x in i.basis_fact_ids if x in levels]
        levels[i.id] = _lowest(basis, LevelInfo(Level.reported, "an inference"))
    return levels


def figure_level(traced: TracedFigure, levels: dict[str, LevelInfo]) -> LevelInfo | None:
    """The highest level among the evidence a figure traces to; None for an untraced figure
    or a date."""
    if not traced.traces or traced.figure.date is not None:
        return None
    found = []
    for t in traced.traces:
        key = t.measurement_id or t.fact_id or t.inference_id
        found.append(levels.get(key, LevelInfo(Level.reported, t.describe())) if key
                     else LevelInfo(Level.reported, t.describe()))
    return max(found, key=lambda i: i.level.rank)


def figure_levels(article: Article, traced: Sequence[TracedFigure],
                  reproductions_for: ReproductionsFor | None = None) -> list[str]:
    """The level of each traced figure as a column value (``-`` for dates and untraced)."""
    levels = article_levels(article, reproductions_for)
    infos = [figure_level(t, levels) for t in traced]
    return [info.level.value if info is not None else "-" for info in infos]
