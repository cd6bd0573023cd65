"""Every finding ``ledger verify`` raises on the evaluation corpus and the seed, one per line.

A guard for speed work: an optimisation must leave this output byte-identical. For each corpus
set (``tests/corpus/set-*``) it verifies every clean article, every planted mutation and every
benign edit (applied as ``bench_accuracy.py`` applies them), then every article in ``claims/``,
and prints each finding as ``case<TAB>severity<TAB>rule<TAB>pointer<TAB>line:column-end<TAB>
message``.

The ``ledger`` imported is the one of the checkout holding this script (``bench_accuracy``
puts it first on ``sys.path``); to compare two versions of the code, run a copy of this script in
each checkout on the same corpus (``scripts/findings_guard.sh`` does this against the branch's
merge base)::

    python /path/to/base/scripts/findings_dump.py --root . > before.txt
    python scripts/findings_dump.py --root . > after.txt
    cmp before.txt after.txt
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_accuracy import _apply  # noqa: E402  (benchmarks/bench_accuracy.py)

from ledger.report import Finding  # noqa: E402
from ledger.verify import verify_file  # noqa: E402

__all__ = ["dump", "main"]


def _lines(case: str, findings: list[Finding]) -> list[str]:
    return [f"{case}\t{f.severity.value}\t{f.rule}\t{f.pointer}\t"
            f"{f.line}:{f.column}-{f.end_column}\t{f.file_line}:{f.file_column}\t{f.message}"
            for f in findings]


def _verify(doc: dict[str, Any], workdir: Path) -> list[Finding]:
    path = workdir / f"{doc.get('id', 'article')}.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return verify_file(path).findings


def dump(root: Path, workdir: Path) -> list[str]:
    out: list[str] = []
    for manifest_path in sorted((root / "tests" / "corpus").glob("set-*/manifest.json")):
        name = manifest_path.parent.name
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        docs = {}
        for art in manifest["articles"]:
            doc = json.loads((manifest_path.parent / art["file"]).read_text(encoding="utf-8"))
            docs[art["id"]] = doc
            out += _lines(f"{name}/{art['id']}", _verify(doc, workdir))
        for kind in ("mutations", "benign"):
            for m in manifest.get(kind, []):
                doc = copy.deepcopy(docs[m["article"]])
                _apply(doc, m["edit"])
                out += _lines(f"{name}/{kind}/{m['id']}", _verify(doc, workdir))
    for path in sorted((root / "claims").glob("*.json")):
        out += _lines(f"claims/{path.name}", verify_file(path).findings)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="checkout whose tests/corpus and claims/ are read")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        lines = dump(args.root.resolve(), Path(tmp))
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
