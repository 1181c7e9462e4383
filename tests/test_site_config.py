"""mkdocs.yml: the site's address comes from ``SITE_URL``, with the local one as default."""

from __future__ import annotations

from pathlib import Path

import pytest
from mkdocs.utils.yaml import yaml_load

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1:8000/"


@pytest.mark.parametrize(
    ("environment", "expected"),
    [(None, LOCAL), ("https://example.org/course/", "https://example.org/course/")],
)
def test_site_url_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, environment: str | None, expected: str
) -> None:
    if environment is None:
        monkeypatch.delenv("SITE_URL", raising=False)
    else:
        monkeypatch.setenv("SITE_URL", environment)
    # mkdocs' own YAML loader: it resolves !ENV as a build does, without loading plugins.
    with (ROOT / "mkdocs.yml").open(encoding="utf-8") as config:
        assert yaml_load(config)["site_url"] == expected
