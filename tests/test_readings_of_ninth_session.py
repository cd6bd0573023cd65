"""Readings found on the ninth session's blind sets (AG, AH), each written here as a case of
its own, with the mistake the reading must still catch beside it:

* a figure whose number the evidence states in another unit, in the very fact that every other
  figure of its sentence comes from, is a unit mismatch even where it traces elsewhere as a
  conversion (800 Gb/s is 100 GB/s) or to the desk's arithmetic: a coincidence; not where
  other evidence states its very digits in its unit;
* an article may say how it reads a source's unit ("the README heads its column "Gb"; we read
  it as gigabytes"): figures in the unit it names then trace to the source's numbers;
* an input of the computation a sentence works is named for its unit ("bytes_fp16": 2 for
  "two bytes each"), though a source states the number in another unit;
* a final ``b`` after parameters is billions, not bytes (``params_b``).
"""

from __future__ import annotations

from pathlib import Path

from verify_fixtures import (
    Doc,
    Mutation,
    add_inference,
    fact,
    findings_at,
    paragraph,
    rules_at,
    verify_with,
)

from ledger.quantities import declared_readings, metric_quantity

# --- a unit changed in the sentence's own fact ------------------------------------------------

_CLUSTER = fact("On the 100 Gb/s cluster the gains reach 2.25x end to end.")
_MEMORY = fact("Each node has 100 GB/s of memory bandwidth.")
_LINKS = fact("The links of a node add up to 800 Gb/s.")  # 100 GB/s, converted


def test_a_unit_changed_in_the_fact_its_sentence_comes_from(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _CLUSTER, _LINKS, paragraph(
        "On a 100 GB/s cluster the authors' gains reach 2.25x end to end. [S4]"))
    assert rules_at(result, doc, "100 GB/s").get("unit-mismatch") == "error"


def test_the_facts_own_unit_is_no_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _CLUSTER, _LINKS, paragraph(
        "On a 100 Gb/s cluster the authors' gains reach 2.25x end to end. [S4]"))
    assert "unit-mismatch" not in rules_at(result, doc, "100 Gb/s")


def test_a_figure_from_another_fact_beside_them_is_no_mismatch(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _CLUSTER, _MEMORY, paragraph(
        "The authors' gains reach 2.25x end to end, and each node has 100 GB/s of memory "
        "bandwidth. [S4]"))
    assert "unit-mismatch" not in rules_at(result, doc, "100 GB/s")


# --- a unit the article says how it reads ----------------------------------------------------

_TABLE = fact("The repository table lists the 70B checkpoint at 18.8 Gb.")


def test_a_declared_reading_of_a_sources_unit(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _TABLE, paragraph(
        "The authors list the 70B checkpoint at 18.8 GB. (Their table heads the column "
        "\"Gb\"; we read it as gigabytes.) [S4]"))
    assert "unit-mismatch" not in rules_at(result, doc, "18.8 GB")


def test_without_the_reading_the_unit_still_disagrees(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _TABLE, paragraph(
        "The authors list the 70B checkpoint at 18.8 GB. [S4]"))
    assert rules_at(result, doc, "18.8 GB").get("unit-mismatch") == "error"


def test_readings_name_a_unit_of_the_same_dimension() -> None:
    assert {k: u.symbol for k, u in declared_readings(
        'its column "Gb"; we read it as gigabytes').items()} == {"Gb": "GB"}
    assert {k: u.symbol for k, u in declared_readings(
        "the table's “GB” (meaning GiB)").items()} == {"GB": "GiB"}
    assert declared_readings('the "GB" figure reads as 4 ms') == {}  # another dimension
    assert declared_readings("we read GB as GiB") == {}  # a reading names a quoted symbol


# --- an input named for its unit --------------------------------------------------------------

def _weights(doc: Doc, bytes_name: str) -> None:
    add_inference(doc, "A 70B model in FP16 is about 140 GB of weights.",
                  inputs={"params_b": 70, bytes_name: 2},
                  steps=(("fp16_gb", f"params_b * {bytes_name}", 140),))


def test_an_input_named_for_its_unit(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The scheme targets 2 bits per parameter."),
        lambda d: _weights(d, "bytes_fp16"),
        paragraph("By PCT's arithmetic, at two bytes each, 70 × 2 = 140 GB. [S4]"))
    assert "unit-mismatch" not in rules_at(result, doc, "two bytes")


