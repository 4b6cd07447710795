"""No script in the docs (issue #23 item 3): doc text from a stranger's spec tree never runs.

A spec tree made at test time carries one payload of every class in every place a doc reaches a
page: operator docs, input/output/attribute/type-constraint docs, example docs, the domain and
opset docs, the release table, string defaults (quoted by the change messages) and
`replaced_by`. The tests check

* `opset validate` reports the neutralised links (DOC-UNSAFE-LINK) and the raw HTML (DOC-HTML)
  at their exact `file:line:col`;
* `opset generate` writes Markdown that Python-Markdown (with the site's extensions) renders
  without any live payload, and the page notes the repairs;
* the mkdocs site built with the `opset` plugin, opened page by page in Chromium, runs none of
  it: no dialog, no handler that sets `window.__pwned`, with every candidate element focused,
  hovered and clicked; and its HTML, parsed, holds no `on*` attribute or script URL;
* the plugin's HTML cleaner removes every construct that runs script by itself (defence in depth
  when the Markdown layer misses something).
"""

from __future__ import annotations

import html.parser
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from site_markdown import render_pm, site_extensions

from toolkit.checks.markdown import analyse
from toolkit.generate.mdsafe import sanitize

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
PWN = "window.__pwned=1"  # what every payload's script does (besides alert)

DOMAIN = """\
domain: com.evil.docs
doc: |
  The domain <img src=x onerror="window.__pwned=1;alert(1)"> and [home](javascript:window.__pwned=1).
opset_versions:
  - {version: 1, ir_version: 9, doc: "first <svg onload=window.__pwned=1> [x](vbscript:msgbox(1))"}
  - {version: 2, ir_version: 9, doc: "second {onmouseover=window.__pwned=1}"}
"""

# Line numbers matter: the validate test names them.
OPERATOR = """\
operator: Evil
domain: com.evil.docs
replaced_by: "Other\\n<img src=x onerror=window.__pwned=1>"
versions:
  - since_version: 1
    doc: |
      <xx:y/contenteditable/autofocus/onfocus=window.__pwned=1;alert(document.domain)//>
      Plain [a](javascript:window.__pwned=1) and [b](JaVaScRiPt:window.__pwned=1).
      Tabbed [c](java&#x09;script:window.__pwned=1) and <javascript:window.__pwned=1>.
      Image ![i](javascript:window.__pwned=1) and [d](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+).
      Entity [e](&#106;avascript:window.__pwned=1) and [f](vbscript:msgbox(1)) and [g](java\\
      script:x).
      [ref]: javascript:window.__pwned=1

      Use [ref] and [spaced](javascript:window.__pwned=1 now).
      [late]: javascript:window.__pwned=1
      Then [late][late] and <a:b onfocus=window.__pwned=1 autofocus contenteditable>x.

      <script>window.__pwned=1;alert(1)</script>

      <div onmouseover="window.__pwned=1">block</div>

      Inline <a href="javascript:window.__pwned=1">here</a> and `x`{onclick=window.__pwned=1}
      and *em*{onmouseover=window.__pwned=1} and <mailto:x/onfocus=window.__pwned=1/autofocus>.
      A safe <https://onnx.ai> and [rel](other.md#x) stay.
    inputs:
      - {name: X, type: T, doc: "in | <img src=x onerror=window.__pwned=1> | [x](javascript:window.__pwned=1)"}
    outputs:
      - {name: Y, type: T, doc: "out {onmouseover=window.__pwned=1}"}
    attributes:
      mode:
        type: string
        default: "<img src=x onerror=window.__pwned=1>"
        doc: "<svg><script>window.__pwned=1</script></svg> ![p](javascript:window.__pwned=1)"
    type_constraints:
      T: {allowed: [tensor(float)], doc: "<iframe src=javascript:window.__pwned=1></iframe>"}
    examples:
      - name: evil
        doc: "Example <img src=x onerror=window.__pwned=1> [x](javascript:window.__pwned=1)"
        attributes: {mode: a}
        inputs:
          - {dtype: float, shape: [1], data: [1]}
        outputs:
          - {dtype: float, shape: [1], data: [1]}
  - since_version: 2
    based_on: 1
    deprecated: true
    attributes:
      mode:
        type: string
        default: "[z](javascript:window.__pwned=1) <b onmouseover=window.__pwned=1>b</b>"
"""

