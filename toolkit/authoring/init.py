"""`opset init DIR --domain NAME`: the files of a new vendor repository, as {relative path: text}.

What a vendor needs to go from nothing to a validated, generated, documented and gated domain:
the settings (`opset.toml`), the domain file and one example operator (with `$schema` modelines
pointing at the JSON Schemas written beside them, so editors validate offline), `mkdocs.yml` with
the `opset` plugin, a pre-commit configuration of local hooks (they run the `opset` installed in
the environment; nothing to fetch), a GitHub workflow, a `.gitignore`, and VS Code's workspace
settings (`vscode_files`: the schemas for files without a modeline, `opset lsp` through a generic
LSP client extension, both extensions recommended). Existing files are never overwritten (the
command refuses instead).
"""

from __future__ import annotations

import json
from importlib import metadata

from toolkit.load.schema_files import editor_schema_files
from toolkit.model.rules import REPOSITORY as TOOLKIT_REPOSITORY

SHA_PLACEHOLDER = "0" * 40  # as in docs/guide/ci-gate.md: replace with a full commit id


def package_name(domain: str) -> str:
    """The default import name of the generated package: the domain with `_` for `.` and `-`."""
    return domain.replace(".", "_").replace("-", "_") + "_ops"


def toolkit_commit() -> str | None:
    """The git commit the installed toolkit was built from, when pip installed it from git
    (PEP 610 `direct_url.json`); None otherwise."""
    try:
        text = metadata.distribution("opset-toolkit").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        commit = json.loads(text).get("vcs_info", {}).get("commit_id")
    except (ValueError, AttributeError):
        return None
    return commit if isinstance(commit, str) else None


def init_files(domain: str, package: str | None = None, commit: str | None = None) -> dict[str, str]:
    """Every file of a new repository for `domain` (a dotted domain name, already checked)."""
    package = package or package_name(domain)
    sha = commit or SHA_PLACEHOLDER
    files = {
        "opset.toml": OPSET_TOML.format(package=package, distribution=package.replace("_", "-")),
        f"opsets/{domain}/domain.yaml": DOMAIN_YAML.format(domain=domain),
        f"opsets/{domain}/Gain.yaml": GAIN_YAML.format(domain=domain),
        "mkdocs.yml": MKDOCS_YML.format(domain=domain),
        "docs/index.md": INDEX_MD.format(domain=domain, package=package),
        ".pre-commit-config.yaml": PRE_COMMIT,
        ".github/workflows/opset.yml": WORKFLOW.format(repo=TOOLKIT_REPOSITORY, sha=sha),
        ".gitignore": GITIGNORE,
    }
    for name, data in editor_schema_files().items():
        files[f"schemas/{name}"] = data.decode("utf-8")
    files.update(vscode_files())
    return dict(sorted(files.items()))


# The extensions VS Code is told to recommend: the YAML language server (the JSON Schemas) and a
# generic LSP client that starts `opset lsp` (docs/editors.md).
YAML_EXTENSION = "redhat.vscode-yaml"
LSP_CLIENT_EXTENSION = "llllvvuu.glspc"


def vscode_files(spec_root: str = "opsets") -> dict[str, str]:
    """`.vscode/settings.json` and `.vscode/extensions.json` of a vendor repository. `yaml.schemas`
    gives new spec files (not yet carrying the `$schema` modeline, which takes precedence) their
    schema, by the file names the loader classifies (`load.discovery.classify`)."""
    settings = {
        "yaml.schemas": {
            "./schemas/operator.schema.json": [f"{spec_root}/*/*.yaml", f"!{spec_root}/*/domain.yaml"],
            "./schemas/domain.schema.json": [f"{spec_root}/*/domain.yaml"],
            "./schemas/releases.schema.json": [f"{spec_root}/releases.yaml"],
        },
        "glspc.server.command": "opset",
        "glspc.server.commandArguments": ["lsp"],
        "glspc.server.languageId": ["yaml"],
    }
    extensions = {"recommendations": [YAML_EXTENSION, LSP_CLIENT_EXTENSION]}
    return {
        ".vscode/settings.json": json.dumps(settings, indent=2) + "\n",
        ".vscode/extensions.json": json.dumps(extensions, indent=2) + "\n",
    }


OPSET_TOML = """\
# opset-toolkit settings (docs: guide/vendor-domain.md). Paths are relative to this file.
spec_root = "opsets"      # one folder per domain, each with domain.yaml and <Operator>.yaml files
out = "generated"         # what `opset generate` writes (check it in; CI runs `opset generate --check`)
profile = "onnx-strict"   # the breaking-change gate (`opset diff`): profile, disable, allowlist, ...

[python]
package = "{package}"            # import name of the generated package (generated/python)
distribution = "{distribution}"  # its pip name: pip install ./generated/python
version = "0.1.0"

[docs]
pages = ["releases"]      # reference pages besides the domains': releases, dsl, cli
"""