def test_an_input_named_for_another_unit(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The scheme targets 2 bits per parameter."),
        lambda d: _weights(d, "bits_q"),
        paragraph("By PCT's arithmetic, at two bytes each, 70 × 2 = 140 GB. [S4]"))
    assert "unit-mismatch" in rules_at(result, doc, "two bytes")


def test_billions_of_parameters_are_no_bytes() -> None:
    assert metric_quantity("params_b") is None
    size = metric_quantity("model_gb")
    assert size is not None and size.unit is not None and size.unit.symbol == "GB"


# --- names and readings of the prose ----------------------------------------------------------

def test_a_labelled_ordinal_is_a_name() -> None:
    from ledger.figures import extract_figures

    assert extract_figures("Table 3 and Figure 5 of version 1 give it; see Section 4.2.") == []
    assert [f.text for f in extract_figures("Version 2 came nine days after version 1.")] == [
        "nine"]
    # a figure written after the label is still one: "each step 4x faster", "a step of 2 ms"
    assert [f.text for f in extract_figures("each step 4x faster, a step of 2 ms")] == [
        "4x", "2"]


def test_a_count_of_others_implies_its_total() -> None:
    from ledger.grounding import ground_figures

    quote = ["by Changho Hwang and 14 other authors"]
    assert ground_figures("v4 lists 15 authors led by Changho Hwang", quote) == []
    [wrong] = ground_figures("v4 lists 16 authors led by Changho Hwang", quote)
    assert wrong.figure.text == "16" and wrong.contradicted_by is not None


_MULTIPLE = fact("At the top of their range the authors report a 1.73x speed-up.")


def test_a_denied_misreading_of_a_multiplier(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _MULTIPLE, paragraph(
        "The authors' 1.73x means the same work in less time, a cut of about 42% rather than "
        "a 73% one. [S4]"))
    assert "untraced-figure" not in rules_at(result, doc, "73% one")


def test_a_misreading_that_is_not_denied_is_untraced(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _MULTIPLE, paragraph(
        "The authors' 1.73x means the same work in less time, a cut of 73%. [S4]"))
    assert "untraced-figure" in rules_at(result, doc, "73%")


def _secondary_source(doc: Doc) -> None:
    doc["sources"].append({**doc["sources"][3], "id": "S9", "publisher": "Wccftech",
                           "primary": False, "url": "https://wccftech.com/amd-pollara/"})
    doc["facts"].append({"id": "F99", "claim": "The NIC connects to a Gen5 x16 interface.",
                         "source_ids": ["S9"], "evidence_type": "secondary_reporting"})


def test_a_speaker_at_an_event_reported_by_the_press(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _secondary_source, paragraph(
        "At Hot Chips 2025, AMD detailed the architecture: the NIC connects to a Gen5 x16 "
        "interface. [S9]"))
    assert "misattributed-source" not in rules_at(result, doc, "AMD")


def test_a_wrong_owner_of_the_press_report_is_still_found(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _secondary_source, paragraph(
        "AMD's post describes the architecture: the NIC connects to a Gen5 x16 interface. [S9]"))
    assert "misattributed-source" in rules_at(result, doc, "AMD")


def _apart(doc: Doc) -> None:
    doc["corrections"].append({
        "id": "G9", "status": "prepublication_guardrail",
        "text": "Do not mix the abstract's figures with the repository table's.",
        "rule": {"kind": "separate_experiments", "experiments": [
            {"name": "abstract", "values": [1.29, 5.71], "terms": ["abstract"]},
            {"name": "repository table", "values": [0.69, 3.83], "terms": ["table"]}]}})


_FIGURES = fact("The abstract reports improvements of 1.29 and 5.71; the repository table lists "
                "0.69 and 3.83.")
_KERNELS = fact("The kernel list gives up to about 1.3x for one kernel, only about 0.7x for "
                "another.")


def test_a_figure_stated_as_written_is_no_experiments_rounded_value(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _FIGURES, _KERNELS, _apart, paragraph(
        "Its kernel list gives one kernel up to about 1.3x and another only about 0.7x. [S4]"))
    assert "conflated-experiments" not in rules_at(result, doc, "1.3x")


