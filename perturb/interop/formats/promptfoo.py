"""promptfoo test files: a YAML list of test cases (``description``, ``vars``, ``assert``,
``metadata``), the schema of a promptfoo config's ``tests``.

Export writes one test case per fixture entry: ``vars.prompt`` is the prompt (use the prompt
template ``'{{prompt}}'``), ``metadata`` the provenance (suite, task id, class, ε, the entry's
sha256, the lock's sha256) plus the grader, raw expected value, weight, slots and task metadata.
The assertion grades with perturb's own grader, so promptfoo and ``perturb run`` agree on
every output: a ``python`` assertion calling :func:`grade_output` with the grader and expected
value as a JSON literal (perturb must be importable by the Python promptfoo runs; a
``callable`` grader's module too). An ``llm_judge`` grader becomes promptfoo's own
``llm-rubric`` with the rubric (promptfoo's judge, not perturb's).

Import reads a test file (a list of test cases, or a config with ``tests``): the prompt is the
var named ``prompt`` (or the only var); one assertion gives the grader: ``equals`` -> exact,
``contains`` -> contains, ``contains-all`` -> contains (a list), ``regex`` -> regex,
``starts-with`` -> regex, ``llm-rubric`` -> llm_judge. Test cases of a perturb export keep
their grader; their perturbed variants are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from perturb.errors import InputError
from perturb.interop.formats._common import is_perturb_export, perturb_metadata, task_from_perturb_metadata
from perturb.interop.spec import Exported, ExportRow, ImportedRow, InteropSpec

_GRADE_CODE = (
    "from perturb.interop.formats.promptfoo import grade_output\nreturn grade_output(output, {spec})\n"
)


def grade_output(output: Any, spec: str) -> dict[str, Any]:
    """What the exported ``python`` assertion returns: perturb's grade of ``output`` as
    promptfoo's grading result (``pass``, ``score``, ``reason``). ``spec`` is the JSON text
    ``{"grader": ..., "expected": ...}`` the export embedded."""
    from perturb.records import Grader
    from perturb.run.graders import grade

    data = json.loads(spec)
    passed, note = grade(Grader.model_validate(data["grader"]), data["expected"], output)
    return {"pass": passed, "score": 1.0 if passed else 0.0, "reason": note or "passed (perturb grader)"}


def assertion(row: ExportRow) -> dict[str, Any]:
    """The promptfoo assertion of one entry (see the module docstring)."""
    e = row.entry
    if e.grader.type == "llm_judge":
        return {"type": "llm-rubric", "value": e.grader.rubric}
    spec = json.dumps(
        {"grader": e.grader.model_dump(mode="json", exclude_none=True), "expected": e.expected},
        ensure_ascii=True,
        separators=(",", ":"),
        sort_keys=True,
    )
    return {"type": "python", "value": _GRADE_CODE.format(spec=repr(spec))}


def cases(rows: list[ExportRow]) -> list[dict[str, Any]]:
    """The test cases of an export, as plain data."""
    return [
        {
            "description": row.entry.id,
            "vars": {"prompt": row.entry.prompt},
            "assert": [assertion(row)],
            "metadata": perturb_metadata(row),
        }
        for row in rows
    ]


def _block(dumper: Any, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _dumper() -> Any:
    import yaml

    class Dumper(yaml.SafeDumper):
        """Multi-line strings (the assertion's code) as YAML literal blocks."""

    Dumper.add_representer(str, _block)
    return Dumper


def _export(rows: list[ExportRow]) -> Exported:
    import yaml

    header = (
        "# promptfoo test cases written by `perturb export --to promptfoo` (one per frozen prompt;\n"
        "# metadata.sha256 is the prompt's hash in the fixture lock). In promptfooconfig.yaml:\n"
        "#   prompts: ['{{prompt}}']\n"
        "#   tests: file://<this file>\n"
    )
    body = yaml.dump(cases(rows), Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=100)
    notes = []
    judged = sum(row.entry.grader.type == "llm_judge" for row in rows)
    if judged:
        notes.append(
            f"note: {judged} prompts use llm_judge: exported as promptfoo's llm-rubric "
            "(promptfoo's judge model, not perturb's)"
        )
    return Exported(header + body, notes)


def _line_numbers(text: str) -> list[int] | None:
    """The 1-based line of each test case, in order (None when the file is not a list of
    tests nor a mapping with ``tests``)."""
    import yaml

    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if getattr(k, "value", None) == "tests"), None)
    if not isinstance(node, yaml.SequenceNode):
        return None
    return [item.start_mark.line + 1 for item in node.value]


