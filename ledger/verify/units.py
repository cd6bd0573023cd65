"""``unit-mismatch`` in the desk's own inference claims.

The body's figures are traced by :mod:`ledger.verify.tracing`; an inference claim states the
desk's own arithmetic ("two 200 Gb/s ports are 400 Gb/s, or 50 GB/s"), and a unit slip there
("50 Gb/s") is as wrong as one in the body. Each figure of a claim that has a unit (a size, a
rate, a duration...) is traced against the rest of the article's evidence: the facts, the
benchmark scope and its metrics, the other inferences, and the inference's own computation,
whose inputs and results are typed by their names (``node_gb_s`` is a rate in GB/s,
``port_gbps`` in Gb/s). A figure that traces to nothing while some evidence states its number
under another unit is a ``unit-mismatch`` error pointing at the claim; a figure that traces to
nothing for any other reason is left alone (an inference may state what no evidence does: that
is what it infers).

Names carry units too: a product named by its memory ("A800-80GB", "H100-80GB") is masked as a
name, not read as a figure, so :func:`check_name_units` compares such names with the evidence
text: a body name that the evidence never writes, while it writes the same name with another
unit of the same dimension ("A800-80GiB" where the facts say "A800-80GB"), is a
``unit-mismatch`` warning (a name is not a measurement, and the checker cannot be sure the
vendor does not sell both).
"""

from __future__ import annotations

import re
from decimal import Decimal

from ..models import Article, Computation, Inference
from ..quantities import (
    UNITS,
    Kind,
    Quantity,
    Verdict,
    metric_quantity,
    typed_figures,
    unit_quantity,
)
from ..report import Finding, Severity
from .matching import date_gap_traces
from .text import body_span
from .tracing import EvidenceIndex, EvidenceNumber, Miss, Trace, build_index, trace_figure

__all__ = ["check_inference_units", "check_name_units"]


def _own_computation(inf: Inference, base: str) -> list[EvidenceNumber]:
    """The inference's computation inputs and step results, typed by their names."""
    if inf.computation is None:
        return []
    # the numbers its expressions write ("1.23 * 2"): a claim that states an operand in its
    # unit ("at 2 bytes per parameter") states what the arithmetic used, untyped there
    out = [EvidenceNumber(Decimal(n), Trace("computation", f"{base}/computation/steps/{j}"
                                             "/expression", inference_id=inf.id))
           for j, step in enumerate(inf.computation.steps)
           for n in _OPERAND_RE.findall(step.expression)]
    named = [(f"{base}/computation/inputs/{name}", name, value)
             for name, value in inf.computation.inputs.items()]
    named += [(f"{base}/computation/steps/{j}/result", step.name, step.result)
              for j, step in enumerate(inf.computation.steps)]
    units = {step.name: unit_quantity(step.unit) for step in inf.computation.steps}
    for pointer, name, value in named:
        quantity = units.get(name) or _name_quantity(inf.computation, name)
        if quantity is not None and quantity.unit is not None:
            out.append(EvidenceNumber(Decimal(str(value)), Trace(
                "computation", pointer, inference_id=inf.id), quantity=quantity))
    return out


_OPERAND_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
#: An expression that converts between units (bits and bytes, decimal and binary prefixes):
#: its result's unit says nothing of its operands'.
_CONVERTS_RE = re.compile(r"[*/]\s*(?:8|1000|1024|1e3|1e6|1e9)\b")


def _name_quantity(computation: Computation, name: str) -> Quantity | None:
    """The quantity a computation name states. Names are lower case, so ``lane_gb_s`` cannot
    say gigabits from gigabytes: when a step that does not convert units uses the name and
    its result is in a unit that differs only in case ("lanes * lane_gb_s" giving Gb/s, by its
    ``unit`` field or an unambiguous name such as ``total_gbps``), the name is in that unit."""
    quantity = metric_quantity(name)
    if quantity is None or quantity.unit is None:
        return quantity
    symbol = quantity.unit.symbol
    for step in computation.steps:
        if step.name == name or not re.search(rf"\b{re.escape(name)}\b", step.expression) or (
                _CONVERTS_RE.search(step.expression)):
            continue
        result = unit_quantity(step.unit) or metric_quantity(step.name)
        if result is not None and result.unit is not None and (
                result.unit.symbol != symbol and result.unit.symbol.lower() == symbol.lower()):
            return result
    return quantity