def test_the_experiments_own_values_joined_are_still_a_conflation(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _FIGURES, _apart, paragraph(
        "The authors' improvement of 1.29 comes with an MMLU of 0.69. [S4]"))
    assert rules_at(result, doc, "0.69").get("conflated-experiments") == "error"


# --- a source's publisher and its site ----------------------------------------------------------

def _source(doc: Doc, publisher: str, url: str, source_id: str = "S9") -> None:
    doc["sources"].append({**doc["sources"][3], "id": source_id, "publisher": publisher,
                           "url": url})


def _publisher_findings(tmp_path: Path, *sources: tuple[str, str]) -> dict[int, str]:
    """Severity of the publisher finding by the added source's place (0: the first)."""
    def add(doc: Doc) -> None:
        for n, (publisher, url) in enumerate(sources):
            _source(doc, publisher, url, f"S{9 + n}")
    doc, result = verify_with(tmp_path, add)
    first = len(doc["sources"]) - len(sources)
    return {int(f.pointer.split("/")[2]) - first: f.severity.value for f in result.findings
            if f.rule == "misattributed-source" and f.pointer.endswith("/publisher")}


def test_a_publisher_that_is_its_sites_owner(tmp_path: Path) -> None:
    assert _publisher_findings(
        tmp_path,
        ("Carnegie Mellon University Parallel Data Lab", "https://www.pdl.cmu.edu/x.pdf"),
        ("International Conference on Learning Representations", "https://iclr.cc/p/1"),
        ("Microsoft DeepSpeed (GitHub blog)", "https://github.com/microsoft/DeepSpeed"),
        ("IEEE Micro", "https://doi.org/10.1109/MM.2020.3016891"),  # a resolver
        ("ServeTheHome (via Style Pass)", "https://vuink.com/post/x"),  # a copy, said so
    ) == {}


def test_a_publisher_of_another_site(tmp_path: Path) -> None:
    found = _publisher_findings(
        tmp_path,
        ("Changho Hwang et al., ACM SIGCOMM", "https://arxiv.org/abs/2504.09014v4"),
        ("Wccftech", "https://wccftech.com/amd-pollara/"),
        ("Wccftech", "https://servethehome.com/amd-pensando-salina/"),
        ("NeurIPS 2024 (neurips.cc)", "https://icml.cc/virtual/2024/poster/34964"))
    assert found == {0: "warning",  # an arXiv page: the venue may have published it too
                     2: "error",  # the source before shows Wccftech on its own site
                     3: "error"}  # the publisher names another domain


# --- a conclusion the desk labels as its own ------------------------------------------------

def _concluded(text: str) -> list[str]:
    import copy
    import json

    from verify_fixtures import load

    from ledger.models import Article
    from ledger.verify.conclusions import check_conclusions
    from ledger.verify.consistency import word_count

    doc = copy.deepcopy(load())
    doc["body"] = text + "\n"
    doc["editorial_word_count"] = word_count(doc["body"])
    return [f.severity.value for f in check_conclusions(
        Article.model_validate_json(json.dumps(doc)))]


def test_a_labelled_conclusion_that_sweeps() -> None:
    for text in ("PCT's conclusion: Lance wins on every workload.",
                 "PCT's view: the chip removes a constraint on radix and will roughly halve "
                 "total fabric cost.",
                 "[S1] PCT's view: it offers the best price-performance of any H100 cloud, so "
                 "compare offers on the fabric.",
                 "Our verdict: the library eliminates egress costs entirely.",
                 "PCT's conclusion: it cuts cost per token wherever it replaces NCCL."):
        assert _concluded(text) == ["warning"], text


def test_a_labelled_conclusion_that_hedges_or_advises() -> None:
    for text in ("PCT's conclusion: it is a credible option where small messages dominate, "
                 "but the evidence is still the authors' own.",
                 "PCT's reading: ask any provider which of the two it is.",
                 "PCT's reading: AQLM is a memory play first and a speed play only in some "
                 "schemes.",
                 "PCT's view: it does not yet show that the fabric beats a tuned one.",
                 # a superlative with its scope, not over every alternative (set AI)
                 "PCT's view: binary quantization is most attractive for large collections.",
                 "The authors' view: it wins on every workload."):  # a report, not the desk's
        assert _concluded(text) == [], text


def test_a_denied_conclusion_verb_draws_nothing() -> None:
    assert _concluded("PCT's view: the specification does not yet show that a UE fabric beats "
                      "a tuned RoCE fabric.") == []
    assert _concluded("The later figures show that the fabric beats every rival.") == [
        "warning"]


