"""Secrets, shells and imports.

* An API key given through the environment (``OPENAI_API_KEY`` or the variable named by
  ``--api-key-env``) or inside ``--base-url`` never reaches a file perturb writes nor its
  output -- even when the server echoes it back in replies, fingerprints and error messages.
  The whole pipeline runs on the LLM paths (generate, an ``openai:`` agent, an ``llm_judge``)
  and every file under the project is scanned.
* Task text cannot make the subprocess agent run a shell: the prompt travels on stdin only.
* perturb imports Python code only from what the user named: the ``--agent`` module, and a
  ``callable`` grader's module as the task file names it (copied into the fixtures, hashed in
  the lock, verified before anything is imported). Task ``metadata``, prompts and slots are
  data: nothing in them is ever imported or executed.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from perturb.io.hashing import canonical_json
from perturb.testing.chat import FakeOpenAIServer, Reply
from perturb.testing.suite import make_suite
from tests.fault_helpers import assert_clean

KEY = "sk-SENTINEL-never-written-5d1e0c"
runner = CliRunner()


def cli(*args: str, env: dict[str, str] | None = None, code: int = 0) -> Any:
    result = runner.invoke(app, list(args), env=env)
    assert_clean(result)
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    for stream in (result.stdout, result.stderr):
        assert KEY not in stream, (args, stream)
    return result


def files_holding(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in sorted(root.rglob("*")) if p.is_file() and needle in p.read_bytes()]


# --------------------------------------------------------------------------- secrets

TASKS = [
    {
        "id": "capital",
        "prompt": "What is the capital of France?",
        "expected": "Paris",
        "grader": "contains",
        "slots": {"country": "France"},
    },
    {
        "id": "apology",
        "prompt": "My bag was lost on flight BA117, what now?",
        "expected": "an apology and a claim form",
        "slots": {"flight": "BA117"},
        "grader": {"type": "llm_judge", "rubric": "The reply apologises and offers a claim form."},
    },
    {
        "id": "refused",
        "prompt": "Please cancel booking BK-48213 today.",
        "expected": "cancel",
        "grader": "contains",
        "slots": {"booking": "BK-48213"},
    },
]


def echoing_server(body: dict[str, Any]) -> Reply:
    """A server that leaks the key everywhere it can: in generated variants, in agent
    answers, in the judge's reason, in error messages and in its fingerprint."""
    model = body.get("model")
    messages = body["messages"]
    if model == "gen-m":
        task = json.loads(re.search(r"^TASK: (.*)$", messages[1]["content"], re.M).group(1))  # type: ignore[union-attr]
        text = f"Hello, {task['prompt']} (my key is {KEY})"
        return Reply(
            content=json.dumps({"variants": [{"text": text, "note": KEY}]}), system_fingerprint=f"fp-{KEY}"
        )
    if model == "judge-m":
        return Reply(content=json.dumps({"pass": True, "reason": f"fine, says {KEY}"}))
    prompt = messages[0]["content"]
    if "BK-48213" in prompt:
        return Reply(status=400, error_message=f"policy violation for key {KEY}")
    return Reply(content=f"Paris. Sorry! Here is a claim form. ({KEY})", system_fingerprint=KEY)


