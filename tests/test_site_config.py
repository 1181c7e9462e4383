"""mkdocs.yml: the site's and the repository's addresses come from the environment.

A local build falls back to 127.0.0.1 and shows no repository link; a release
build (``RELEASE=1``, ``make release``) stops when either address is missing or
the site's is local (``docsite/release.py``). Each hook mkdocs.yml names is a thin
file that imports its events from the ``docsite`` package and nothing from ``tests/``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load

from docsite import release

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1:8000/"
SITE = "https://example.org/course/"
REPO = "https://github.com/example/context-budget"


def _yaml(monkeypatch: pytest.MonkeyPatch, **environ: str | None) -> dict[str, Any]:
    for name, value in environ.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    # mkdocs' own YAML loader: it resolves !ENV as a build does, without loading plugins.
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as config:
        loaded: dict[str, Any] = yaml_load(config)
    return loaded


@pytest.mark.parametrize(("environment", "expected"), [(None, LOCAL), (SITE, SITE)])
def test_site_url_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, environment: str | None, expected: str
) -> None:
    assert _yaml(monkeypatch, SITE_URL=environment)["site_url"] == expected


@pytest.mark.parametrize(("environment", "expected"), [(None, None), (REPO, REPO)])
def test_repo_url_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, environment: str | None, expected: str | None
) -> None:
    loaded = _yaml(monkeypatch, REPO_URL=environment)
    assert "repo_url" in loaded
    assert loaded["repo_url"] == expected


def test_the_release_hook_is_the_first_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    # First, so a release build stops before any notebook is executed.
    assert _yaml(monkeypatch)["hooks"][0] == "hooks/release.py"


def _config(site_url: str | None) -> MkDocsConfig:
    config = MkDocsConfig()
    config.load_dict({"site_name": "x", "site_url": site_url})
    errors, _ = config.validate()
    assert not errors
    return config


@pytest.mark.parametrize(
    ("environ", "site_url", "named"),
    [
        ({"RELEASE": "1"}, LOCAL, ["SITE_URL", "REPO_URL", "127.0.0.1"]),
        ({"RELEASE": "1", "REPO_URL": REPO}, LOCAL, ["SITE_URL", "127.0.0.1"]),
        ({"RELEASE": "1", "SITE_URL": SITE}, SITE, ["REPO_URL"]),
        ({"RELEASE": "yes", "SITE_URL": " ", "REPO_URL": REPO}, SITE, ["SITE_URL"]),
        (
            {"RELEASE": "1", "SITE_URL": "http://localhost:8000/", "REPO_URL": REPO},
            "http://localhost:8000/",
            ["localhost"],
        ),
    ],
)
def test_a_release_build_without_its_addresses_fails_and_names_them(
    monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], site_url: str, named: list[str]
) -> None:
    for name in ("RELEASE", "SITE_URL", "REPO_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(PluginError) as raised:
        release.on_config(_config(site_url))
    for word in named:
        assert word in str(raised.value)


@pytest.mark.parametrize(
    "environ",
    [
        {},  # make serve, make site, make test
        {"RELEASE": "0"},
        {"RELEASE": ""},
        {"RELEASE": "1", "SITE_URL": SITE, "REPO_URL": REPO},
    ],
)
def test_local_builds_and_a_complete_release_pass(
    monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]
) -> None:
    for name in ("RELEASE", "SITE_URL", "REPO_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    site_url = environ.get("SITE_URL", LOCAL)
    config = _config(site_url)
    assert release.on_config(config) is config


def _foreign_imports(source: str) -> list[str]:
    """The modules a hook file imports that are neither stdlib nor the ``docsite`` package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        found += [
            name
            for name in names
            if name.split(".")[0] not in {"docsite", *sys.stdlib_module_names}
        ]
    return found


def test_each_hook_hands_on_docsite_events_and_imports_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hooks = _yaml(monkeypatch)["hooks"]
    assert hooks and all(hook.startswith("hooks/") for hook in hooks)
    assert sorted(hooks) == sorted(f"hooks/{path.name}" for path in (ROOT / "hooks").glob("*.py"))
    for hook in hooks:
        assert _foreign_imports((ROOT / hook).read_text(encoding="utf-8")) == [], hook


def test_an_import_from_tests_in_a_hook_is_found() -> None:
    source = (
        "import sys\nfrom pagecheck import page_sybil\nfrom docsite.figures import on_pre_build\n"
    )
    assert _foreign_imports(source) == ["pagecheck"]
    assert _foreign_imports("from . import x\nimport tests.profiles\n") == [".", "tests.profiles"]


def test_no_file_is_loaded_by_its_path() -> None:
    """The toolchain is imported as a package: no `spec_from_file_location` loader is left."""
    folders = ["docsite", "hooks", "tests", "docs/figures", "benchmarks"]
    files = [
        ROOT / "conftest.py",
        *(p for folder in folders for p in (ROOT / folder).rglob("*.py")),
    ]
    loaders = [
        str(path.relative_to(ROOT))
        for path in files
        if "spec_from_file_location" in path.read_text(encoding="utf-8") and path != Path(__file__)
    ]
    assert loaders == []