def test_a_count_that_refers_back_is_prose(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, paragraph(
        "Buyers should keep the seven cards apart: one serves the front end. [S4]"))
    assert {f.severity.value for f in findings_at(result, doc, "seven")} <= {"note"}
    doc, result = verify_with(tmp_path, paragraph(
        "Buyers should deploy seven cards per node. [S4]"))
    assert rules_at(result, doc, "seven").get("untraced-figure") == "warning"


# --- a result carried over to what it was not measured on ---------------------------------------

def _guarded(text: str) -> Mutation:
    def add(doc: Doc) -> None:
        doc["corrections"].append({"id": "G9", "status": "prepublication_guardrail",
                                   "text": text})
    return add


_OTHER_GPUS = _guarded("Do not extend the A100 results to other GPU generations; the kernel "
                       "supports only Ampere.")
_FABRICS = _guarded("Do not present them as evidence for cloud RoCE or InfiniBand fabrics.")


def _carried(tmp_path: Path, guard: Mutation, sentence: str, at: str) -> dict[str, str]:
    doc, result = verify_with(tmp_path, guard, paragraph(sentence))
    return rules_at(result, doc, at)


def test_a_result_carried_over_to_another_gpu(tmp_path: Path) -> None:
    assert _carried(tmp_path, _OTHER_GPUS, "The same speedups should hold on Hopper GPUs.",
                    "Hopper").get("guardrail") == "warning"
    assert _carried(tmp_path, _FABRICS, "The results carry over directly to RoCE clusters.",
                    "RoCE").get("guardrail") == "warning"


def test_a_result_kept_where_it_was_measured(tmp_path: Path) -> None:
    for sentence, at in (("Whether the speedups hold on Hopper GPUs is untested.", "Hopper"),
                         ("The speedups hold on the A100 the authors used.", "A100"),
                         ("The results do not carry over to RoCE clusters.", "RoCE"),
                         ("RoCE clusters are where buyers will run it.", "RoCE")):
        guard = _FABRICS if at == "RoCE" else _OTHER_GPUS
        assert "guardrail" not in _carried(tmp_path, guard, sentence, at), sentence


def test_a_product_name_with_plus_signs_is_a_subject(tmp_path: Path) -> None:
    def name(doc: Doc) -> None:
        doc["subject"] = "MSCCL++ collective communication library"

    claim = fact("The authors report geomean speedups of 1.7x for collectives.")
    doc, result = verify_with(tmp_path, name, claim, paragraph(
        "The authors report gains of up to 5.4x. MSCCL++ delivers geomean speedups of 1.7x for "
        "collectives. [S4]"))
    assert rules_at(result, doc, "1.7x").get("unattributed-figure") == "warning"
    doc, result = verify_with(tmp_path, name, claim, paragraph(
        "The authors report gains of up to 5.4x, and say MSCCL++ delivers geomean speedups of "
        "1.7x for collectives. [S4]"))
    assert "unattributed-figure" not in rules_at(result, doc, "1.7x")


# --- a sum the body works from a computation's inputs -------------------------------------------

def _saving(doc: Doc) -> None:
    doc["inferences"].append({
        "id": "I9", "claim": "On a 100-hour job, 8% faster completion saves 8 hours.",
        "basis_fact_ids": [], "label": "PCT analysis",
        "computation": {"inputs": {"job_hours": 100, "jct_gain": 0.08}, "steps": [
            {"name": "new_hours", "expression": "100 * (1 - 0.08)", "result": 92,
             "unit": "hours"},
            {"name": "saved_hours", "expression": "100 - new_hours", "result": 8,
             "unit": "hours"}]}})


def test_a_result_worked_from_an_input_stated_as_a_percent(tmp_path: Path) -> None:
    doc, result = verify_with(tmp_path, _saving, paragraph(
        "Likewise, on a job that takes 100 hours, 8% faster completion would save 13 hours."))
    assert rules_at(result, doc, "13 hours").get("arithmetic") == "error"
    doc, result = verify_with(tmp_path, _saving, paragraph(
        "Likewise, on a job that takes 100 hours, 8% faster completion would save 8 hours."))
    assert "arithmetic" not in rules_at(result, doc, "8 hours")
