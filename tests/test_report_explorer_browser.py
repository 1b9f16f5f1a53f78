"""The HTML report's explorer driven in headless Chromium (selenium on Debian's chromium and
chromedriver): open a class, a task, a prompt; the trial's output and grader note are on
screen; a filter and the search box narrow the prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from perturb.cli import app
from tests.browser import chrome
from tests.synthetic_runs import write_run
from tests.test_show import PROMPTS

pytestmark = pytest.mark.slow


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_run(tmp_path / "runs", "show-run", PROMPTS, fixtures=True)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["report", "runs/show-run", "-o", "report.html", "-q"])
    assert result.exit_code == 0, result.output
    return tmp_path / "report.html"


def test_explorer_opens_class_task_prompt_filters_and_searches(page: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = chrome(profile=tmp_path / "profile")
    try:
        driver.get(page.as_uri())
        find = driver.find_element
        prompt_sel = 'details.prompt[data-search^="t1/typo/c-0000000000e1"]'
        output = find(By.CSS_SELECTOR, prompt_sel + " pre.out")
        assert not output.is_displayed()  # closed until opened
        find(By.CSS_SELECTOR, 'details.cls[data-class="typo"] > summary').click()
        find(By.CSS_SELECTOR, 'details.cls[data-class="typo"] details.task[data-task="t1"] > summary').click()
        find(By.CSS_SELECTOR, prompt_sel + " > summary").click()
        assert output.is_displayed() and output.text == "no"
        note = find(By.CSS_SELECTOR, prompt_sel + " .trial .gn")
        assert note.is_displayed() and note.text == "grader note expected 'ok', got 'no'"
        diff = find(By.CSS_SELECTOR, prompt_sel + " .pbody")
        assert "diff" in diff.text and find(By.CSS_SELECTOR, prompt_sel + " ins").text == "typ"
        count = find(By.ID, "count")
        assert count.text == "5 prompts shown"

        def visible() -> list[str]:
            return sorted(
                e.get_attribute("data-search").split()[0]
                for e in driver.find_elements(By.CSS_SELECTOR, "details.prompt")
                if "hidden" not in (e.get_attribute("class") or "")
            )

        find(By.ID, "f-errored").click()
        assert count.text == "1 prompts shown" and visible() == ["t3/canonical"]
        errored = find(By.CSS_SELECTOR, 'details.prompt[data-search^="t3/canonical"]')
        assert errored.is_displayed()  # its class and task opened by the filter
        errored.find_element(By.CSS_SELECTOR, "summary").click()
        assert errored.find_element(By.CSS_SELECTOR, "div.err").text == "error [timeout] timeout after 30s"
        find(By.ID, "f-errored").click()
        find(By.ID, "f-brittle").click()
        assert visible() == ["t1/typo/c-0000000000e1"]
        find(By.ID, "f-brittle").click()
        find(By.ID, "q").send_keys("got {...}")
        assert visible() == ["t2/canonical"] and count.text == "1 prompts shown"
        assert not find(By.CSS_SELECTOR, 'details.cls[data-class="typo"]').is_displayed()
    finally:
        driver.quit()
