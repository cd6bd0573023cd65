"""Helpers shared by the verify tests: mutate the desk's article, write it, verify the real file.

A test builds its case from small steps (:data:`Mutation`): evidence added to the article
(:func:`add_fact`, :func:`add_metric`, :func:`add_inference`), then the prose under test
(:func:`adding` a sentence after the S4 paragraph's close, :func:`replacing` a phrase), and
verifies the result with :func:`verify_with`; :func:`rules_at` reads what was found at a phrase.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ledger.models import Article
from ledger.report import FileResult, Finding
from ledger.verify import verify_file
from ledger.verify.consistency import word_count

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
SECOND = ROOT / "claims" / "pct-2026-11-29-spotlight-sglang-hicache.json"

Doc = dict[str, Any]
Mutation = Callable[[Doc], None]

#: The sentence that closes the seed's paragraph on the S4 report: tests add sentences after it,
#: where the authors' results are already credited.
CLOSE = "These are the authors' results, not PCT measurements."
AUTHOR_REPORTED = "author_reported_benchmark_not_independently_reproduced"
DOCUMENTATION = "primary_documentation"


def load(path: Path = SEED) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def replace_body(doc: dict[str, Any], old: str, new: str) -> None:
    """Replace ``old`` (which must occur exactly once) in the body: a mutation that fails loudly
    when the article changes under it, so the corpus stays in step with the article."""
    count = doc["body"].count(old)
    assert count == 1, f"{old!r} occurs {count} times in the body"
    doc["body"] = doc["body"].replace(old, new)


def add_fact(doc: Doc, claim: str, evidence_type: str = AUTHOR_REPORTED, *,
             fact_id: str | None = None) -> None:
    """A fact citing S4 (the seed's May 6 report), numbered after the article's facts."""
    doc["facts"].append({"id": fact_id or f"F{len(doc['facts']) + 1}", "claim": claim,
                         "source_ids": ["S4"], "evidence_type": evidence_type})


def add_metric(doc: Doc, name: str, value: float, label: str, vocabulary: list[str],
               kind: str, experiment: str | None = None) -> None:
    """A reported metric of the benchmark scope, with its spec."""
    scope = doc["benchmark_scope"]
    scope["reported_metrics"][name] = value
    spec: dict[str, Any] = {"label": label, "kind": kind, "vocabulary": vocabulary}
    if experiment:
        spec["experiment"] = experiment
    scope.setdefault("metric_specs", {})[name] = spec


def add_inference(doc: Doc, claim: str, *, basis_fact_ids: tuple[str, ...] = (),
                  inputs: dict[str, float] | None = None,
                  steps: tuple[tuple[str, str, float], ...] = ()) -> int:
    """A desk inference ("PCT analysis"), with a computation when ``inputs`` are given
    (``steps`` as (name, expression, result)); returns its index."""
    inference: dict[str, Any] = {"id": f"I{len(doc['inferences']) + 1}", "claim": claim,
                                 "basis_fact_ids": list(basis_fact_ids), "label": "PCT analysis"}
    if inputs is not None:
        inference["computation"] = {
            "inputs": inputs,
            "steps": [{"name": n, "expression": e, "result": r} for n, e, r in steps]}
    doc["inferences"].append(inference)
    return len(doc["inferences"]) - 1


def add_sentence(doc: Doc, sentence: str) -> None:
    """``sentence`` after :data:`CLOSE`, in the paragraph that credits the authors."""
    replace_body(doc, CLOSE, CLOSE + " " + sentence)


def adding(sentence: str) -> Mutation:
    """The step that adds ``sentence`` after :data:`CLOSE`."""
    return lambda doc: add_sentence(doc, sentence)


def replacing(old: str, new: str) -> Mutation:
    """The step that replaces ``old`` (which must occur once) by ``new`` in the body."""
    return lambda doc: replace_body(doc, old, new)


#: The seed's last paragraph opens with this: :func:`paragraph` puts a paragraph before it.
LAST = "Before assigning monetary value to a cache hit"


def paragraph(text: str) -> Mutation:
    """The step that adds ``text`` as a paragraph of its own before the seed's last one."""
    return replacing(LAST, text + "\n\n" + LAST)


def guardrail(text: str, rule: dict[str, Any] | None = None) -> Mutation:
    """The step that adds a pre-publication guardrail ``G9`` with ``text`` (and ``rule``)."""
    def add(doc: Doc) -> None:
        doc["corrections"].append({"id": "G9", "status": "prepublication_guardrail",
                                   "text": text, **({"rule": rule} if rule else {})})
    return add


def fact(claim: str, evidence_type: str = AUTHOR_REPORTED) -> Mutation:
    """The step that adds a fact citing S4 (:func:`add_fact`)."""
    return lambda doc: add_fact(doc, claim, evidence_type)


def verify_with(tmp_path: Path, *steps: Mutation, recount: bool = True,
                source: Path = SEED) -> tuple[Doc, FileResult]:
    """The article with each of ``steps`` applied in order, written and verified."""
    def mutate(doc: Doc) -> None:
        for step in steps:
            step(doc)
    return verify_mutant(tmp_path, mutate, recount=recount, source=source)


def verify_mutant(tmp_path: Path, mutation: Mutation, *, recount: bool = True,
                  source: Path = SEED) -> tuple[Doc, FileResult]:
    doc = copy.deepcopy(load(source))
    mutation(doc)
    if recount:  # keep the word count honest unless the mutation is about it
        doc["editorial_word_count"] = word_count(doc["body"])
    path = tmp_path / "mutant.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc, verify_file(path)


def span(body: str, text: str, nth: int = 0) -> tuple[int, int, int]:
    """(line, column, end_column) of the ``nth`` occurrence of ``text`` in ``body``."""
    start = -1
    for _ in range(nth + 1):
        start = body.index(text, start + 1)
    line = body.count("\n", 0, start) + 1
    column = start - (body.rfind("\n", 0, start) + 1) + 1
    return line, column, column + len(text)


def findings_at(result: FileResult, doc: Doc, text: str, nth: int = 0) -> list[Finding]:
    """Body findings that overlap the ``nth`` occurrence of ``text`` in ``doc``'s body."""
    line, column, end = span(doc["body"], text, nth)
    return [f for f in result.findings if f.pointer == "/body"
            and f.line == line and f.column is not None and f.end_column is not None
            and f.column < end and column < f.end_column]


def rules_at(result: FileResult, doc: Doc, text: str, nth: int = 0) -> dict[str, str]:
    """Rule -> severity of the body findings that overlap the ``nth`` occurrence of ``text``."""
    return {f.rule: f.severity.value for f in findings_at(result, doc, text, nth)}


def at(result: FileResult, rule: str, where: tuple[int, int, int] | str) -> list[Finding]:
    """Findings of ``rule`` at a body span (line, column, end) or at a JSON pointer."""
    if isinstance(where, str):
        return [f for f in result.findings if f.rule == rule and f.pointer == where]
    line, column, end = where
    # a guardrail or mislabel finding spans the figure and the word that breaks it or that it
    # contradicts, a conflation the stretch from one experiment's figure to the other's, an
    # unattributed paragraph's finding every figure of its line: each holds the figure's span;
    # every other finding sits exactly on it
    return [f for f in result.findings if f.rule == rule and f.pointer == "/body"
            and f.line == line and f.column is not None and f.end_column is not None
            and ((f.column, f.end_column) == (column, end) or (
                rule in ("guardrail", "conflated-experiments", "mislabeled-figure",
                         "unattributed-figure")
                and f.column <= column
                and end <= f.end_column))]


def errors(result: FileResult) -> list[Finding]:
    return [f for f in result.findings if f.severity.value == "error"]


def inference_article(claim: str, inputs: dict[str, float],
                      steps: list[tuple[str, str, float]]) -> Article:
    """The desk's article with one inference in place of its own: ``claim`` over a computation
    of ``inputs`` and ``steps`` (name, expression, result), tolerance 0.01."""
    doc: dict[str, Any] = copy.deepcopy(load())
    doc["inferences"] = [{
        "id": "I1", "claim": claim, "basis_fact_ids": [], "label": "PCT analysis",
        "computation": {"inputs": inputs, "steps": [
            {"name": n, "expression": e, "result": r} for n, e, r in steps],
            "tolerance": 0.01}}]
    return Article.model_validate_json(json.dumps(doc))


def claim_errors(article: Article) -> list[str]:
    """Messages of the arithmetic findings on the inferences' claims."""
    from ledger.verify.arithmetic import check_arithmetic

    return [f.message for f in check_arithmetic(article) if f.pointer.endswith("/claim")]