def _index_for(index: EvidenceIndex, inf: Inference, base: str) -> EvidenceIndex:
    """The article's evidence without this claim itself, its computation typed by name."""
    own = _own_computation(inf, base)
    typed = {ev.trace.pointer for ev in own}
    numbers = [ev for ev in index.numbers
               if ev.trace.pointer != f"{base}/claim" and ev.trace.pointer not in typed]
    return EvidenceIndex(numbers + own, index.dates)


def _message(inf: Inference, text: str, unit: str, miss: Miss) -> str:
    assert miss.quantity is not None
    said = miss.quantity.unit.symbol if miss.quantity.unit else miss.quantity.describe()
    return (f"inference {inf.id}: {text!r} is written in {unit} but the evidence states "
            f"{format(miss.value.normalize(), 'f')} {said} ({miss.trace.describe()}); the "
            f"number agrees, the unit does not")


def check_inference_units(article: Article) -> list[Finding]:
    """``unit-mismatch`` for each figure of an inference claim whose number the evidence
    states only under another unit (see the module doc)."""
    if not article.inferences:
        return []
    index = build_index(article)
    findings: list[Finding] = []
    for i, inf in enumerate(article.inferences):
        base = f"/inferences/{i}"
        local: EvidenceIndex | None = None
        for fig, q in typed_figures(inf.claim):
            if q.unit is None and not (q.kind is Kind.count and q.noun_class == "token"):
                continue
            local = local or _index_for(index, inf, base)
            traced = trace_figure(fig, local, q)
            miss = next((m for m in traced.misses if m.verdict is Verdict.unit), None)
            if traced.traced or miss is None or date_gap_traces(local, fig, q):
                continue  # ("24 days apart": the gap between two of its dates)
            unit = q.unit.symbol if q.unit else "tokens"
            findings.append(Finding(Severity.error, "unit-mismatch",
                                    _message(inf, fig.text, unit, miss), f"{base}/claim"))
    return findings


#: A name that ends in a number and a size unit: "A800-80GB", "H100-80GiB", "MI300X-192GB".
_NAMED_SIZE = re.compile(r"(?<![\w-])(?P<stem>[A-Za-z][\w.]*?\d[\w.]*-(?P<n>\d+(?:\.\d+)?))"
                         r"(?P<u>[KMGTP]i?[Bb])(?![\w/])")


def _evidence_texts(article: Article) -> list[str]:
    texts = [f.claim for f in article.facts]
    for inf in article.inferences:
        texts += [inf.claim, *(inf.assumptions or [])]
    scope = article.benchmark_scope
    if scope is not None:
        texts += [t for t in (scope.hardware, scope.topology, scope.workload, scope.model,
                              scope.separate_scaling_experiment) if t]
    return texts


def check_name_units(article: Article) -> list[Finding]:
    """``unit-mismatch`` (warning) for a name with a size in the body whose unit differs from
    the same name in the evidence (see the module doc)."""
    evidence = {(m.group("stem"), m.group("u")) for t in _evidence_texts(article)
                for m in _NAMED_SIZE.finditer(t)}
    findings = []
    for m in _NAMED_SIZE.finditer(article.body):
        stem, unit = m.group("stem"), m.group("u")
        if (stem, unit) in evidence or unit not in UNITS:
            continue
        others = sorted(u for s, u in evidence if s == stem and u != unit and u in UNITS
                        and UNITS[u].dimension == UNITS[unit].dimension)
        if others:
            findings.append(body_span(
                article, m.start(), m.end(), Severity.warning, "unit-mismatch",
                f"{m.group()!r} is written with {unit}, but the evidence names it "
                f"{stem}{others[0]}; the name agrees, the unit does not (a name, so the "
                f"checker cannot be sure)"))
    return findings
