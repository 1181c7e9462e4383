"""mkdocs hook: a release build refuses to publish links to this machine.

``site_url`` and ``repo_url`` come from the environment (``SITE_URL`` and
``REPO_URL``, see mkdocs.yml). A local build (``make serve``, ``make site``,
``make test``) falls back to ``http://127.0.0.1:8000/`` and shows no repository
link, which is right on the machine that serves it and wrong anywhere else: the
canonical links and ``sitemap.xml`` would point readers at their own computer.

A release build is one run with ``RELEASE=1`` (``make release``). It fails
before any page is built when ``SITE_URL`` or ``REPO_URL`` is unset or empty,
or when the site's address is a local one (127.0.0.1, localhost, ::1).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

#: The environment variable that marks a release build, and the ones it needs.
RELEASE = "RELEASE"
REQUIRED = ("SITE_URL", "REPO_URL")
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


def is_release(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """True when ``RELEASE`` is set to anything but empty, ``0`` or ``false``."""
    value = (os.environ if environ is None else environ).get(RELEASE, "")
    return value.strip().lower() not in {"", "0", "false", "no"}


def release_problems(site_url: str | None, environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """What stops a release build: each unset variable, and a local site address."""
    problems = [
        f"{name} is not set (a release build publishes its links)"
        for name in REQUIRED
        if not environ.get(name, "").strip()
    ]
    host = urlsplit(site_url or "").hostname
    if host in LOCAL_HOSTS:
        problems.append(f"site_url {site_url!r} points at this machine ({host})")
    return problems


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Fail a release build whose addresses are missing or local; pass any other build."""
    if is_release():
        problems = release_problems(config.site_url, os.environ)
        if problems:
            raise PluginError("release build stopped: " + "; ".join(problems))
    return config