def _read(path: Path, data: bytes) -> list[ImportedRow]:
    import yaml

    name = str(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(name, "not valid UTF-8 (expected a UTF-8 YAML or JSON file)", line=line) from None
    try:
        doc = yaml.safe_load(text)
        lines = _line_numbers(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or "malformed"
        raise InputError(
            name,
            f"invalid YAML: {problem} (expected a promptfoo test file)",
            line=None if mark is None else mark.line + 1,
        ) from None
    tests = doc.get("tests") if isinstance(doc, dict) else doc
    if not isinstance(tests, list) or lines is None:
        raise InputError(
            name,
            "expected a list of test cases, or a promptfoo config whose tests is a list "
            "(a tests: file:// reference cannot be followed; import that file instead)",
        )
    return [_test(name, line, test) for line, test in zip(lines, tests, strict=True)]


def _test(name: str, line: int, test: Any) -> ImportedRow:
    if not isinstance(test, dict):
        raise InputError(name, "expected a test case (a mapping with vars and assert)", line=line)
    variables = test.get("vars")
    if not isinstance(variables, dict) or not variables:
        raise InputError(name, "missing or empty (expected the test's variables)", line=line, field="vars")
    if "prompt" in variables:
        key = "prompt"
    elif len(variables) == 1:
        key = next(iter(variables))
    else:
        raise InputError(
            name,
            f"several vars ({', '.join(map(str, variables))}) and none named prompt (expected the "
            "prompt text in a var named prompt)",
            line=line,
            field="vars",
        )
    prompt = variables[key]
    meta = test.get("metadata")
    if is_perturb_export(meta):
        task, variant = task_from_perturb_metadata(meta, prompt)
        return ImportedRow(line, task, variant)
    task = {"prompt": prompt, **_grader(name, line, test.get("assert"))}
    extra: dict[str, Any] = {k: v for k, v in variables.items() if k != key}
    if test.get("description"):
        extra["description"] = test["description"]
    if isinstance(meta, dict):
        extra.update(meta)
    if extra:
        task["metadata"] = extra
    return ImportedRow(line, task)


_MAPPED = "equals, contains, contains-all, regex, starts-with, llm-rubric"


def _grader(name: str, line: int, asserts: Any) -> dict[str, Any]:
    """``expected`` and ``grader`` from a test case's single assertion."""
    if not isinstance(asserts, list) or len(asserts) != 1 or not isinstance(asserts[0], dict):
        count = len(asserts) if isinstance(asserts, list) else 0
        raise InputError(
            name,
            f"{count} assertions (expected exactly one of type {_MAPPED}: a perturb task has one grader)",
            line=line,
            field="assert",
        )
    kind, value = asserts[0].get("type"), asserts[0].get("value")
    if kind == "equals":
        return {"expected": value, "grader": "exact"}
    if kind == "contains" and isinstance(value, str):
        return {"expected": value, "grader": "contains"}
    if kind == "contains-all" and isinstance(value, list):
        return {"expected": value, "grader": "contains"}
    if kind == "regex" and isinstance(value, str):
        return {"expected": value, "grader": "regex"}
    if kind == "starts-with" and isinstance(value, str):
        return {"expected": "^" + re.escape(value), "grader": "regex"}
    if kind == "llm-rubric" and isinstance(value, str):
        return {"expected": None, "grader": {"type": "llm_judge", "rubric": value}}
    shown = json.dumps(kind)[:40]
    raise InputError(
        name,
        f"assertion type {shown} with this value has no perturb grader (expected one of {_MAPPED})",
        line=line,
        field="assert.0.type",
    )


SPEC = InteropSpec(
    name="promptfoo",
    summary="promptfoo test cases (YAML): vars.prompt, a perturb-graded assertion, metadata",
    extension="yaml",
    export=_export,
    read=_read,
)
