"""A ``cmd:`` agent in plain Python (no perturb import): reads the item over the loopback
tools URL with urllib, honouring Retry-After, three attempts."""

import json
import sys
import time
import urllib.error
import urllib.request


def call(url, tool, args, timeout):
    req = urllib.request.Request(
        f"{url}/{tool}", data=json.dumps(args).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def main():
    request = json.load(sys.stdin)
    key = request["prompt"].split()[0]
    url, timeout = request["tools_url"], request["tools_timeout_s"]
    value = "gave up"
    for _ in range(3):
        try:
            status, headers, body = call(url, "get_item", {"key": key}, timeout)
        except (TimeoutError, OSError):
            continue
        if status == 429:
            time.sleep(float(headers.get("Retry-After", 0.06)))
            continue
        if status >= 500:
            time.sleep(0.01)
            continue
        try:
            value = json.loads(body)["value"]
            break
        except (ValueError, KeyError):
            continue
    print(json.dumps({"output": value}))


main()
