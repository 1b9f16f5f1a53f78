"""Make docs/images/explorer.png: the HTML report's explorer on the bundled travel example.

    python docs/gen_explorer_png.py

Runs the bundled agent on the checked-in fixtures (5 trials per prompt, temperature 0.7) in a
temporary copy of the project, writes the HTML report, opens it in headless Chromium
(Debian's ``chromium`` and ``chromedriver``, driven by selenium), opens the typo class, the
first task with a failing typo prompt and that prompt, and saves a screenshot. Prints the
report's size.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "images" / "explorer.png"


def bundled_report(root: Path, trials: int = 5) -> Path:
    """Run the bundled example in ``root`` (a fresh copy) and write ``root/report.html``."""
    for name in ("tasks", "review", "fixtures", "examples"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root)
    exe = str(Path(sys.executable).parent / "perturb")
    run = [exe, "run", "fixtures/travel.jsonl", "--agent", "examples.travel_agent:agent"]
    run += ["--trials", str(trials), "--temperature", "0.7", "--out", "runs/demo"]
    subprocess.run(run, cwd=root, check=True, capture_output=True)
    subprocess.run([exe, "report", "runs/demo", "-o", "report.html", "-q"], cwd=root, check=True)
    return root / "report.html"


def main() -> None:
    sys.path.insert(0, str(REPO))
    from selenium.webdriver.common.by import By

    from perturb.testing.browser import chrome_driver

    with tempfile.TemporaryDirectory() as tmp:
        page = bundled_report(Path(tmp))
        print(f"{page.stat().st_size} bytes: report.html of the bundled example, 5 trials per prompt")
        driver = chrome_driver(1280, 900, Path(tmp) / "profile")
        try:
            driver.get(page.as_uri())
            driver.find_element(By.ID, "f-failed").click()
            driver.find_element(By.ID, "cls").send_keys("typo")
            prompt = driver.find_element(By.CSS_SELECTOR, "details.prompt:not(.hidden)")
            prompt.find_element(By.CSS_SELECTOR, "summary").click()
            driver.execute_script("document.getElementById('controls').scrollIntoView()")
            time.sleep(0.3)
            OUT.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(OUT))
        finally:
            driver.quit()
    print(f"wrote {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
