"""The checker on the mistakes editors make (issue 13), each on a mutated copy of the desk's
article, and the false errors it used to raise on correct prose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verify_fixtures import replace_body, span, verify_mutant

from ledger.report import FileResult, Severity

Doc = dict[str, Any]
S4_CLOSE = "These are the authors' results, not PCT measurements."


def add_fact(doc: Doc, claim: str, evidence: str = "primary_documentation") -> None:
    doc["facts"].append({"id": f"F{len(doc['facts']) + 1}", "claim": claim,
                         "source_ids": ["S4"], "evidence_type": evidence})


def rules_at(result: FileResult, doc: Doc, text: str, nth: int = 0) -> dict[str, str]:
    line, column, end = span(doc["body"], text, nth)
    return {f.rule: f.severity.value for f in result.findings if f.pointer == "/body"
            and f.line == line and f.column is not None and f.end_column is not None
            and f.column < end and column < f.end_column}


def test_coincidental_count_does_not_trace(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The vendor employs 12 engineers.")
    doc, result = verify_mutant(tmp_path, mutate)
    found = rules_at(result, doc, "12", 1)
    assert found.get("untraced-figure") == "error", result.findings
    finding = next(f for f in result.findings if f.rule == "untraced-figure")
    assert finding.trace and finding.trace[0]["figure_kind"] == "count"
    assert "engineers" in (finding.sentence or "")


def test_repetitions_are_not_a_multiplier(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + " Each configuration ran four times."))
    assert "untraced-figure" in rules_at(result, doc, "four times")


def test_percent_faster_is_not_times(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "3.8 times the throughput", "380% more throughput"))
    assert "untraced-figure" in rules_at(result, doc, "380%")
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "3.8 times the throughput", "280% more throughput"))
    assert rules_at(result, doc, "280%") == {}


def test_unit_changed(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post reports 6.6 TiB/s of aggregate read throughput.")
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The authors also report 6.6 TB/s of reads.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "6.6").get("unit-mismatch") == "error", result.findings


def test_unit_converted_traces(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post reports a 1 TiB pool.")
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The authors report a 1024 GiB pool.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "1024") == {}


def test_percent_against_points(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The May 6 post reports that the hit rate rose 12 percentage points.")
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The authors say the hit rate rose 12%.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "12%").get("percentage-points") == "error", result.findings


def test_count_moved_to_another_noun(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        add_fact(doc, "The post used 500 client nodes and 180 storage nodes.")
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The authors used 500 storage nodes.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert "mislabeled-figure" in rules_at(result, doc, "500"), result.findings


def test_desk_claims_the_authors_figure(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "the authors tested", "PCT measured"))
    assert rules_at(result, doc, "PCT measured").get("desk-claims-authors-figure") == "error"


def test_untraced_figure_has_a_hint(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(d, "46-fold", "47-fold"))
    finding = next(f for f in result.findings if f.rule == "untraced-figure")
    assert finding.hint and finding.hint.startswith("nearest evidence: 46 ")


def test_closing_attribution_and_present_tense(tmp_path: Path) -> None:
    """The paragraph attributes its figures in its last sentence, in the present tense."""
    def mutate(doc: Doc) -> None:
        replace_body(doc, "the authors tested", "the team tested")
        replace_body(doc, "They reported 3.8 times", "There were 3.8 times")
        replace_body(doc, S4_CLOSE, "These are the post's figures, not PCT measurements.")
    _, result = verify_mutant(tmp_path, mutate)
    assert not [f for f in result.findings if f.severity is Severity.error], result.findings


def test_owner_next_to_a_citation(tmp_path: Path) -> None:
    """The seed's own misattribution (fixed in version 1.0.1), and a wrong owner of a post."""
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "vLLM's current Mooncake guide", "Mooncake's current guide"))
    assert rules_at(result, doc, "Mooncake's").get("misattributed-source") == "error"
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "In a May 6, 2026 vLLM report,", "In NVIDIA's May 6, 2026 post,"))
    assert rules_at(result, doc, "NVIDIA's").get("misattributed-source") == "error"


def test_right_owners_pass(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "In a May 6, 2026 vLLM report,", "In vLLM's May 6, 2026 post,"))
    assert not [f for f in result.findings if f.rule == "misattributed-source"]


def test_sweeping_conclusion_is_a_warning(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, S4_CLOSE, S4_CLOSE + " This shows that the authors overstated their result."))
    assert rules_at(result, doc, "overstated").get("unsupported-conclusion") == "warning"


def test_body_date_after_publication(tmp_path: Path) -> None:
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "June 24, 2024", "June 24, 2027"))
    assert rules_at(result, doc, "June 24, 2027").get("date-order") == "error"


def test_statistic_named_wrongly(tmp_path: Path) -> None:
    def mutate(doc: Doc) -> None:
        doc["benchmark_scope"]["reported_metrics"]["mean_ttft_s"] = 19.0
        add_fact(doc, "The May 6 post reports a mean time to first token of 19.0 s.",
                 "author_reported_benchmark_not_independently_reproduced")
        replace_body(doc, S4_CLOSE, S4_CLOSE + " The authors report a p99 TTFT of 19.0 s.")
    doc, result = verify_mutant(tmp_path, mutate)
    assert rules_at(result, doc, "19.0").get("mislabeled-figure") == "error", result.findings


def test_names_after_the_sources_own_subject_are_what_it_discusses(tmp_path: Path) -> None:
    """The cited publisher opens the sentence; an organisation named later is the object of
    its reporting ("vLLM ..., answering NVIDIA's post"), not the citation's owner. The same name
    as the subject is still wrong."""
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "In a May 6, 2026 vLLM report, the authors tested",
        "vLLM, answering NVIDIA's post in a May 6, 2026 report, says the authors tested"))
    assert "misattributed-source" not in rules_at(result, doc, "NVIDIA's")
    doc, result = verify_mutant(tmp_path, lambda d: replace_body(
        d, "In a May 6, 2026 vLLM report, the authors tested",
        "NVIDIA, in a May 6, 2026 post on vLLM, says the authors tested"))
    assert rules_at(result, doc, "NVIDIA").get("misattributed-source") == "error"