RELEASES = """\
doc: "Releases <img src=x onerror=window.__pwned=1>"
releases:
  - {release: "<img src=x onerror=window.__pwned=1>", ir_version: 9, opsets: {com.evil.docs: 2}}
"""

MKDOCS = """\
site_name: evil
docs_dir: docs
theme:
  name: material
  font: false
plugins:
  - opset:
      specs: opsets
"""
# the site's own Markdown extensions (mkdocs.yml), as the project's site uses them
MKDOCS += yaml.safe_dump({"markdown_extensions": site_extensions()}, sort_keys=False)


def make_tree(root: Path) -> Path:
    specs = root / "opsets"
    (specs / "com.evil.docs").mkdir(parents=True)
    (specs / "com.evil.docs" / "domain.yaml").write_text(DOMAIN, encoding="utf-8")
    (specs / "com.evil.docs" / "Evil.yaml").write_text(OPERATOR, encoding="utf-8")
    (specs / "releases.yaml").write_text(RELEASES, encoding="utf-8")
    return specs


def opset(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPSET_TOOLKIT_NO_CACHE="1")
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


# --------------------------------------------------------------------------- static HTML checks

SCRIPT_URL = re.compile(r"^\s*(?:javascript|vbscript|data)\s*:", re.I)
URL_ATTRIBUTES = {
    "href",
    "src",
    "srcset",
    "action",
    "formaction",
    "xlink:href",
    "data",
    "poster",
    "background",
}
BANNED_TAGS = {"iframe", "object", "embed", "svg", "math", "form", "base", "frame", "frameset", "applet"}


