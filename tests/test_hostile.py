"""Hostile input: non-finite numbers, deep nesting, huge bodies and lone surrogates are refused
with one clear line (exit 2), the same way by ``verify`` and ``ingest``; verification time is
linear in the body."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ledger.cli import main
from ledger.models import Article
from ledger.verify import MAX_BODY_CHARS, verify_article, verify_file

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "claims" / "pct-2026-11-04-spotlight-mooncake-store.json"
RAW = SEED.read_text(encoding="utf-8")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, words", [
    ('"result": 0.625', '"result": Infinity', "non-finite number Infinity"),
    ('"result": 0.625', '"result": -Infinity', "non-finite number -Infinity"),
    ('"result": 0.625', '"result": 1e400', "1e400 is too large to be finite"),
    ('"throughput_multiplier": 3.8', '"throughput_multiplier": NaN', "non-finite number NaN"),
    ('"value": 46,', '"value": 1e999,', "1e999 is too large to be finite"),
])
def test_non_finite_numbers_are_refused_at_their_line(tmp_path: Path, capsys, old: str,
                                                      new: str, words: str) -> None:
    assert RAW.count(old) >= 1
    text = RAW.replace(old, new, 1)
    path = write(tmp_path, text)
    line = text[:text.index(new)].count("\n") + 1
    assert main(["verify", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"hostile.json:{line}:" in out and words in out
    assert out.count("\n") == 2  # one finding line and the summary


def test_ingest_refuses_the_same_file(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, RAW.replace('"result": 0.625', '"result": Infinity', 1))
    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    code = main(["ingest", "--db", db, str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and "non-finite number Infinity" in out + err


def test_models_refuse_non_finite_values() -> None:
    doc = json.loads(RAW)
    doc["benchmark_scope"]["reported_metrics"]["x"] = float("inf")
    with pytest.raises(ValueError, match="finite"):
        Article.model_validate_json(json.dumps(doc))


@pytest.mark.parametrize("depth", [65, 1000, 5000])
def test_deep_nesting_exits_2_as_unreadable(tmp_path: Path, capsys, depth: int) -> None:
    path = write(tmp_path, "[" * depth + "]" * depth)
    assert main(["verify", str(path)]) == 2
    assert "nested more than 64 levels deep" in capsys.readouterr().out


def test_lone_surrogate_is_located_in_the_users_file(tmp_path: Path, capsys) -> None:
    text = RAW.replace('"title": "Mooncake', '"title": "Moon\\ud800cake', 1)
    path = write(tmp_path, text)
    index = text.index("\\ud800")
    line = text[:index].count("\n") + 1
    column = index - text.rfind("\n", 0, index)
    assert main(["verify", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"hostile.json:{line}:{column}:" in out and "lone UTF-16 surrogate" in out


def test_a_surrogate_pair_is_fine(tmp_path: Path) -> None:
    doc = json.loads(RAW)
    doc["title"] += " \U0001F600"
    path = write(tmp_path, json.dumps(doc, indent=2))  # ensure_ascii: written as a \\ud83d pair
    assert "\\ud83d\\ude00" in path.read_text()
    assert not verify_file(path).unreadable


def test_body_over_the_maximum_is_refused(tmp_path: Path) -> None:
    doc = json.loads(RAW)
    doc["body"] = "The authors reported 3.8 times the throughput. " * (MAX_BODY_CHARS // 40)
    result = verify_file(write(tmp_path, json.dumps(doc)))
    assert result.unreadable and "maximum" in result.findings[-1].message


def _seconds(article: Article, body: str) -> float:
    art = article.model_copy(update={"body": body})
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        verify_article(art)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
def test_verification_is_linear_in_the_body() -> None:
    article = Article.model_validate_json(RAW)
    sentence = "They reported 3.8 times the throughput on 12 GPUs and 92.2% hits. "
    small, large = _seconds(article, sentence * 250), _seconds(article, sentence * 1000)
    assert large / small < 4 * 1.6, (small, large)  # 4x the text, well under 16x
    digits = _seconds(article, "1" * 32_000)
    assert digits < 1.0
