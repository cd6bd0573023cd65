"""Severity by confidence: an error blocks only when the checker is sure; what it cannot decide
from prose is a warning that says so (sentences written for these tests, on the desk's seed).

* a figure in everyday words ("every five minutes", "half the bandwidth") may only share the
  evidence's number: a mismatch on it is a warning, while a multiplier in words ("fivefold")
  or a count of hardware ("eight GPUs") states a result and stays an error;
* a sum the body works in front of the reader ("(0.2 × 86,400)") explains its figures when it
  comes to its stated result, and is an arithmetic error when it does not;
* an author's figure in a paragraph that names its owner in words the attribution grammar does
  not read is a warning; one in a paragraph that names no one, or stated as what the product
  does, is an error;
* a common word capitalised to open a sentence ("Throughput counts ...") is no owner.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from verify_fixtures import Doc, add_fact, replacing, rules_at, verify_with

from ledger.verify.worked import worked_sums

#: The seed's closing paragraph: tests put a new paragraph before it.
LAST = "Before assigning monetary value to a cache hit"


def paragraph(text: str):  # type: ignore[no-untyped-def]
    """The step that puts ``text`` as its own paragraph before the seed's last one."""
    return replacing(LAST, text + "\n\n" + LAST)


def fact(claim: str, evidence_type: str | None = None):  # type: ignore[no-untyped-def]
    def step(doc: Doc) -> None:
        if evidence_type is None:
            add_fact(doc, claim)
        else:
            add_fact(doc, claim, evidence_type)
    return step


# --- figures in words -----------------------------------------------------------------------

def test_a_small_duration_in_words_against_evidence_in_another_unit_is_a_warning(
        tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("A cold lookup returned in 7 s on the authors' cluster."),
        paragraph("Operators who sweep the cache every seven minutes should expect to lose "
                  "entries that idle agents still need. [S4]"))
    assert rules_at(result, doc, "seven minutes").get("unit-mismatch") == "warning"


def test_a_fraction_in_words_is_not_an_error(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors' links ran at 25 GB/s and their staging copies at 11 GB/s."),
        paragraph("Staging copies ran at well under half the link rate, which is why the "
                  "authors pinned buffers. [S4]"))
    assert "error" not in rules_at(result, doc, "half").values()


def test_a_multiplier_in_words_still_blocks(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors measured a 4x drop in prefill work with the shared store."),
        paragraph("The authors measured a fivefold drop in prefill work with the shared "
                  "store. [S4]"))
    assert rules_at(result, doc, "fivefold").get("untraced-figure") == "error"


# --- worked sums ----------------------------------------------------------------------------

def test_worked_sums_are_read_with_their_results() -> None:
    text = ("a day of pulls is about 17,280 GB (0.2 × 86,400). A hit saves $0.40 minus "
            "$0.04, or $0.36, and 9 / 4 = 2.25; (30 - 40) is a range and 1 / (1 - f) = 8 "
            "algebra.")
    found = [(text[w.expr_start:w.expr_end], text[w.result_start:w.result_end], w.agrees)
             for w in worked_sums(text)]
    assert found == [("0.2 × 86,400", "17,280", True), ("$0.40 minus $0.04", "$0.36", True),
                     ("9 / 4", "2.25", True)]
    wrong = worked_sums("about 17,820 GB (0.2 × 86,400)")
    assert [w.agrees for w in wrong] == [False]


@pytest.mark.parametrize(("day", "expected"), [
    ("17,280", {"17,280": None, "86,400": None}),  # right: the sum explains its constant
    ("17,820", {"17,820": "error"}),  # wrong: an arithmetic error at its result
])
def test_a_sum_the_body_works_is_checked(tmp_path: Path, day: str,
                                         expected: dict[str, str | None]) -> None:
    doc, result = verify_with(
        tmp_path, fact("Each client pulled 0.2 GB per second from the store."),
        paragraph(f"At that pace one client moves about {day} GB in a day (0.2 × 86,400), "
                  "before any cache hit. [S4]"))
    for figure, severity in expected.items():
        found = rules_at(result, doc, figure)
        if severity is None:
            assert "error" not in found.values(), figure
        else:
            assert found.get("arithmetic") == severity, figure


