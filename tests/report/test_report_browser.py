"""The report as a person sees it: the site rendered in headless Chromium from disk (file://).

Needs Debian's chromium and chromium-driver and the selenium package (``.ci/run`` installs the first
two); skipped with the reason otherwise. Screenshots go to the test's tmp dir and, when
SIMVERIFY_SCREENSHOTS names a directory, there too.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from simverify import registry, runner
from simverify.executors import SerialExecutor
from simverify.report import write_report
from simverify.store import Store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1600"]



def _webdriver():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install '.[test]')")
    if not CHROMIUM or not CHROMEDRIVER:
        pytest.skip("Chromium or ChromeDriver missing (Debian packages chromium, chromium-driver; "
                    ".ci/run installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="sv-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    return driver, profile


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A site of two toy claims (one with its control) from a real run."""
    root = tmp_path_factory.mktemp("browser")
    store = Store(root / "store")
    claims = [registry.get("toy.power"), registry.get("toy.power~wrong_exponent")]
    runner.check(claims, "quick", store, SerialExecutor())
    write_report(store, root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium whose performance log starts empty: the browser's own start page (chrome:
    addresses) is loaded and its log entries dropped before the site is opened."""
    driver, profile = _webdriver()
    driver.get("about:blank")
    driver.get_log("performance")
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _requests(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def _screenshot(driver, path: Path) -> None:
    assert driver.save_screenshot(str(path))
    extra = os.environ.get("SIMVERIFY_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)


def _images_decoded(driver) -> list[bool]:
    return driver.execute_script(
        "return [...document.images].map(i => i.complete && i.naturalWidth > 0);")


def _svgs_drawn(driver) -> list[bool]:
    return driver.execute_script(
        "return [...document.querySelectorAll('.formula svg')].map(s => s.getBoundingClientRect().width > 0 "
        "&& s.querySelectorAll('path').length > 0);")


@pytest.mark.slow
def test_index_claim_and_paper_pages_render_offline_with_every_image_decoded(site, browser, tmp_path):
    browser.get((site / "index.html").as_uri())
    assert browser.title == "simverify report"
    rows = browser.execute_script("return [...document.querySelectorAll('#claims tbody tr')].map(r => r.className);")
    assert rows == ["claim", "control"]  # the control nested right under its claim
    _screenshot(browser, tmp_path / "index.png")
    browser.get((site / "claims" / "toy.power.html").as_uri())
    assert _images_decoded(browser) == [True]  # the evidence figure
    assert _svgs_drawn(browser) == [True]  # the formula, typeset as glyph paths
    _screenshot(browser, tmp_path / "claim.png")
    assert (tmp_path / "claim.png").stat().st_size > 10_000
    browser.get((site / "papers" / "toy.html").as_uri())
    assert _images_decoded(browser) == [True]  # the claim's figure (controls have none on the paper page)
    _screenshot(browser, tmp_path / "paper.png")
    urls = _requests(browser)
    assert any(u.startswith("file:") and u.endswith("figures/toy.power.png") for u in urls)  # the log sees our loads
    left = [u for u in urls if not u.startswith(("file:", "data:"))]
    assert left == []  # nothing went to the network


def test_filter_box_hides_the_rows_that_do_not_match(site, browser):
    browser.get((site / "index.html").as_uri())
    box = browser.find_element("id", "q")
    box.send_keys("REFUTED")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#claims tbody tr')].filter(r => r.style.display !== 'none')"
        ".map(r => r.dataset.verdict);")
    assert shown == ["REFUTED"]


def test_outcome_select_filters_by_outcome_and_pages_show_the_papers_citation(site, browser):
    browser.get((site / "index.html").as_uri())
    citation = "A. Author (2026). Toy claims. Test fixtures."
    assert citation in browser.find_element("tag name", "body").text  # the findings per paper name the paper
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element("css selector", "select[data-col='outcome']")).select_by_visible_text("REFUTED")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#claims tbody tr')].filter(r => r.style.display !== 'none')"
        ".map(r => [r.dataset.id, r.dataset.outcome]);")
    assert shown == [["toy.power~wrong_exponent", "REFUTED"]]
    browser.get((site / "papers" / "toy.html").as_uri())
    assert citation in browser.find_element("tag name", "body").text
    cells = browser.execute_script("return [...document.querySelectorAll('td.CONFIRMED, td.REFUTED')]"
                                   ".map(td => getComputedStyle(td).backgroundColor);")
    assert cells and all(c != "rgba(0, 0, 0, 0)" for c in cells)  # outcomes coloured by their class
