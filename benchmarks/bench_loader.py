"""Cost of the strict JSON loader (``perturb.io.jsonl.loads_strict``) against plain ``json.loads``.

Every reader parses through ``loads_strict`` (duplicate keys, non-finite numbers, huge integers,
deep nesting refused). This prints, measured in one run on the same trial lines: microseconds
per line for both and their ratio (interleaved, best of three), the time of a resume scan
(``scan_trials``) of a 100,000-line ``trials.jsonl``, and the JSONL reader ``iter_jsonl_lines`` (lines read by
``jsonlines.Reader``) against the hand-written line loop it replaced (kept below as
``hand_loop``, same parser and messages), interleaved, best of five each; and the cost of
``perturb report`` reading every trial line through the strict parser
(``perturb.run.store.parse_trial_line`` then the Trial model) and through the screened reader
``perturb report`` uses (``perturb.run.store.read_trial_line``: pydantic's ``validate_json``,
then a byte-count screen, the strict path only where the screen fires; same trials, same
refusals) against pydantic's unchecked ``validate_json`` fast path alone (which takes a
duplicate key silently), interleaved, best of five each, with the whole ``read_run`` of the
same file for scale, read with each reader (interleaved, best of three).

    .venv/bin/python benchmarks/bench_loader.py [--lines 100000] [--json PATH]

``--json PATH`` writes the figures (benchmarks/results/loader.json feeds docs/guarantees.md
through docs/gen_bench_tables.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_report import write_manifest  # noqa: E402
from benchmarks.results import add_json_option, load_average, write_results  # noqa: E402
from perturb.errors import InputError  # noqa: E402
from perturb.io.jsonl import _parse, _Reject, iter_jsonl_lines, loads_strict  # noqa: E402
from perturb.records import Trial  # noqa: E402
from perturb.report import results  # noqa: E402
from perturb.report.results import read_run  # noqa: E402
from perturb.run.store import REPORT_FIX, parse_trial_line, read_trial_line, scan_trials  # noqa: E402

LINE = {
    "run_id": "demo-d1af80b5",
    "suite": "demo",
    "task_id": "a",
    "variant_id": "a/canonical",
    "variant_sha256": "sha256:" + "0" * 64,
    "perturbation": "canonical",
    "level": None,
    "epsilon": 0.0,
    "weight": 1.0,
    "attempt": 0,
    "outcome": "passed",
    "output": {"total": 42, "items": [1, 2, {"sku": "A-1"}]},
    "error": None,
    "error_kind": None,
    "grader_note": None,
    "latency_s": 0.06684,
    "usage": {"input_tokens": 10, "output_tokens": 3, "cost_usd": None},
    "trace": None,
    "seed": 654147073,
    "retry": 0,
}


def hand_loop(name: str, data: bytes) -> list:
    """The loop ``iter_jsonl_lines`` had before jsonlines (split, decode, parse, check)."""
    out: list = []
    ends_clean = data.endswith(b"\n")
    raw_lines = data.split(b"\n")
    if ends_clean:
        raw_lines.pop()
    last_line = len(raw_lines)
    for line, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        truncated = line == last_line and not ends_clean
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append((line, InputError(name, f"not valid UTF-8 (byte {exc.start + 1})", line=line)))
            continue
        try:
            obj = _parse(text)
        except _Reject as exc:
            out.append((line, InputError(name, exc.message, line=line)))
            continue
        except json.JSONDecodeError as exc:
            msg = "truncated last line" if truncated else f"invalid JSON: {exc.msg}"
            out.append((line, InputError(name, msg, line=line)))
            continue
        if not isinstance(obj, dict):
            out.append((line, InputError(name, "expected a JSON object", line=line)))
            continue
        out.append((line, obj))
    return out


def best_of(runs: int, fn) -> float:  # noqa: ANN001 - a zero-argument callable
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    add_json_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    lines = []
    for i in range(args.lines):
        row = dict(LINE, variant_id=f"t{i // 5}/canonical", attempt=i % 5)
        lines.append(json.dumps(row, separators=(",", ":")))

    def plain_lines() -> None:
        for text in lines:
            json.loads(text)

    def strict_parse_lines() -> None:
        for number, text in enumerate(lines, 1):
            loads_strict(text, "trials.jsonl", number)

    plain = strict = float("inf")
    for _ in range(3):  # interleaved, best of three each
        plain = min(plain, best_of(1, plain_lines))
        strict = min(strict, best_of(1, strict_parse_lines))
    print(f"lines={args.lines}")
    per_plain, per_strict = plain / args.lines * 1e6, strict / args.lines * 1e6
    print(f"json.loads={per_plain:.2f} us/line loads_strict={per_strict:.2f} us/line")
    print(f"ratio={strict / plain:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trials.jsonl"
        path.write_text("".join(text + "\n" for text in lines), encoding="utf-8")
        started = time.perf_counter()
        index = scan_trials(path)
        scan = time.perf_counter() - started
    print(f"scan_trials={scan:.3f} s for {index.lines} lines ({scan / args.lines * 1e6:.2f} us/line)")
    data = "".join(text + "\n" for text in lines).encode("utf-8")
    assert [x for _, x in hand_loop("t", data)] == [x for _, x in iter_jsonl_lines("t", data)]
    before = after = float("inf")
    for _ in range(5):  # interleaved, so a busy machine slows both alike; best of five each
        before = min(before, best_of(1, lambda: hand_loop("trials.jsonl", data)))
        after = min(after, best_of(1, lambda: list(iter_jsonl_lines("trials.jsonl", data))))
    print(
        f"read JSONL: hand-written loop {before / args.lines * 1e6:.2f} us/line, "
        f"jsonlines.Reader {after / args.lines * 1e6:.2f} us/line, ratio after/before={after / before:.2f}"
    )
    raws = [text.encode("utf-8") + b"\n" for text in lines]
    fast = Trial.__pydantic_validator__.validate_json
    strict_read = Trial.__pydantic_validator__.validate_python

    def fast_lines() -> None:  # each record dropped at once, as read_run does (no GC pressure)
        for raw in raws:
            fast(raw)

    def strict_lines() -> None:
        for i, raw in enumerate(raws, 1):
            strict_read(parse_trial_line(raw, "trials.jsonl", i))

    def screened_lines() -> None:
        for i, raw in enumerate(raws, 1):
            read_trial_line(raw, "trials.jsonl", i)

    unchecked = checked = screened = float("inf")
    for _ in range(5):  # interleaved, best of five each
        unchecked = min(unchecked, best_of(1, fast_lines))
        checked = min(checked, best_of(1, strict_lines))
        screened = min(screened, best_of(1, screened_lines))
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "demo-d1af80b5"
        write_manifest(run, "demo-d1af80b5", 5, ["canonical"], suite="demo")
        (run / "trials.jsonl").write_bytes(data)
        strict_read_line = results.read_trial_line

        def strict_trial(raw: bytes, name: str, number: int) -> Trial:  # the reader before the screen
            return Trial.model_validate(parse_trial_line(raw, name, number, REPORT_FIX))

        whole = whole_strict = float("inf")
        for _ in range(3):  # interleaved, best of three each
            whole = min(whole, best_of(1, lambda: read_run(run, workers=1)))
            results.read_trial_line = strict_trial
            try:
                whole_strict = min(whole_strict, best_of(1, lambda: read_run(run, workers=1)))
            finally:
                results.read_trial_line = strict_read_line
    print(
        f"report reader: pydantic fast path {unchecked / args.lines * 1e6:.2f} us/line, strict "
        f"{checked / args.lines * 1e6:.2f} us/line, ratio strict/fast={checked / unchecked:.2f}; "
        f"screened (read_trial_line) {screened / args.lines * 1e6:.2f} us/line, ratio "
        f"screened/fast={screened / unchecked:.2f}, strict/screened={checked / screened:.2f}; whole "
        f"read_run {whole / args.lines * 1e6:.2f} us/line (with the strict reader "
        f"{whole_strict / args.lines * 1e6:.2f} us/line, ratio strict/screened={whole_strict / whole:.2f})"
    )
    figures = {
        "lines": args.lines,
        "plain_us": per_plain,
        "strict_us": per_strict,
        "scan_us": scan / args.lines * 1e6,
        "jsonl_ratio": after / before,
        "report_fast_us": unchecked / args.lines * 1e6,
        "report_strict_us": checked / args.lines * 1e6,
        "report_ratio": checked / unchecked,
        "report_screened_us": screened / args.lines * 1e6,
        "report_screened_ratio": screened / unchecked,
        "report_speedup": checked / screened,
        "read_run_us": whole / args.lines * 1e6,
        "read_run_strict_us": whole_strict / args.lines * 1e6,
    }
    write_results(args.json, figures, load_before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