# --- attribution ----------------------------------------------------------------------------

REPORT = "The authors' agent replay cut prefill compute by 38% on their cluster."


@pytest.mark.parametrize(("text", "severity"), [
    # the owner named, in words the grammar does not read as a credit: not sure
    ("Replay numbers come next. The prefill saving, as relayed from the report by a reader on "
     "vLLM's forum, is 38%. [S4]", "warning"),
    ("Replay numbers come next. Judging by the study that came with the code, prefill compute "
     "fell 38% on the long traces. [S4]", "warning"),
    # no one named: sure
    ("Replay numbers come next. Under an agent replay, prefill compute fell 38%. [S4]", "error"),
    # the product stated as doing it, whoever else the paragraph names: sure
    ("Replay numbers come next, relayed by a reader on vLLM's forum. Mooncake Store cuts "
     "prefill compute by 38%. [S4]", "error"),
])
def test_an_unread_credit_blocks_only_where_no_owner_is_named(tmp_path: Path, text: str,
                                                              severity: str) -> None:
    doc, result = verify_with(tmp_path, fact(REPORT), paragraph(text))
    assert rules_at(result, doc, "38%").get("unattributed-figure") == severity


# --- owners ---------------------------------------------------------------------------------

def test_a_capitalised_common_word_opening_a_sentence_is_no_owner(tmp_path: Path) -> None:
    text = ("The metric matters. Goodput counts requests served within their latency targets, "
            "and raw goodput claims need that target stated. [S4]")
    doc, result = verify_with(tmp_path, paragraph(text))
    assert "misattributed-source" not in rules_at(result, doc, "Goodput")
    # a name the body never writes in lower case is still read as one
    doc, result = verify_with(tmp_path, paragraph(text.replace("Goodput counts", "Nimbus counts")))
    assert rules_at(result, doc, "Nimbus").get("misattributed-source") == "error"


def test_a_paragraph_about_that_sentence_refers_back_to_it() -> None:
    from ledger.verify.credits import _REFERS_BACK
    for text in ("Two cautions follow from how that sentence is built.",
                 "Read this passage twice.", "The same quote gives the baseline."):
        assert _REFERS_BACK.search(text), text
    for text in ("That cluster is large.", "This sentence-level rule is ours."):
        assert not _REFERS_BACK.search(text), text


# --- desk claims ----------------------------------------------------------------------------

def test_a_desk_claim_on_figures_stated_elsewhere_is_an_error(tmp_path: Path) -> None:
    for claim in ("PCT reproduced those numbers on its own rack",
                  "We benchmarked the results above ourselves"):
        doc, result = verify_with(
            tmp_path, paragraph(f"A word on provenance. {claim}, so buyers can rely on them."))
        assert rules_at(result, doc, claim).get("desk-claims-authors-figure") == "error", claim


def test_a_desk_denial_or_a_claim_about_no_figure_passes(tmp_path: Path) -> None:
    for text in ("A word on provenance. PCT has not reproduced those numbers.",
                 "A word on method. PCT tested the setup guide's commands on a laptop."):
        doc, result = verify_with(tmp_path, paragraph(text))
        assert "desk-claims-authors-figure" not in rules_at(result, doc, "PCT"), text


def test_who_published_the_cited_work_in_a_clause_of_time_or_brackets_is_an_owner(
        tmp_path: Path) -> None:
    for text, name in (
            ("The write-up spread fast: a week after Nimbus published it, two forks had "
             "copied its cache layout. [S4]", "Nimbus"),
            ("The work came from the authors' group (Nimbus Labs), which also wrote the "
             "connector. [S4]", "Nimbus")):
        doc, result = verify_with(tmp_path, paragraph(text))
        assert rules_at(result, doc, name).get("misattributed-source") == "error", text
        doc, result = verify_with(tmp_path, paragraph(text.replace(name, "vLLM")))
        assert "misattributed-source" not in rules_at(result, doc, "vLLM"), text


# --- word count -----------------------------------------------------------------------------

