"""Every request body in the OpenAPI page carries a real example (issue 30): without
one, the docs page makes one up from the schema's patterns (a random collection name,
an owner of ``{}}~|…``). Each example must be valid against its own schema."""

from __future__ import annotations

import jsonschema
import pytest

from ragline.server.app import create_app
from ragline.settings import Settings


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return create_app(Settings(home=tmp_path_factory.mktemp("openapi") / "home")).openapi()


def _bodies(spec: dict) -> list[tuple[str, str, dict]]:
    out = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                out.append((f"{method.upper()} {path} ({media})", media, content["schema"]))
    return out


def _component(spec: dict, schema: dict) -> dict:
    ref = schema.get("$ref") or next((s["$ref"] for s in schema.get("anyOf", []) if "$ref" in s), None)
    assert ref, schema
    return spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def test_every_json_body_has_a_valid_example(spec: dict) -> None:
    bodies = [(name, schema) for name, media, schema in _bodies(spec) if media == "application/json"]
    assert len(bodies) >= 12
    for name, schema in bodies:
        component = _component(spec, schema)
        examples = component.get("examples")
        assert examples, f"{name}: no example"
        for example in examples:
            jsonschema.validate(example, {**component, "components": spec["components"]},
                                cls=jsonschema.Draft202012Validator)


def test_form_fields_with_a_pattern_have_an_example(spec: dict) -> None:
    for name, media, schema in _bodies(spec):
        if media != "multipart/form-data":
            continue
        for field, prop in _component(spec, schema)["properties"].items():
            patterned = "pattern" in prop or any("pattern" in s for s in prop.get("anyOf", []))
            assert not patterned or prop.get("examples"), f"{name}: form field {field!r} has no example"


def test_uploaded_files_get_a_file_picker_not_random_text(spec: dict) -> None:
    """``contentMediaType`` alone: Swagger UI fills a text box with random bytes."""
    for name, media, schema in _bodies(spec):
        if media == "multipart/form-data":
            for field, prop in _component(spec, schema)["properties"].items():
                item = prop.get("items", prop)
                if item.get("contentMediaType") == "application/octet-stream":
                    assert item.get("format") == "binary", (name, field)