def test_keys_never_reach_a_written_file_or_the_output(
    tmp_path: Path, fake_openai: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    srv: FakeOpenAIServer = fake_openai(
        script=[Reply(status=500, error_message=f"oops {KEY}")], default=echoing_server
    )
    root = tmp_path / "proj"
    (root / "tasks").mkdir(parents=True)
    (root / "tasks/desk.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TASKS))
    with_userinfo = srv.base_url.replace("http://", f"http://user:{KEY}@")
    gen_env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": ""}
    cli(
        "generate",
        str(root / "tasks/desk.jsonl"),
        "--generator",
        "llm",
        "--model",
        "gen-m",
        "--base-url",
        srv.base_url,
        "--classes",
        "paraphrase",
        "--per-class",
        "1",
        env=gen_env,
    )
    listed = json.loads(cli("review", "--list", "--json", "--root", str(root)).stdout)
    assert len(listed) == 3 and all("[REDACTED]" in c["text"] for c in listed)
    cli("accept", *[c["id"] for c in listed], "--reviewer", "Sec", "--root", str(root))
    cli("freeze", "--root", str(root))
    cli("verify", "--root", str(root))

    run_env = {"MY_KEY_T7": KEY, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
    monkeypatch.setenv("MY_KEY_T7", KEY)
    run = cli(
        "run",
        str(root / "fixtures/desk.jsonl"),
        "--agent",
        "openai:agent-m",
        "--api-key-env",
        "MY_KEY_T7",
        "--base-url",
        with_userinfo,
        "--judge-model",
        "judge-m",
        "-n",
        "2",
        "--out",
        str(root / "runs/r"),
        env=run_env,
    )
    assert "8 passed, 0 wrong, 4 errored" in run.stdout  # the refused prompt errors, redacted
    cli("report", str(root / "runs/r"), "--out-dir", str(root / "reports"), "--bootstrap", "50")
    cli("report", str(root / "runs/r"), "-f", "json", "--bootstrap", "50")
    cli("baseline", str(root / "runs/r"), "-o", str(root / "evals/baseline.json"), "--k", "2")
    cli("gate", str(root / "runs/r"), "--baseline", str(root / "evals/baseline.json"))

    # the key really was sent, and echoed back, on every path
    basic = "Basic " + base64.b64encode(f"user:{KEY}".encode()).decode()  # from --base-url
    assert srv.headers and {h["authorization"] for h in srv.headers} == {f"Bearer {KEY}", basic}
    assert {b["model"] for b in srv.requests} == {"gen-m", "agent-m", "judge-m"}
    written = [p for p in root.rglob("*") if p.is_file()]
    assert {p.parent.name for p in written} >= {"desk", "fixtures", "r", "reports", "evals"}
    assert len(written) >= 15
    assert files_holding(root, KEY.encode()) == []
    trials = [json.loads(x) for x in (root / "runs/r/trials.jsonl").read_text().splitlines()]
    assert any("[REDACTED]" in json.dumps(t) for t in trials)  # echoed, and masked
    assert any("key ***" in (t["error"] or "") for t in trials)


# --------------------------------------------------------------------------- shells

NASTY = [
    "$(touch pwned1)",
    "`touch pwned2`",
    "; touch pwned3",
    "| touch pwned4",
    "&& touch pwned5 &",
    "book a flight\ntouch pwned6",
    "'; touch pwned7; echo '",
    '"; touch pwned8; echo "',
    "${IFS}touch${IFS}pwned9",
    "$((1+1)) > pwned10 < /dev/null 2>&1",
]
ECHO_AGENT = (
    "import json, os, sys\n"
    "request = json.load(sys.stdin)\n"
    "print(json.dumps({'output': request['prompt'], 'trace': {'argv': sys.argv[1:]}}))\n"
)


def test_task_text_never_reaches_a_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    tasks = [
        {"id": f"n{i}", "prompt": p, "expected": p, "grader": "exact", "metadata": {"note": p}}
        for i, p in enumerate(NASTY)
    ]
    fixtures = make_suite(root, tasks)
    script = root / "echo_agent.py"
    script.write_text(ECHO_AGENT)
    monkeypatch.chdir(root)
    cli(
        "run",
        str(fixtures),
        "--agent-cmd",
        f"{sys.executable} {script} --flag 'two words'",
        "-n",
        "1",
        "--out",
        str(root / "runs/r"),
    )
    rows = [json.loads(x) for x in (root / "runs/r/trials.jsonl").read_text().splitlines()]
    assert len(rows) == len(NASTY)
    assert {r["outcome"] for r in rows} == {"passed"}  # every prompt arrived byte for byte
    assert all(r["trace"]["argv"] == ["--flag", "two words"] for r in rows)  # never in argv
    assert sorted(p.name for p in tmp_path.rglob("pwned*")) == []

    # the command itself is split like a shell would, but never run by one: ';' is an argument
    cli(
        "run",
        str(fixtures),
        "--agent-cmd",
        f"{sys.executable} {script}; touch pwned11",
        "-n",
        "1",
        "--out",
        str(root / "runs/s"),
        "--tasks",
        "n0",
    )
    [row] = [json.loads(x) for x in (root / "runs/s/trials.jsonl").read_text().splitlines()]
    assert (row["outcome"], row["error_kind"]) == ("errored", "exit_status")
    assert sorted(p.name for p in tmp_path.rglob("pwned*")) == []


# --------------------------------------------------------------------------- imports

CANARY = "import pathlib\npathlib.Path(__file__).with_name('{name}.imported').write_text('yes')\n"


def write_module(root: Path, name: str, body: str = "") -> None:
    (root / f"{name}.py").write_text(CANARY.format(name=name) + body)


def test_metadata_prompts_and_slots_never_cause_an_import(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "tasks").mkdir(parents=True)
    write_module(root, "evil_meta_t7", "def boom(*a, **k):\n    return True\n")
    write_module(root, "plain_agent_t7", "def agent(prompt, request):\n    return prompt\n")
    spec = "evil_meta_t7:boom"
    task = {
        "id": "t1",
        "prompt": f"Book Rome on Friday, run {spec} and import evil_meta_t7.",
        "expected": "Rome",
        "grader": "contains",
        "slots": {"day": "Friday", "call": spec},
        "metadata": {
            "agent": spec,
            "grader": {"type": "callable", "function": spec},
            "function": spec,
            "module": "evil_meta_t7",
            "factory": f"{spec}()",
            "import": "evil_meta_t7",
        },
    }
    (root / "tasks/meta.jsonl").write_text(json.dumps(task) + "\n")
    cli("validate", str(root / "tasks/meta.jsonl"))
    cli("generate", str(root / "tasks/meta.jsonl"), "--per-class", "1")
    ids = [c["id"] for c in json.loads(cli("review", "--list", "--json", "--root", str(root)).stdout)]
    cli("accept", *ids, "--reviewer", "Sec", "--root", str(root))
    cli("freeze", "--root", str(root))
    cli("verify", "--root", str(root))
    cli(
        "run",
        str(root / "fixtures/meta.jsonl"),
        "--agent",
        "plain_agent_t7:agent",
        "-n",
        "2",
        "--out",
        str(root / "runs/r"),
    )
    cli("report", str(root / "runs/r"), "--out-dir", str(root / "reports"), "--bootstrap", "20")
    assert (root / "plain_agent_t7.imported").exists()  # the module the user named
    assert not (root / "evil_meta_t7.imported").exists()
    assert "evil_meta_t7" not in sys.modules


def test_a_callable_graders_module_is_the_one_the_task_file_names(tmp_path: Path) -> None:
    """The grader's ``module:function`` comes from the task file, through freeze, into a
    fixture line whose hash is in the lock. Pointing a fixture at another module is a MODIFIED
    line: ``perturb run`` refuses before importing anything."""
    root = tmp_path / "proj"
    root.mkdir()
    write_module(root, "checks_t7", "def ok(output, expected, task):\n    return output == expected\n")
    write_module(root, "evil_grader_t7", "def ok(output, expected, task):\n    return True\n")
    write_module(root, "echo_agent_t7", "def agent(prompt, request):\n    return prompt\n")
    fixtures = make_suite(
        root,
        [
            {
                "id": "g1",
                "prompt": "Say hi",
                "expected": "Say hi",
                "grader": {"type": "callable", "function": "checks_t7:ok"},
            }
        ],
    )
    original = fixtures.read_bytes()
    entry = json.loads(original)
    entry["grader"]["function"] = "evil_grader_t7:ok"
    fixtures.write_bytes(canonical_json(entry) + b"\n")
    refused = cli(
        "run",
        str(fixtures),
        "--agent",
        "echo_agent_t7:agent",
        "-n",
        "1",
        "--out",
        str(root / "runs/evil"),
        code=1,
    )
    assert " MODIFIED g1/canonical: " in refused.stdout
    assert not (root / "evil_grader_t7.imported").exists() and "evil_grader_t7" not in sys.modules
    assert not (root / "echo_agent_t7.imported").exists()  # refused before loading anything

    fixtures.write_bytes(original)
    run = cli(
        "run", str(fixtures), "--agent", "echo_agent_t7:agent", "-n", "1", "--out", str(root / "runs/ok")
    )
    assert "1 passed" in run.stdout
    assert (root / "checks_t7.imported").exists()
    assert not (root / "evil_grader_t7.imported").exists()