def test_a_word_count_that_counts_the_markers_is_a_note_and_a_wrong_one_an_error(
        tmp_path: Path) -> None:
    def count(n_extra: int):  # type: ignore[no-untyped-def]
        def step(doc: Doc) -> None:
            doc["editorial_word_count"] = len(doc["body"].split()) + n_extra
        return step
    _, result = verify_with(tmp_path, count(0), recount=False)
    (finding,) = [f for f in result.findings if f.rule == "word-count"]
    assert finding.severity.value == "note" and "markers" in finding.message
    _, result = verify_with(tmp_path, count(3), recount=False)
    (finding,) = [f for f in result.findings if f.rule == "word-count"]
    assert finding.severity.value == "error"


def test_a_paragraph_right_after_the_credited_account_of_its_source_is_a_warning(
        tmp_path: Path) -> None:
    account = ("In their May write-up the authors describe two replays of agent traffic on "
               "the shared store. [S4]")
    follow = ("The replays differ in length:\n- The short replay cut prefill compute by 38%.\n"
              "- The long one ran for six hours. [S4]")
    doc, result = verify_with(tmp_path, fact(REPORT), paragraph(account + "\n\n" + follow))
    assert rules_at(result, doc, "38%").get("unattributed-figure") == "warning"
    # with no credited account right before it, the same list blocks
    doc, result = verify_with(tmp_path, fact(REPORT), paragraph(
        "Agent traffic is bursty.\n\n" + follow))
    assert rules_at(result, doc, "38%").get("unattributed-figure") == "error"


# --- readings that decide a trace -----------------------------------------------------------

def test_a_number_a_table_states_under_the_figures_unit_is_no_sure_mismatch(
        tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("Spec table (old / new): cache GiB 24/48; the new node is listed with "
                       "48 GB of cache in the launch post."),
        paragraph("The authors' spec table gives 48 GiB of cache per node on the new part. [S4]"))
    assert rules_at(result, doc, "48").get("unit-mismatch") == "warning"


def test_a_figure_normalised_per_node_in_a_metric_name_counts_no_nodes() -> None:
    from ledger.quantities import Kind, metric_quantity
    q = metric_quantity("decode_tokens_per_s_per_node")
    assert q is not None and q.kind is Kind.rate and q.unit is not None
    assert metric_quantity("cost_per_node") is None


def test_the_words_after_another_figures_for_name_that_figure(tmp_path: Path) -> None:
    from verify_fixtures import add_metric
    def metrics(doc: Doc) -> None:
        add_metric(doc, "small_prompt_speedup", 2.0, "speedup on short prompts",
                   ["short prompts"], "multiplier")
        add_metric(doc, "max_engine_speedup", 9.0, "largest engine speedup",
                   ["engine speedup"], "multiplier")
    doc, result = verify_with(tmp_path, metrics, paragraph(
        "Against the local cache the authors report gains of 2x for short prompts and more "
        "than 9x for structured output. [S4]"))
    assert "mislabeled-figure" not in rules_at(result, doc, "9x")


def test_a_paragraph_of_unattributed_figures_is_one_finding(tmp_path: Path) -> None:
    doc, result = verify_with(
        tmp_path, fact("The authors' replay moved 410 GB, 520 GB and 610 GB per hour."),
        paragraph("Replay volumes rose with context: 410 GB, 520 GB and 610 GB an hour. [S4]"))
    found = [f for f in result.findings if f.rule == "unattributed-figure"]
    assert len(found) == 1 and "3 figures" in found[0].message
    for figure in ("410 GB", "610 GB"):  # the one finding spans each of them
        assert rules_at(result, doc, figure).get("unattributed-figure") == "error", figure


def test_sums_in_words_are_read_too() -> None:
    text = ("Per-user rates convert: 1,000 ms divided by 250 is about 4 ms a token. Nine "
            "racks times twelve is 108 trays. Divided by 8, 36 GB/s is 4.5 GB/s a lane. Two "
            "hundred thousand divided by four is 50,000 tokens a second.")
    found = [(text[w.result_start:w.result_end], w.agrees) for w in worked_sums(text)]
    assert found == [("4", True), ("108", True), ("4.5", True), ("50,000", True)]
    assert [w.agrees for w in worked_sums("Nine racks times twelve is 118 trays.")] == [False]
