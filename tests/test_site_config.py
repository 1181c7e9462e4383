"""mkdocs.yml: the site's and the repository's addresses come from the environment.

A local build falls back to 127.0.0.1 and shows no repository link; a release
build (``RELEASE=1``, ``make release``) stops when either address is missing or
the site's is local (``docsite/release.py``).
"""

from __future__ import annotations

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
