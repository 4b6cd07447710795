"""The built site in a real browser: Debian's headless Chromium driven by playwright.

Builds the site (as tests/test_docs_site.py does), serves it on 127.0.0.1 with the stdlib HTTP
server, loads the home page and operator pages, checks that the attribute table and the Examples
section render and that the search finds an operator. Screenshots go to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not CHROMIUM.exists():
    pytest.skip("/usr/bin/chromium is missing (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """`folder` over HTTP on 127.0.0.1 (a free port) while the block runs; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from test_docs_site import build_site

    site, result = build_site(tmp_path_factory.mktemp("browser-site"))
    assert result.returncode == 0, result.stderr[-4000:]
    with served(site) as url:
        yield url


def test_operator_page_and_search_in_chromium(site_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))

            page.goto(f"{site_url}/", wait_until="load")
            assert "opset-toolkit" in page.title()
            page.screenshot(path=str(ARTIFACTS / "site-index.png"))

            page.goto(f"{site_url}/reference/org.example.abc/ops/A/", wait_until="load")
            heading = page.locator("article h1").first
            assert heading.inner_text().strip().startswith("A")
            table = page.locator("article table", has=page.locator("th", has_text="Required / default")).first
            table.wait_for(state="visible", timeout=10_000)
            assert table.locator("th").all_inner_texts()[:3] == ["Name", "Type", "Required / default"]
            row = table.locator("tbody tr").first
            assert row.locator("td").all_inner_texts()[:3] == ["scale", "float", "default is 1.0"]
            page.screenshot(path=str(ARTIFACTS / "site-operator-A.png"), full_page=True)

            # Every operator version's examples: an "Examples" heading and the node's values.
            page.goto(f"{site_url}/reference/com.acme.vision/ops/FusedConv/", wait_until="load")
            examples = page.locator("article h3", has_text="Examples")
            assert examples.count() == 2  # versions 2 and 1
            block = page.locator(
                "article pre", has_text="output    Y = float[1, 1, 2, 2] = [13.0, 17.0, 25.0, 29.0]"
            )
            block.first.wait_for(state="visible", timeout=10_000)
            assert "input     B = float[1] = [1.0]" in block.first.inner_text()
            assert page.locator("article code", has_text="test_fusedconv_bias").count() == 1
            page.screenshot(path=str(ARTIFACTS / "site-operator-examples.png"), full_page=True)

            # Material's search runs in a web worker over search_index.json.
            page.wait_for_load_state("networkidle")  # the worker has fetched search_index.json
            search = page.locator("input.md-search__input")
            search.click()
            search.press_sequentially("FusedConv", delay=50)
            result = page.locator(".md-search-result__item", has_text="FusedConv").first
            result.wait_for(state="visible", timeout=15_000)
            page.screenshot(path=str(ARTIFACTS / "site-search.png"))
            assert "FusedConv" in result.inner_text()
            assert not errors, errors
        finally:
            browser.close()
