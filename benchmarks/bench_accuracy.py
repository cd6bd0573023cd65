"""Accuracy of ``ledger verify`` on the evaluation corpus (``tests/corpus/<set>/``).

For each set's manifest: verify every clean article, apply each planted mutation and each
benign edit to a copy, verify the copy in-process (the real checker on a real file), and print

* per rule: planted, detected (as error / as warning), recall, false findings on clean
  articles and benign edits, precision;
* false errors and warnings per clean article;
* new errors raised by benign edits;
* the list of misses, with the set name and what was found at the span instead.

A mutation is detected when a finding of its rule overlaps the span's location in the mutated
field (body findings: line and columns; other fields: the finding points into the same object).

Usage::

    python benchmarks/bench_accuracy.py                 # every set
    python benchmarks/bench_accuracy.py --set set-a     # one set
    python benchmarks/bench_accuracy.py --json out.json # also write the numbers
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from results_file import Results, add_output_option  # benchmarks/results_file.py

from ledger.report import Finding, Severity  # noqa: E402
from ledger.verify import verify_file  # noqa: E402
from ledger.verify.consistency import word_count  # noqa: E402

__all__ = ["CORPUS", "Result", "evaluate", "main"]

CORPUS = ROOT / "tests" / "corpus"


@dataclass
class Result:
    """Everything the benchmark measured, over one or more sets."""

    sets: list[str] = field(default_factory=list)
    articles: int = 0
    clean_errors: dict[str, list[str]] = field(default_factory=dict)
    clean_warnings: dict[str, list[str]] = field(default_factory=dict)
    planted: Counter[str] = field(default_factory=Counter)
    as_error: Counter[str] = field(default_factory=Counter)
    as_warning: Counter[str] = field(default_factory=Counter)
    false_findings: Counter[str] = field(default_factory=Counter)
    benign: int = 0
    benign_errors: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    warned: list[str] = field(default_factory=list)  # planted errors found only as warnings

    @property
    def detected(self) -> int:
        return sum(self.as_error.values()) + sum(self.as_warning.values())

    @property
    def recall(self) -> float:
        total = sum(self.planted.values())
        return self.detected / total if total else 1.0

    def per_rule(self) -> dict[str, dict[str, float]]:
        out = {}
        for rule in sorted(set(self.planted) | set(self.false_findings)):
            tp = self.as_error[rule] + self.as_warning[rule]
            fp = self.false_findings[rule]
            out[rule] = {
                "planted": self.planted[rule], "as_error": self.as_error[rule],
                "as_warning": self.as_warning[rule], "false": fp,
                "recall": tp / self.planted[rule] if self.planted[rule] else float("nan"),
                "precision": tp / (tp + fp) if tp + fp else float("nan"),
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        n = max(self.articles, 1)
        return {
            "sets": self.sets, "articles": self.articles,
            "false_errors_per_article": sum(map(len, self.clean_errors.values())) / n,
            "warnings_per_article": sum(map(len, self.clean_warnings.values())) / n,
            "clean_errors": self.clean_errors, "clean_warnings": self.clean_warnings,
            "recall": self.recall, "planted": sum(self.planted.values()),
            "detected": self.detected, "per_rule": self.per_rule(),
            "benign": self.benign, "benign_errors": self.benign_errors, "misses": self.misses,
            "warned": self.warned,
        }


def _apply(doc: dict[str, Any], edit: dict[str, Any]) -> tuple[str, int]:
    """Apply an edit in place; returns the pointer and where the replacement starts."""
    pointer = edit.get("pointer", "/body")
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node: Any = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
    text = str(node[key])
    find, occurrence = edit["find"], int(edit.get("occurrence", 1))
    at = -1
    for _ in range(occurrence):
        at = text.find(find, at + 1)
        if at < 0:
            raise ValueError(f"{find!r} does not occur {occurrence} time(s) in {pointer}")
    node[key] = text[:at] + edit["replace"] + text[at + len(find):]
    if pointer == "/body":
        doc["editorial_word_count"] = word_count(doc["body"])
    return pointer, at


def _verify(doc: dict[str, Any], workdir: Path) -> list[Finding]:
    path = workdir / f"{doc.get('id', 'article')}.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return verify_file(path).findings


def _span_location(body: str, span: str, near: int, length: int = 0
                   ) -> tuple[int, int, int] | None:
    """(line, column, end column) of ``span``: its occurrence inside the replaced text
    ``body[near:near + length]`` when there is one, else the occurrence nearest to ``near``."""
    starts, i = [], body.find(span)
    while i >= 0:
        starts.append(i)
        i = body.find(span, i + 1)
    if not starts:
        return None
    inside = [s for s in starts if near <= s and s + len(span) <= near + length]
    start = inside[0] if inside else min(starts, key=lambda s: abs(s - near))
    line = body.count("\n", 0, start) + 1
    column = start - (body.rfind("\n", 0, start) + 1) + 1
    return line, column, column + len(span)


def _detects(finding: Finding, rule: str, pointer: str,
             where: tuple[int, int, int] | None) -> bool:
    if finding.rule != rule:
        return False
    if pointer == "/body":
        if where is None or finding.pointer != "/body" or finding.line != where[0]:
            return False
        start, end = finding.column or 0, finding.end_column or (finding.column or 0) + 1
        return start < where[2] and where[1] < end
    parent = pointer.rsplit("/", 1)[0]
    return finding.pointer == pointer or finding.pointer.startswith(parent + "/")


def _key(f: Finding) -> tuple[str, str, str]:
    return f.rule, f.pointer, f.message


def _describe(findings: Iterable[Finding]) -> str:
    return "; ".join(f"{f.severity.value} {f.rule} {f.line}:{f.column}" for f in findings) or "-"


def evaluate(sets: list[str], workdir: Path) -> Result:
    result = Result(sets=sets)
    for name in sets:
        manifest = json.loads((CORPUS / name / "manifest.json").read_text(encoding="utf-8"))
        docs, clean = {}, {}
        for art in manifest["articles"]:
            doc = json.loads((CORPUS / name / art["file"]).read_text(encoding="utf-8"))
            docs[art["id"]] = doc
            found = _verify(doc, workdir)
            clean[art["id"]] = Counter(map(_key, found))
            result.articles += 1
            tag = f"{name}/{art['id']}"
            result.clean_errors[tag] = [f"{f.rule}: {f.message}" for f in found
                                        if f.severity is Severity.error]
            result.clean_warnings[tag] = [f"{f.rule}: {f.message}" for f in found
                                          if f.severity is Severity.warning]
            for f in found:
                if f.severity in (Severity.error, Severity.warning):
                    result.false_findings[f.rule] += 1
        for m in manifest["mutations"]:
            doc = copy.deepcopy(docs[m["article"]])
            pointer, at = _apply(doc, m["edit"])
            node: Any = doc
            if pointer == "/body":
                where = _span_location(doc["body"], m["span"], at, len(m["edit"]["replace"]))
            else:
                where = None
            found = _verify(doc, workdir)
            hits = [f for f in found if _detects(f, m["rule"], pointer, where)]
            result.planted[m["rule"]] += 1
            if any(f.severity is Severity.error for f in hits):
                result.as_error[m["rule"]] += 1
            elif hits:
                result.as_warning[m["rule"]] += 1
                result.warned.append(f"{name} {m['id']} [{m['rule']}] {m['span']!r}")
            else:
                near = [f for f in found if _key(f) not in clean[m["article"]]]
                result.misses.append(
                    f"{name} {m['id']} [{m['rule']}] {m.get('kind', '')}: span {m['span']!r} "
                    f"at {where or pointer}; new findings: {_describe(near)}")
            del node
        for b in manifest.get("benign", []):
            doc = copy.deepcopy(docs[b["article"]])
            _apply(doc, b["edit"])
            found = _verify(doc, workdir)
            result.benign += 1
            before = clean[b["article"]]
            new = Counter(map(_key, found)) - before
            for f in found:
                if _key(f) in new and f.severity in (Severity.error, Severity.warning):
                    result.false_findings[f.rule] += 1
                    if f.severity is Severity.error:
                        result.benign_errors.append(f"{name} {b['id']}: {f.rule}: {f.message}")
    return result


def _print(result: Result) -> None:
    data = result.to_dict()
    print(f"sets: {', '.join(result.sets)}; {result.articles} clean article(s), "
          f"{data['planted']} planted error(s), {result.benign} benign edit(s)")
    print(f"{'rule':32} {'planted':>7} {'error':>6} {'warn':>5} {'false':>6} {'recall':>7} "
          f"{'precision':>9}")
    for rule, row in data["per_rule"].items():
        print(f"{rule:32} {row['planted']:>7} {row['as_error']:>6} {row['as_warning']:>5} "
              f"{row['false']:>6} {row['recall']:>7.2f} {row['precision']:>9.2f}")
    print(f"recall (right rule, right span): {data['recall']:.3f} "
          f"({data['detected']}/{data['planted']})")
    print(f"false errors per clean article: {data['false_errors_per_article']:.2f}; "
          f"warnings per clean article: {data['warnings_per_article']:.2f}")
    for tag, errors in result.clean_errors.items():
        for e in errors:
            print(f"  clean error {tag}: {e}")
    print(f"benign edits raising a new error: {len(result.benign_errors)}")
    for line in result.benign_errors:
        print(f"  {line}")
    print(f"misses ({len(result.misses)}):")
    for line in result.misses:
        print(f"  {line}")


def available_sets() -> list[str]:
    return sorted(p.parent.name for p in CORPUS.glob("*/manifest.json"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets",
                        help="corpus set to run (repeatable; default: every set)")
    add_output_option(parser, "--json")
    args = parser.parse_args(argv)
    res = Results("bench_accuracy", args)
    sets = args.sets or available_sets()
    with tempfile.TemporaryDirectory() as tmp:
        result = evaluate(sets, Path(tmp))
    _print(result)
    res.save(**result.to_dict())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
