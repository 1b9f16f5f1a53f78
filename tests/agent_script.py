"""A real subprocess agent for the tests: request JSON on stdin, response JSON on stdout.

Behaviour by the request's ``task_id``: ``echo`` answers the prompt (and reports its argv in
the trace), ``fail`` exits 3 after writing to stderr, ``garbage`` prints non-JSON, ``noout``
prints JSON without "output", ``sleep`` sleeps 30 s, ``usage`` reports usage.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    request = json.loads(sys.stdin.read())
    task = request["task_id"]
    if task == "fail":
        sys.stderr.write("loading model...\nTraceback: boom in tool call\n")
        return 3
    if task == "garbage":
        print("this is not json")
        return 0
    if task == "noout":
        print(json.dumps({"answer": 1}))
        return 0
    if task == "sleep":
        time.sleep(30)
    if task == "usage":
        print(
            json.dumps(
                {"output": "ok", "usage": {"prompt_tokens": 7, "completion_tokens": 3, "cost_usd": 0.002}}
            )
        )
        return 0
    trace = {"argv": sys.argv[1:], "cwd_files": sorted(os.listdir("."))}
    print(json.dumps({"output": request["prompt"], "trace": trace}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
