"""Committed schemas match the models, and validate articles with plain jsonschema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from verify_fixtures import SECOND, SEED, load

from ledger.schema import SCHEMA_DIR, check_schemas, export_schemas


def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / "article.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def test_committed_schemas_do_not_drift() -> None:
    assert check_schemas() == [], "run `ledger schema export`"


def test_drift_is_detected(tmp_path: Path) -> None:
    export_schemas(tmp_path)
    assert check_schemas(tmp_path) == []
    path = tmp_path / "article.schema.json"
    path.write_text(path.read_text().replace('"title"', '"Title"', 1))
    assert check_schemas(tmp_path) == ["article.schema.json"]
    (tmp_path / "run.schema.json").unlink()
    assert check_schemas(tmp_path) == ["article.schema.json", "run.schema.json"]


def test_schema_has_id_and_titles() -> None:
    schema = json.loads((SCHEMA_DIR / "article.schema.json").read_text(encoding="utf-8"))
    assert schema["$id"].endswith("article.schema.json") and schema["title"]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", [SEED, SECOND], ids=["seed", "second"])
def test_articles_validate_with_plain_jsonschema(path: Path) -> None:
    errors = list(validator().iter_errors(load(path)))
    assert errors == []


@pytest.mark.parametrize("change", [
    lambda d: d.pop("facts"),
    lambda d: d.update(editorial_word_count="558"),
    lambda d: d.update(unknown_field=1),
    lambda d: d["facts"][0].update(source_ids=[]),
    lambda d: d["corrections"][0]["rule"].update(kind="nonsense"),
])
def test_jsonschema_rejects_invalid_articles(change) -> None:
    doc = copy.deepcopy(load())
    change(doc)
    assert list(validator().iter_errors(doc))


def test_jsonschema_accepts_extensions() -> None:
    doc = copy.deepcopy(load())
    doc["x-desk-note"] = "kept"
    assert list(validator().iter_errors(doc)) == []
