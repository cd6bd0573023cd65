"""A count moved onto another noun (``mislabeled-figure``), read from typed quantities: the
noun the body gives a number against the noun, or the setting's name, its evidence gives it
(sentences written for these tests)."""

from __future__ import annotations

from pathlib import Path

from verify_fixtures import Doc, add_fact, adding, rules_at, verify_with

from ledger.quantities import Kind, Verdict, compare, typed_figures


def _quantity(text: str, figure: str):  # type: ignore[no-untyped-def]
    return next(q for f, q in typed_figures(text) if f.text == figure)


def _verdict(body: str, figure: str, evidence: str, number: str) -> Verdict:
    q, ev = _quantity(body, figure), _quantity(evidence, number)
    value = q.values[0]
    return compare(q, value, ev.values[0], ev, False)


def test_a_plural_head_after_modifiers_makes_a_count() -> None:
    for text, noun in (("16 attention heads", "head"), ("40 retained cache pages", "page"),
                       ("9 held-out evaluation suites", "suite")):
        q = _quantity(text, text.split()[0])
        assert (q.kind, q.noun) == (Kind.count, noun), text
    # an adverb or a conjunction ends the phrase: "two" is no count of "plus"
    q = _quantity("the twelve are the two named here plus ten others", "two")
    assert q.noun != "plu"


def test_the_name_before_a_bare_value_is_the_setting_it_sizes() -> None:
    assert _quantity("decoding took 9 ms at batch size 48", "48").named == ("batch", "size")
    assert _quantity("it ran at batch 48", "48").named == ("batch",)
    assert _quantity("with pipeline parallelism of 4", "4").named == ("pipeline", "parallelism")
    assert _quantity("a LoRA rank of 16 throughout", "16").named == ("lora", "rank")
    for text in ("a total of 48", "by a factor of 4", "they served 48", "about 4 were added"):
        number = next(f.text for f, _ in typed_figures(text))
        assert _quantity(text, number).named == (), text
    assert typed_figures("release 4 added") == []  # a labelled ordinal names the release


def test_a_count_against_a_setting_of_another_thing_is_an_unsure_mismatch() -> None:
    assert _verdict("on 48 GPUs", "48", "at batch size 48", "48") is Verdict.other_noun
    assert _verdict("across 48 nodes", "48", "a hidden size of 48", "48") is Verdict.other_noun
    # any other count may be the setting's unit: "512 tokens" for a block size of 512
    assert _verdict("512 tokens", "512", "a block size of 512", "512") is Verdict.match
    # the setting sizes the hardware, or names the counted noun: the same thing
    assert _verdict("on 4 GPUs", "4", "with tensor parallelism of 4", "4") is Verdict.match
    assert _verdict("48 requests", "48", "a batch size of 48 requests per step", "48") \
        is Verdict.match
    assert _verdict("a batch of 48", "48", "at batch size 48", "48") is Verdict.match


def test_two_unknown_nouns_differ_unless_one_is_the_others_stem() -> None:
    assert _verdict("14 attention heads", "14", "14 evaluation datasets", "14") \
        is Verdict.other_noun
    assert _verdict("7 scenarios", "7", "7 representative sub-scenarios", "7") is Verdict.match
    assert _verdict("7 sub-scenarios", "7", "7 sub-scenarios", "7") is Verdict.match


def _setting(doc: Doc) -> None:
    add_fact(doc, "The authors report a kernel time of about 90 us at batch size 48, and "
                  "scores on 14 evaluation datasets.")


def test_a_count_moved_onto_another_noun_is_a_warning(tmp_path: Path) -> None:
    for sentence, figure in (("The authors ran the kernel on 48 GPUs.", "48 GPUs"),
                             ("The authors scored it on 14 attention heads.",
                              "14 attention heads")):
        doc, result = verify_with(tmp_path, _setting, adding(sentence))
        assert rules_at(result, doc, figure).get("mislabeled-figure") == "warning", \
            (sentence, result.findings)
    for sentence, figure in (("The authors timed the kernel at a batch of 48.", "48"),
                             ("The authors scored it on 14 datasets.", "14 datasets")):
        doc, result = verify_with(tmp_path, _setting, adding(sentence))
        assert "mislabeled-figure" not in rules_at(result, doc, figure), \
            (sentence, result.findings)

