"""The JSON report: a versioned schema (``perturb.report/v1``) naming its metric definitions.

Metric figures (mean, pass@k, pass^k, changes and their interval bounds) are rounded like every
other format (:mod:`perturb.report.rounding`: 3 decimals, half to even, so 37/80 is 0.462);
measurements (latency, cost, tokens, shares, p-values) to 6 decimals; k-indexed figures are
objects keyed by k as a string (``{"1": 0.55, "2": 0.425}``). The layout is documented in docs/reports.md.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from perturb._version import __version__
from perturb.report.aggregate import Analysis, ClassSummary, Delta, Interval, TaskRow
from perturb.report.details import OUTPUT_CHARS
from perturb.report.formats import DEFINITIONS, SCHEMA, SCHEMA_VERSION, tables
from perturb.report.formats.spec import FormatSpec
from perturb.report.rounding import rounded


def _r(value: float | None) -> float | None:
    """Measurements (latency, cost, tokens, shares, p-values): 6 decimals."""
    return None if value is None else round(float(value), 6)


def _fig(value: float | None) -> float | None:
    """A metric figure (mean, pass@k, pass^k, a change or interval bound): the one rounding rule
    of every format (:func:`perturb.report.rounding.rounded`, 3 decimals, half to even)."""
    return None if value is None else rounded(value)


def _kmap(values: dict[int, float]) -> dict[str, float | None]:
    return {str(k): _fig(v) for k, v in sorted(values.items())}


def _iv(iv: Interval) -> dict[str, float | None]:
    return {"point": _fig(iv.point), "low": _fig(iv.low), "high": _fig(iv.high)}


def _delta(d: Delta | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "matched_tasks": d.n_tasks,
        "reliable": d.mean.reliable,
        "mean": _iv(d.mean),
        "pass^k": {str(k): _iv(iv) for k, iv in sorted(d.pass_hat.items())},
        "min_detectable_drop": {"mean": _fig(d.mde_mean), "pass^k": _fig(d.mde_pass_hat), "power": 0.8},
    }


def _class(c: ClassSummary) -> dict[str, Any]:
    return {
        "class": c.kind,
        "tasks": c.n_tasks,
        "prompts": c.n_variants,
        "trials": c.n_trials,
        "n_min": c.n_min,
        "n_max": c.n_max,
        "mean": _fig(c.mean),
        "pass@k": _kmap(c.pass_at),
        "pass^k": _kmap(c.pass_hat),
        "pass^k_curve": [{"k": k, "value": _fig(v)} for k, v in c.curve],
        "delta_vs_canonical": _delta(c.delta),
        "labels": {
            "stable-pass": c.stable_pass,
            "flaky": c.flaky,
            "brittle": c.brittle,
            "stable-fail": c.stable_fail,
        },
        "consistently_wrong": c.consistently_wrong,
        "errored": c.errored,
        "errored_share": _r(c.errored_share),
        "excluding_errored": {
            "tasks": c.excl_errored_tasks,
            "mean": _fig(c.excl_errored_mean),
            "pass^k": _fig(c.excl_errored_pass_hat),
        },
        "worst_variant": {"mean": _fig(c.worst_variant_mean), "pass^k": _fig(c.worst_variant_pass_hat)},
        "latency_s": {"p50": _r(c.latency_p50), "p95": _r(c.latency_p95)},
        "cost": {
            "trials_with_cost": c.cost_trials,
            "usd_per_attempt": _r(c.cost_per_attempt),
            "input_tokens_per_attempt": _r(c.input_tokens),
            "output_tokens_per_attempt": _r(c.output_tokens),
        },
        "levels": [
            {
                "level": lv.level,
                "tasks": lv.n_tasks,
                "prompts": lv.n_variants,
                "trials": lv.n_trials,
                "epsilon": _r(lv.epsilon),
                "mean": _fig(lv.mean),
                "pass^k": _fig(lv.pass_hat),
                "delta_mean_vs_canonical": _fig(lv.delta_mean),
            }
            for lv in c.levels
        ],
    }


def _task(t: TaskRow) -> dict[str, Any]:
    return {
        "task_id": t.task_id,
        "class": t.kind,
        "weight": t.weight,
        "prompts": t.variants,
        "n": t.n,
        "passed": t.passed,
        "wrong": t.wrong,
        "errored": t.errored,
        "mean": _fig(t.mean),
        "pass@k": _kmap(t.pass_at),
        "pass^k": _kmap(t.pass_hat),
        "all_passed": t.all_passed,
        "label": t.label,
        "always_failing": t.always_failing,
        "worst_variant_mean": _fig(t.worst_variant_mean),
        "consistently_wrong": t.consistently_wrong,
        "wrong_output": t.wrong_output,
    }


def to_dict(a: Analysis) -> dict[str, Any]:
    """The report as a JSON-ready dict."""
    m = a.data.manifest
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "generated_by": f"perturb {__version__}",
        "definitions": DEFINITIONS,
        "run": {
            "run_id": m.run_id,
            "suite": m.suite,
            "agent": m.agent,
            "model": m.model,
            "sampling": m.sampling,
            "trials": m.trials,
            "tier": m.tier,
            "seed": m.seed,
            "started_at": m.started_at,
            "perturb_version": m.perturb_version,
            "lock_sha256": m.lock_sha256,
            "config_hash": m.config_hash,
        },
        "settings": {
            "k": a.ks,
            "primary_k": a.k,
            "bootstrap": a.bootstrap,
            "seed": a.seed,
            "interval_level": a.level,
        },
        "totals": {
            "tasks": a.n_tasks,
            "prompts": a.n_variants,
            "trials": a.n_trials,
            "n_min": a.n_min,
            "n_max": a.n_max,
            "lines_read": a.data.lines,
            "superseded_lines": a.data.superseded,
            "truncated_tail": a.data.truncated_tail,
        },
        "classes": [_class(c) for c in a.classes],
        "tasks": [_task(t) for t in a.tasks],
        "worst_tasks": [{"task_id": t.task_id, "class": t.kind} for t in a.worst],
        "consistently_wrong": [
            {"task_id": t.task_id, "class": t.kind, "wrong": t.wrong, "n": t.n, "output": t.wrong_output}
            for t in a.consistently_wrong
        ],
        "meaning_drift": [
            {
                "variant_id": d.variant_id,
                "task_id": d.task_id,
                "class": d.kind,
                "n": d.n,
                "passed": d.passed,
                "canonical_n": d.canonical_n,
                "canonical_passed": d.canonical_passed,
                "p_value": _r(d.p_value),
            }
            for d in a.drift
        ],
        "faults": _faults(a),
        "failures": _failures(a),
        "failing_prompts": _failing_prompts(a),
        "warnings": a.warnings,
        "notes": a.notes,
    }


def _bounded(value: Any) -> tuple[Any, bool]:
    """An output as it is, or its compact JSON cut to ``OUTPUT_CHARS`` (and True)."""
    text = tables.output_text(value)
    if len(text) <= OUTPUT_CHARS:
        return value, False
    return text[:OUTPUT_CHARS], True


def _failures(a: Analysis) -> dict[str, Any] | None:
    """How the failing examples are bounded, where the texts came from, errored trials by cause."""
    d = a.details
    if d is None:
        return None
    return {
        "sample_per_prompt": d.sample,
        "sample_rule": f"per prompt: the first {d.sample} wrong and the first {d.sample} errored "
        f"trials by attempt; outputs and errors longer than {OUTPUT_CHARS} characters are cut "
        "to their first characters (as compact JSON) with output_cut true",
        "fixtures": None if d.fixtures is None else str(d.fixtures),
        "note": d.note,
        "errored_by_cause": {
            c.kind: [
                {
                    "kind": cause.kind,
                    "cause": cause.key,
                    "trials": cause.count,
                    "prompts": len(cause.variants),
                    "example": cause.example[:OUTPUT_CHARS],
                    "example_variant": cause.example_variant,
                    "example_attempt": cause.example_attempt,
                }
                for cause in d.causes.get(c.kind, [])
            ]
            for c in a.classes
            if d.causes.get(c.kind)
        },
    }


def _failing_prompts(a: Analysis) -> list[dict[str, Any]]:
    """Every prompt with a wrong or errored trial: its text, expected value, grader notes, a
    bounded sample of wrong and errored trials, and its trace divergence."""
    d = a.details
    if d is None:
        return []
    order = {c.kind: i for i, c in enumerate(a.classes)}
    rows = sorted(
        (p for p in d.prompts.values() if p.failed),
        key=lambda p: (order.get(p.kind, len(order)), p.passed / p.n, p.variant_id),
    )
    out = []
    for p in rows:
        wrong, errored = [], []
        for t in p.failing:
            if t.outcome == "wrong":
                output, cut = _bounded(t.output)
                item: dict[str, Any] = {"attempt": t.attempt, "output": output, "grader_note": t.grader_note}
                if cut:
                    item["output_cut"] = True
                wrong.append(item)
            else:
                errored.append(
                    {
                        "attempt": t.attempt,
                        "error_kind": t.error_kind,
                        "error": (t.error or "")[:OUTPUT_CHARS],
                    }
                )
        out.append(
            {
                "variant_id": p.variant_id,
                "task_id": p.task_id,
                "class": p.kind,
                "n": p.n,
                "passed": p.passed,
                "wrong": p.wrong,
                "errored": p.errored,
                "prompt": p.prompt,
                "expected": p.expected,
                "grader_notes": [{"note": note, "count": c} for note, c in p.notes.most_common()],
                "wrong_sample": wrong,
                "errored_sample": errored,
                "divergence": None if p.divergence is None else p.divergence.sentence(),
            }
        )
    return out


_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _escape_bidi(text: str) -> str:
    """Bidi controls and line/paragraph separators written as ``\\uXXXX`` escapes (they can
    only occur inside JSON strings, where the escape means the same character), so the file
    reads in its true order in an editor or a terminal."""
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _faults(a: Analysis) -> dict[str, Any] | None:
    f = a.faults
    if f is None:
        return None
    return {
        "classes": f.classes,
        "lambdas": [
            {
                "lam": r.lam,
                "n_tasks": r.n_tasks,
                "n_prompts": r.n_variants,
                "n_trials": r.n_trials,
                "n_min": r.n_min,
                "n_max": r.n_max,
                "mean": _fig(r.mean),
                "pass_hat_k": _kmap(r.pass_hat),
                "delta": _delta(r.delta),
                "errored": r.errored,
                "tool_calls": r.calls,
                "faulted_calls": r.faulted_calls,
                "calls_before_retry_after": r.early_calls,
                "give_up_trials": r.give_up_trials,
                "duplicated_side_effects": r.duplicates,
            }
            for r in f.lambdas
        ],
        "by_class": [
            {
                "fault": r.fault,
                "n_tasks": r.n_tasks,
                "n_met": r.n_met,
                "n_no_fault": r.n_clean,
                "success_met": _fig(r.met_mean),
                "success_no_fault": _fig(r.clean_mean),
                "delta": _fig(r.delta),
            }
            for r in f.by_class
        ],
    }


ROW_LISTS = ("tasks", "worst_tasks", "consistently_wrong", "meaning_drift", "failing_prompts")
"""Top-level lists written one compact object per line (readable, diffable, fast)."""


def render_json(a: Analysis) -> str:
    """Indented JSON (rows of the long lists one per line) with a trailing newline."""
    data = to_dict(a)
    rows = {key: data[key] for key in ROW_LISTS}
    marks = {key: f"@@{key}-{uuid.uuid4().hex}@@" for key in ROW_LISTS}
    for key in ROW_LISTS:
        data[key] = marks[key]
    text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    for key, items in rows.items():
        if items:
            body = ",\n".join(
                "    " + json.dumps(item, ensure_ascii=False, allow_nan=False) for item in items
            )
            block = "[\n" + body + "\n  ]"
        else:
            block = "[]"
        text = text.replace(f'"{marks[key]}"', block, 1)
    return _escape_bidi(text) + "\n"


SPEC = FormatSpec(name="json", extension="json", render=render_json, aliases=(), suffixes=())
