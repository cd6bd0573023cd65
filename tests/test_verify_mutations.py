"""The mutation corpus: each mutated copy of the desk's article fails with the right rule id at
the right span. Mutations are code over the committed article, so the corpus stays in step with
it (a mutation whose target text disappears fails loudly instead of passing vacuously)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from verify_fixtures import at, replace_body, span, verify_mutant

Doc = dict[str, Any]


@dataclass(frozen=True)
class Case:
    name: str
    mutate: Callable[[Doc], None]
    rule: str
    #: body text whose span the finding must have (with its occurrence), or a JSON pointer
    where: tuple[str, int] | str
    recount: bool = True


def body(old: str, new: str) -> Callable[[Doc], None]:
    return lambda doc: replace_body(doc, old, new)


def both(*mutations: Callable[[Doc], None]) -> Callable[[Doc], None]:
    def run(doc: Doc) -> None:
        for m in mutations:
            m(doc)
    return run


def setter(path: list[Any], value: Any) -> Callable[[Doc], None]:
    def run(doc: Doc) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return run


def drop_rule(index: int) -> Callable[[Doc], None]:
    return lambda doc: doc["corrections"][index].pop("rule")


TTFT_46 = "a 46-fold reduction in median time to first token"
DEATTRIBUTE = both(
    body("the authors tested", "PCT tested"),
    body("They reported 3.8 times", "They saw 3.8 times"),
    body(" These are the authors' results, not PCT measurements.", ""),
)

CASES = [
    # figure relabelled
    Case("46x called throughput", body(TTFT_46, "a 46-fold increase in throughput"),
         "mislabeled-figure", ("46-fold", 0)),
    Case("46x called throughput breaks guardrail 1", body(TTFT_46, "a 46-fold increase in throughput"),
         "guardrail", ("46-fold", 0)),
    Case("46x called cost savings", body(TTFT_46, "46-fold cost savings"),
         "guardrail", ("46-fold", 0)),
    Case("spelled-out forty-six-fold throughput", body(TTFT_46, "a forty-six-fold throughput gain"),
         "guardrail", ("forty-six-fold", 0)),
    Case("46x as GPU savings", body(TTFT_46, "46-fold GPU savings"),
         "mislabeled-figure", ("46-fold", 0)),
    Case("3.8x called TTFT", body("3.8 times the throughput", "3.8 times lower time to first token"),
         "mislabeled-figure", ("3.8 times", 0)),
    Case("8.6x called GPU count", body("reduction in end-to-end latency", "reduction in GPU count"),
         "mislabeled-figure", ("8.6-fold", 0)),
    Case("hit rate called throughput", body("Cache hits rose", "Throughput rose"),
         "mislabeled-figure", ("92.2%", 0)),
    Case("guardrail 1 from prose alone", both(drop_rule(0), body(TTFT_46, "a 46-fold throughput gain")),
         "guardrail", ("46-fold", 0)),
    # experiments
    # the finding sits on the joined figure: the one the rest of the sentence is not about
    Case("scaling figure joined to trace result",
         body("They reported 3.8 times", "On 60 GPUs they reported 3.8 times"),
         "conflated-experiments", ("60", 0)),
    # a join that guardrail 2 forbids is the same mistake: conflated-experiments, naming it
    Case("experiments swapped: trace run on 60 GPUs", body("on 12 GB200 GPUs", "on 60 GB200 GPUs"),
         "conflated-experiments", ("60", 0)),
    Case("guardrail 2 from prose alone",
         both(drop_rule(1), body("on 12 GB200 GPUs", "on 12 GB200 GPUs scaled to 60 GPUs")),
         "conflated-experiments", ("60", 0)),
    # attribution
    Case("attribution removed (3.8x)", DEATTRIBUTE, "unattributed-figure", ("3.8 times", 0)),
    Case("attribution removed (12 GPUs)", DEATTRIBUTE, "unattributed-figure", ("12", 0)),
    # arithmetic
    Case("assumption equation wrong", setter(["inferences", 1, "assumptions", 3],
         "Ratio is 1.25 / 2.0 = 0.65; reduction is 1 - 0.625 = 0.375."),
         "arithmetic", "/inferences/1/assumptions/3"),
    Case("computation result wrong", setter(["inferences", 1, "computation", "steps", 1, "result"], 0.4),
         "arithmetic", "/inferences/1/computation/steps/1/result"),
    Case("claim percentage contradicts arithmetic", lambda d: d["inferences"][1].update(
         claim=d["inferences"][1]["claim"].replace("falls 37.5%", "falls 40%")),
         "arithmetic", "/inferences/1/claim"),
    # the desk's own sum stated wrongly in prose ("1.25 divided by two, or 60.5%")
    Case("body percentage changed", body("or 62.5% of", "or 60.5% of"),
         "arithmetic", ("60.5%", 0)),
    # dates
    Case("paper date moved", body("June 24, 2024", "June 25, 2024"), "untraced-figure",
         ("June 25, 2024", 0)),
    Case("benchmark date moved", body("May 6, 2026", "May 7, 2026"), "untraced-figure",
         ("May 7, 2026", 0)),
    Case("benchmark date given to the paper", body("first submitted on June 24, 2024",
         "first submitted on May 6, 2026"), "guardrail", ("May 6, 2026", 0)),
    Case("source retrieved after the as-of date", setter(["sources", 0, "retrieved_at"], "2026-11-05"),
         "date-order", "/sources/0/retrieved_at"),
    # feature status
    Case("disk offload cited to the May benchmark",
         body("RDMA and a TCP fallback. [S3]", "RDMA and a TCP fallback. [S4]"),
         "guardrail", ("disk offloading", 0)),
    Case("May roadmap repeated as current status",
         body("A separate MooncakeConnector", "The May 6 roadmap lists disk offload as planned. "
              "A separate MooncakeConnector"),
         "guardrail", ("disk offload", 1)),
    # references and metadata
    Case("citation to a missing source", body("[S4]", "[S9]"), "dangling-citation", ("[S9]", 0)),
    Case("fact cites a missing source", setter(["facts", 3, "source_ids"], ["S9"]),
         "dangling-reference", "/facts/3/source_ids/0"),
    Case("inference rests on a missing fact", setter(["inferences", 0, "basis_fact_ids"], ["F2", "F9"]),
         "dangling-reference", "/inferences/0/basis_fact_ids/1"),
    Case("word count changed", setter(["editorial_word_count"], 560), "word-count",
         "/editorial_word_count", recount=False),
    Case("figure that appears nowhere", body("to 92.2%", "to 95.2%"), "untraced-figure", ("95.2%", 0)),
    Case("GPU count that appears nowhere", body("reached 60 GPUs", "reached 64 GPUs"),
         "untraced-figure", ("64", 0)),
    Case("independence claimed against the scope",
         setter(["facts", 3, "evidence_type"], "independently_reproduced_benchmark"),
         "independence-contradiction", "/facts/3/evidence_type"),
    Case("guardrail without rule and unreadable wording",
         lambda d: d["corrections"].append({"status": "prepublication_guardrail",
                                            "text": "Keep the tone measured."}),
         "unchecked-guardrail", "/corrections/5/text"),
]


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 25
    assert len({c.rule for c in CASES}) >= 12


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mutation_fails_with_rule_at_span(case: Case, tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, case.mutate, recount=case.recount)
    where = case.where if isinstance(case.where, str) else span(doc["body"], *case.where)
    found = at(result, case.rule, where)
    assert found, (
        f"expected {case.rule} at {where}; got "
        + "; ".join(f"{f.rule}@{f.pointer} {f.line}:{f.column}-{f.end_column}"
                    for f in result.findings))
    expected_severity = "warning" if case.rule == "unchecked-guardrail" else "error"
    assert found[0].severity.value == expected_severity
    if isinstance(case.where, tuple):  # body findings also point into the file itself
        assert found[0].file_line is not None and found[0].file_column is not None


SECOND_CASES = [
    Case("84% called throughput", body("saw an 84% lower TTFT", "saw 84% more throughput"),
         "guardrail", ("84%", 0)),
    Case("Ant figure joined to Novita's", body("TTFT fell 56%", "TTFT fell 56% (84% for Ant Group)"),
         "conflated-experiments", ("84%", 0)),
    Case("backend list cited to the announcement only",
         body("for that third tier. [S2]", "for that third tier. [S1]"),
         "guardrail", ("storage backends", 0)),
    Case("announcement date moved", body("September 10, 2025", "September 12, 2025"),
         "untraced-figure", ("September 12, 2025", 0)),
]


@pytest.mark.parametrize("case", SECOND_CASES, ids=[c.name for c in SECOND_CASES])
def test_second_article_mutation(case: Case, tmp_path: Path) -> None:
    from verify_fixtures import SECOND

    doc, result = verify_mutant(tmp_path, case.mutate, source=SECOND)
    assert at(result, case.rule, span(doc["body"], *case.where)), [
        (f.rule, f.line, f.column, f.end_column) for f in result.findings]


def test_a_join_the_seeds_guardrail_forbids_names_that_guardrail(tmp_path: Path) -> None:
    """The seed's guardrail 2 keeps the trace run and the scaling experiment apart: the join
    is reported once, as conflated-experiments, and the message names guardrail 2."""
    doc, result = verify_mutant(tmp_path, body("on 12 GB200 GPUs", "on 60 GB200 GPUs"))
    found = at(result, "conflated-experiments", span(doc["body"], "60", 0))
    assert found and found[0].message.startswith("guardrail 2 ("), result.findings
    assert not [f for f in result.findings if f.rule == "guardrail"], result.findings