DOMAIN_YAML = """\
# yaml-language-server: $schema=../../schemas/domain.schema.json
domain: {domain}
doc: |
  Operators of the {domain} domain.
opset_versions:
  - {{version: 1, ir_version: 9, doc: First release of the domain.}}
type_sets:
  float_types: [tensor(float16), tensor(float), tensor(double)]
"""

GAIN_YAML = """\
# yaml-language-server: $schema=../../schemas/operator.schema.json
operator: Gain
domain: {domain}
versions:
  - since_version: 1
    # status: experimental   # while it may still change incompatibly (the gate does not check it)
    doc: |
      Multiplies every element of `X` by `gain`.
    inputs:
      - {{name: X, type: T, doc: The input signal.}}
    outputs:
      - {{name: Y, type: T, doc: "`X` times `gain`, same shape."}}
    attributes:
      gain: {{type: float, default: 1.0, doc: The factor.}}
    type_constraints:
      T: {{allowed: "@float_types", doc: Floating-point tensors.}}
"""

MKDOCS_YML = """\
site_name: {domain} operators
docs_dir: docs
site_dir: site
strict: true
theme:
  name: mkdocs
plugins:
  - search
  - opset   # the operator reference of opsets/ under reference/ (settings in opset.toml)
nav:
  - Home: index.md
"""

INDEX_MD = """\
# {domain}

The operators of `{domain}`: see the *Reference* section.

Build this site with `mkdocs build --strict`. The generated Python package is
`{package}` (`pip install ./generated/python`).
"""

# Local hooks: they run the `opset` of the environment pre-commit runs in (install the toolkit
# there), so nothing is fetched and no tag needs to exist. `language: system` is what
# docs/guide/ci-gate.md recommends too: every pre-commit version reads it (4.4 and later as
# their `unsupported`). `opset pre-commit` is the gate: it validates every spec tree, then runs
# `opset diff` against HEAD (what the commit changes), so a breaking change of a released
# version is refused at commit time as it is in CI.
PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: opset
        name: opset (validate + breaking-change gate)
        entry: opset pre-commit
        language: system
        pass_filenames: false
        files: \\.(ya?ml|toml)$
      - id: opset-schemas
        name: opset schemas --check
        entry: opset schemas --check
        language: system
        pass_filenames: false
        files: ^schemas/
      - id: opset-generate-check
        name: opset generate --check
        entry: opset generate --check --quiet
        language: system
        pass_filenames: false
        files: ^(opsets/|generated/|opset\\.toml$)
"""

# Actions pinned by full commit id with the tag beside it, as the toolkit's own action.yml does;
# opset-toolkit itself by the commit it was installed from, else a placeholder to replace.
WORKFLOW = """\
name: opset
on:
  push:
    branches: [main]
  pull_request:   # never pull_request_target: a fork's pull request must not get a write token
permissions:
  contents: read
jobs:
  # Reads the pull request's tree as data only: nothing from it is imported or run.
  specs:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      security-events: write   # the gate uploads SARIF to code scanning
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          fetch-depth: 0   # the gate compares with the base branch from git objects
          persist-credentials: false
      - uses: actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1 # v6.3.0
        with:
          python-version: "3.11"
      # opset-toolkit has no release tag: install the commit you reviewed (also in `uses:` below)
      - run: pip install "opset-toolkit @ git+https://github.com/{repo}@${{TOOLKIT_SHA}}"
        env:
          TOOLKIT_SHA: "{sha}"   # <commit sha>
      - run: opset validate
      - run: opset schemas --check
      - run: opset generate --check
      - if: github.event_name == 'pull_request'
        uses: {repo}@{sha} # <commit sha>
        with:
          against: origin/${{{{ github.base_ref }}}}...
          specs: opsets
  # Installs the generated package and builds the site: both run code of the tree (its build
  # backend, mkdocs.yml hooks), so this job gets no write permission and no secrets.
  build:
    needs: specs
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false
      - uses: actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1 # v6.3.0
        with:
          python-version: "3.11"
      - run: pip install "opset-toolkit[docs] @ git+https://github.com/{repo}@${{TOOLKIT_SHA}}"
        env:
          TOOLKIT_SHA: "{sha}"   # <commit sha>
      - run: pip install ./generated/python
      - run: mkdocs build --strict
"""

GITIGNORE = """\
site/
__pycache__/
*.egg-info/
build/
"""