class LiveMarkup(html.parser.HTMLParser):
    """Collects whatever in a page could run script (attribute values come decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BANNED_TAGS:
            self.found.append(f"<{tag}>")
        if tag == "meta" and any(k == "http-equiv" and (v or "").lower() == "refresh" for k, v in attrs):
            self.found.append("<meta http-equiv=refresh>")
        self._script = tag == "script"
        for name, value in attrs:
            value = (value or "").replace("\t", "").replace("\n", "").replace("\r", "")
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            elif name in URL_ATTRIBUTES and SCRIPT_URL.match(value):
                self.found.append(f"<{tag} {name}={value[:40]}>")
            elif name == "style" and ("expression" in value or "url(" in value):
                self.found.append(f"<{tag} style={value[:40]}>")

    def handle_endtag(self, tag: str) -> None:
        self._script = False

    def handle_data(self, data: str) -> None:
        if self._script and "__pwned" in data:
            self.found.append(f"<script>{data[:40]}")


def live_markup(page: str) -> list[str]:
    parser = LiveMarkup()
    parser.feed(page)
    parser.close()
    return parser.found


# --------------------------------------------------------------------------- the Markdown layer


@pytest.mark.parametrize(
    ("doc", "shown"),
    [
        ("<xx:y/contenteditable/autofocus/onfocus=alert(1)//>", "&lt;xx:y/"),
        ("[x](javascript:alert(1))", "[x]\\(javascript:"),
        ("[x](JaVaScRiPt:alert(1))", "[x]\\(JaVaScRiPt:"),
        ("[x](java&#x09;script:alert(1))", "[x]\\(java&#x09;script:"),
        ("[x](  <java&Tab;script:alert(1)>)", "[x]\\("),
        ("[x](javascript&colon;alert(1))", "[x]\\("),
        ("[x]: javascript:alert(1)\n\n[x]", "\\[x]: javascript:"),
        ("text\n[x]: vbscript:alert(1)", "\\[x]: vbscript:"),
        ("<javascript:alert(1)>", "&lt;javascript:"),
        ("<mailto:x/onfocus=alert(1)/autofocus>", "&lt;mailto:"),
        ("<http:x/onfocus=alert(1)/autofocus>", "&lt;http:"),
        ("![x](javascript:alert(1))", "![x]\\("),
        ("[x](data:text/html;base64,PHNjcmlwdD4=)", "[x]\\(data:"),
        ("[x](java\nscript:alert(1))", "[x]\\(java"),
        ("[x](javascript:a b c)", "[x]\\(javascript:a b c)"),
        # a control character is written visibly first (DOC-CONTROL-CHAR): the target is inert text
        ("> - [x](\x01javascript:alert(1))", "[x](\\u0001javascript:"),
    ],
)
def test_unsafe_link_targets_are_shown_as_text(doc: str, shown: str) -> None:
    safe = sanitize(doc)
    assert shown in safe.text
    rules = {issue.rule for issue in safe.issues}
    assert rules and rules <= {"DOC-UNSAFE-LINK", "DOC-CONTROL-CHAR"}
    assert "was repaired for display" in safe.note
    assert not analyse(safe.text).unsafe_links  # nothing left to repair


@pytest.mark.parametrize(
    "doc",
    [
        "See <https://onnx.ai/x> or <someone@example.com> or <mailto:someone@example.com>.",
        "Links [a](https://onnx.ai), [b](http://x.y/z?q=1#f), [c](mailto:a@b.c), [d](other.md#x), [e](#top).",
        "[ref]: https://onnx.ai/\n\nUse [ref].",
        "![logo](img/logo.png) and [p](//cdn.example.com/x)",
    ],
)
def test_safe_links_and_text_stay_byte_for_byte(doc: str) -> None:
    """Beside an unsafe link, which is repaired, the safe ones are left as they are."""
    safe = sanitize(doc + "\n\n[bad](javascript:alert(1))")
    assert safe.text == doc + "\n\n[bad]\\(javascript:alert(1))"
    assert [(issue.rule, issue.line) for issue in safe.issues] == [("DOC-UNSAFE-LINK", doc.count("\n") + 3)]


def test_lenient_renderer_constructs_are_escaped_silently() -> None:
    # CommonMark shows these as text; Python-Markdown would make an element with a handler.
    assert sanitize("<a:b onfocus=alert(1) autofocus>").text == "&lt;a:b onfocus=alert(1) autofocus>"
    assert sanitize("x<yx<y<b>").text == "x&lt;yx&lt;y&lt;b>"  # one escape lets an earlier `<` reach a `>`
    assert sanitize("cell {onmouseover=alert(1)}").text == "cell \\{onmouseover=alert(1)}"
    assert sanitize("`x`{onclick=alert(1)} after").text == "`x`\\{onclick=alert(1)} after"
    assert sanitize("`{1, 0}` in code").text == "`{1, 0}` in code"


def test_validate_reports_every_neutralised_link_at_its_line(tmp_path: Path) -> None:
    specs = make_tree(tmp_path)
    result = opset("validate", str(specs), cwd=tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out  # warnings only
    assert "Traceback" not in out
    found = sorted(line for line in out.splitlines() if "warning[DOC-" in line)
    prefix = "opsets/com.evil.docs/"
    expected = [
        # the literal block doc: each finding at its own line and column
        f"{prefix}Evil.yaml:7:7: warning[DOC-UNSAFE-LINK]: com.evil.docs.Evil:1: autolink of scheme 'xx' "
        "(a renderer may read it as an HTML element) (and 12 more)",
        f"{prefix}Evil.yaml:19:7: warning[DOC-HTML]: com.evil.docs.Evil:1: an HTML block "
        "'<script>window.__pwned=1;alert(1)</script>' (and 3 more)",
        # one-line docs: where their value starts (`<img src=x onerror=a=1>` is no HTML to
        # CommonMark, an `=` in an unquoted value: its `<` is escaped without a finding)
        f"{prefix}Evil.yaml:27:33: warning[DOC-UNSAFE-LINK]: com.evil.docs.Evil:1 input 'X': "
        "link to a javascript: URL",
        f"{prefix}Evil.yaml:34:14: warning[DOC-HTML]: com.evil.docs.Evil:1 attribute 'mode': raw HTML '<svg>' "
        "(and 3 more)",
        f"{prefix}Evil.yaml:34:14: warning[DOC-UNSAFE-LINK]: com.evil.docs.Evil:1 attribute 'mode': "
        "image to a javascript: URL",
        f"{prefix}Evil.yaml:36:42: warning[DOC-HTML]: com.evil.docs.Evil:1 type constraint 'T': "
        "an HTML block '<iframe src=javascript:window.__pwned=1></iframe>'",
        # an example's doc has no location of its own: where the example starts
        f"{prefix}Evil.yaml:38:9: warning[DOC-UNSAFE-LINK]: com.evil.docs.Evil:1 example 'evil': "
        "link to a javascript: URL",
        f"{prefix}domain.yaml:3:14: warning[DOC-HTML]: domain 'com.evil.docs': raw HTML "
        "'<img src=x onerror=\"window.__pwned=1;alert(1)\">'",
        f"{prefix}domain.yaml:3:66: warning[DOC-UNSAFE-LINK]: domain 'com.evil.docs': link to a javascript: URL",
        f"{prefix}domain.yaml:5:38: warning[DOC-UNSAFE-LINK]: opset version 1 of 'com.evil.docs': "
        "link to a vbscript: URL",
    ]
    assert found == sorted(expected), "\n".join(found)


# --------------------------------------------------------------------------- generated Markdown


def test_generated_markdown_renders_without_live_payload(tmp_path: Path) -> None:
    specs = make_tree(tmp_path)
    out = tmp_path / "out"
    result = opset("generate", "--only", "docs", "--out", str(out), "--specs", str(specs), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    pages = sorted((out / "docs").rglob("*.md"))
    names = {page.relative_to(out / "docs").as_posix() for page in pages}
    assert {"com.evil.docs/Operators.md", "com.evil.docs/Changelog.md", "com.evil.docs/index.md"} <= names
    assert "com.evil.docs/ops/Evil.md" in names and "releases.md" in names
    for page in pages:
        text = page.read_text(encoding="utf-8")
        rendered = render_pm(text)
        assert live_markup(rendered) == [], page.name
        # the payloads are shown as text, not dropped silently
        if page.name in ("Operators.md", "Evil.md", "Changelog.md"):
            assert "this doc text was repaired for display" in text, page.name
            assert "link to a javascript: URL shown as text" in text, page.name
    # nothing written outside the output folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["opsets", "out"]


# --------------------------------------------------------------------------- the plugin's HTML cleaner


@pytest.mark.parametrize(
    "payload",
    [
        '<p onclick="window.__pwned=1">x</p>',
        "<script>window.__pwned=1</script>",
        '<img src="x" onerror="window.__pwned=1">',
        "<svg><script>window.__pwned=1</script></svg>",
        '<svg onload="window.__pwned=1"></svg>',
        '<iframe src="javascript:window.__pwned=1"></iframe>',
        '<object data="javascript:window.__pwned=1"></object>',
        '<embed src="javascript:window.__pwned=1">',
        '<a href="JaVa&#x09;ScRiPt:window.__pwned=1">x</a>',
        '<a href="vbscript:msgbox(1)">x</a>',
        '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>',
        '<img src="x" srcset="javascript:window.__pwned=1 1x">',
        '<form action="javascript:window.__pwned=1"><button formaction="javascript:x">b</button></form>',
        '<svg><a xlink:href="javascript:window.__pwned=1">x</a></svg>',
        '<span style="background:url(javascript:window.__pwned=1);x:expression(alert(1))">x</span>',
        '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=1">',
        '<base href="javascript:window.__pwned=1//">',
        "<math><mtext><table><mglyph><style><img src=x onerror=window.__pwned=1>",
    ],
)
def test_plugin_cleaner_removes_what_runs_script(payload: str) -> None:
    pytest.importorskip("mkdocs")
    from toolkit.mkdocs_plugin.html_safe import clean_html

    cleaned = clean_html(f"<div>{payload}</div>")
    assert live_markup(cleaned) == [], cleaned
    assert "<script" not in cleaned and "<style" not in cleaned


def test_plugin_cleaner_keeps_the_pages_markup() -> None:
    pytest.importorskip("mkdocs")
    from toolkit.mkdocs_plugin.html_safe import clean_html

    page = (
        '<h2 id="version-1"><a id="Op-1"></a>Version 1<a class="headerlink" href="#version-1" '
        'title="Permanent link">¶</a></h2>\n<table>\n<thead>\n<tr>\n<th>Name</th>\n</tr>\n</thead>\n'
        "<tbody>\n<tr>\n<td><code>x</code><br><br>y</td>\n</tr>\n</tbody>\n</table>\n"
        '<div class="admonition note">\n<p class="admonition-title">Note</p>\n</div>\n'
        '<div class="highlight"><pre><span></span><code><span class="n">x</span></code></pre></div>\n'
        '<p><a href="../Changelog/#Op-1">1</a> <a href="https://onnx.ai">o</a> '
        '<a href="mailto:a@b.c">m</a> <img alt="i" src="img/x.png"></p>'
    )
    assert clean_html(page) == page


# --------------------------------------------------------------------------- the site in Chromium


@pytest.fixture(scope="module")
def evil_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    root = tmp_path_factory.mktemp("evil-site")
    make_tree(root)
    (root / "docs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(MKDOCS, encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", OPSET_TOOLKIT_NO_CACHE="1")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-f", str(root / "mkdocs.yml"), "-d", str(root / "site")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return root / "site"


def reference_pages(site: Path) -> list[Path]:
    pages = sorted((site / "reference").rglob("index.html"))
    assert len(pages) >= 6, pages
    return pages


def test_site_html_has_no_live_payload(evil_site: Path) -> None:
    for page in reference_pages(evil_site):
        text = page.read_text(encoding="utf-8")
        # the page content (the theme around it draws its icons as inline <svg>)
        article = text[text.index("<article") : text.index("</article>")]
        assert live_markup(article) == [], page
        assert not [found for found in live_markup(text) if found != "<svg>"], page
        # the payloads are there, as text
        if page.parent.name == "Evil":
            assert "xx:y/contenteditable" in text and "javascript:window.__pwned=1" in text


@pytest.fixture(scope="module")
def evil_url(evil_site: Path) -> Iterator[str]:
    from test_site_browser import served  # skips this module's browser test without Chromium

    with served(evil_site) as url:
        yield url


# Every visible candidate of a page focused, hovered (the mouse events a pointer sends) and clicked,
# in the page itself; a handler a payload added runs on these events whether the browser or a
# script dispatches them. A click that would leave the page (a real link, or an element inside one)
# is stopped so the page's state survives to be checked; a `javascript:` link still runs its URL.
# Returns the first element after whose events `window.__pwned` is set.
EXERCISE = """(selector) => {
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (link && !/^\\s*javascript:/i.test(link.getAttribute("href"))) event.preventDefault();
  }, true);
  for (const element of document.querySelectorAll(selector)) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    element.focus();
    for (const type of ["pointerover", "mouseover", "mouseenter", "mousemove", "mousedown", "mouseup"]) {
      element.dispatchEvent(new MouseEvent(type, {bubbles: type !== "mouseenter", cancelable: true, view: window}));
    }
    element.click();
    if (window.__pwned !== undefined) return element.outerHTML.slice(0, 300);
  }
  return null;
}"""

CANDIDATES = "article a, article img, article code, article em, article td, article p, article h1, article h2, article h3"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing (apt-get install chromium)")
def test_no_payload_runs_in_chromium(evil_site: Path, evil_url: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    from test_site_browser import ARGS

    dialogs: list[str] = []
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("console", lambda msg: errors.append(msg.text) if "__pwned" in msg.text else None)
            for path in reference_pages(evil_site):
                url = f"{evil_url}/{path.parent.relative_to(evil_site).as_posix()}/"
                page.goto(url, wait_until="load")
                assert page.locator("article").count() == 1, url
                # one call per page (EXERCISE) instead of three round trips per element
                assert page.evaluate(EXERCISE, CANDIDATES) is None, url
                page.keyboard.press("Tab")
                page.wait_for_timeout(100)
                assert page.evaluate("window.__pwned === undefined"), url
                if page.url != url:
                    page.goto(url, wait_until="load")
        finally:
            browser.close()
    assert dialogs == [] and errors == []
