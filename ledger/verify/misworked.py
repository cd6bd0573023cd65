"""A figure that stands where one of the desk's computation steps puts its result, with another
value: the body works a sum from the step's own operands and gets it wrong.

An inference's computation says how the desk gets a figure ("cores * sram_mb = 224 MB", from 8
cores and 28 MB). A body sentence that states one of those operands ("28 MB of SRAM per core")
and, beside it, a figure of the step's unit that traces to nothing ("which comes to 256 MB per
chip") restates the step's result wrongly: an ``arithmetic`` finding beside the
``untraced-figure``, naming the step and what it gives.

A figure *stands as the step's result* when it is of the step's unit (a size in MB for a step
in MB, a percent for a step in %, a bare number for any step) and either lies within a factor
of two of the step's result (a slipped digit, a wrong product) or is stated as a result ("is",
"comes to", "makes"); the operand must be a number worth matching (not 0, 1, 2, 10 or 100,
which every article has). A sentence that says it is the desk's count ("By the desk's count,
... 296 days apart") needs no operand: a figure of a step's unit there is that step's result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..figures import quantize
from ..models import Article, ComputationStep, Inference
from ..quantities import Kind, Quantity, typed_figures

__all__ = ["Misworked", "misworked_step"]

#: Operand values too common to say which sum a sentence works (a halving, a percent).
_COMMON = frozenset({Decimal(0), Decimal(1), Decimal(2), Decimal(10), Decimal(100)})
_NAME_RE = re.compile(r"[A-Za-z_]\w*")
_LITERAL_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@dataclass(frozen=True)
class Misworked:
    """The step of ``inference`` whose result the figure restates, and the operand the
    sentence shares with it (None where the sentence says it is the desk's count)."""

    inference: Inference
    step: ComputationStep
    operand: Decimal | None

    def describe(self) -> str:
        result = format(Decimal(repr(round(float(self.step.result), 4))).normalize(), "f")
        unit = f" {self.step.unit}" if self.step.unit else ""
        shared = (f", from {format(self.operand.normalize(), 'f')} in this sentence"
                  if self.operand is not None else "")
        return (f"inference {self.inference.id}'s step {self.step.name} "
                f"({self.step.expression}{shared}) gives {result}{unit}")


def _step_quantity(step: ComputationStep) -> Quantity | None:
    if not step.unit:
        return None
    typed = typed_figures(f"1 {step.unit.replace('%', ' percent')}")
    return typed[0][1] if typed else None


def _fits(figure: Quantity | None, step: Quantity | None, has_unit: bool, ratio: bool) -> bool:
    """The figure is of the step's unit: a bare number is of any step's; a multiplier or a
    percent of a step without a unit that divides (a ratio); otherwise the two agree in kind
    and, where both have one, in the dimension of their units."""
    if figure is None or figure.kind is Kind.number:
        return True
    if step is None:
        return not has_unit and (figure.kind is Kind.count or (
            ratio and figure.kind in (Kind.multiplier, Kind.percent)))
    if figure.kind is not step.kind:
        return False
    if figure.unit is not None and step.unit is not None:
        return figure.unit.dimension == step.unit.dimension
    if figure.kind is Kind.count:
        return (figure.noun_class or figure.noun) == (step.noun_class or step.noun)
    return True


def _operands(inf: Inference, step: ComputationStep) -> list[Decimal]:
    """The values the step's expression names: inputs and earlier steps' results."""
    assert inf.computation is not None
    known = {k: Decimal(repr(float(v))) for k, v in inf.computation.inputs.items()}
    for s in inf.computation.steps:
        if s is step:
            break
        known[s.name] = Decimal(repr(float(s.result)))
    names = [known[n] for n in _NAME_RE.findall(step.expression) if n in known]
    literals = [Decimal(x) for x in _LITERAL_RE.findall(step.expression)]  # "49.12 - 45.41"
    # the inputs an earlier step took ("100 * (1 - 0.08)", then "100 - new_hours"): the
    # sentence may state them rather than the intermediate result
    inputs = [Decimal(repr(float(v))) for v in inf.computation.inputs.values()]
    return names + literals + inputs


def _shares(values: list[Decimal], decimals: int, operands: list[Decimal]) -> Decimal | None:
    """An operand the sentence states: as written, or a fraction as its percent (0.58, 58%)."""
    for v in values:
        for o in operands:
            if o in _COMMON:
                continue
            if quantize(o, decimals) == v or (0 < o < 1 and quantize(o * 100, decimals) == v):
                return o
    return None




def misworked_step(article: Article, value: Decimal, quantity: Quantity | None,
                   others: list[tuple[list[Decimal], int]], *, as_result: bool,
                   desk_count: bool) -> Misworked | None:
    """The computation step whose result an untraced figure of ``value`` restates wrongly, given
    the values (and printed decimals) of the other figures of its sentence; None when no step
    fits (see the module doc)."""
    for inf in article.inferences:
        if inf.computation is None:
            continue
        for step in inf.computation.steps:
            result = Decimal(repr(float(step.result)))
            if result <= 0 or not _fits(quantity, _step_quantity(step), bool(step.unit),
                                        "/" in step.expression):
                continue
            if desk_count and quantity is not None and quantity.kind is not Kind.number:
                return Misworked(inf, step, None)
            operands = _operands(inf, step)
            shared = next((o for vs, d in others if (o := _shares(vs, d, operands)) is not None),
                          None)
            near = result / 2 <= value <= result * 2
            if shared is not None and (near or as_result):
                return Misworked(inf, step, shared)
    return None
