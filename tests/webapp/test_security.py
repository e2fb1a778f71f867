"""Production settings pass Django's deployment checks; pages carry a strict CSP."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import REPO


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = {
        **os.environ,
        # An empty var dir: no var/run.env from a `make run` beside these tests (its dev defaults).
        "HEADROOM_VAR_DIR": str(tmp_path),
        "DEBUG": "0",
        "SECRET_KEY": "p" * 20 + "-production-secret-" + "q" * 30,
        "ALLOWED_HOSTS": "headroom.example.com",
    }
    for name in ("HEADROOM_SSL_REDIRECT", "HEADROOM_HSTS_SECONDS", "HEADROOM_SECURE_COOKIES", "HEADROOM_CSP"):
        env.pop(name, None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_pages_send_a_csp_with_a_nonce_for_inline_scripts(client, settings):
    settings.CSP_ENABLED = True
    response = client.get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert len(nonce) >= 16
    assert response["X-Frame-Options"] == "DENY"


def test_http_is_redirected_to_https_except_for_probes(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/accounts/login/").status_code == 301
    assert client.get("/healthz").status_code in (200, 503)


@pytest.mark.django_db
def test_the_api_docs_load_only_same_origin_scripts_that_exist(client, settings):
    import re

    from django.contrib.staticfiles import finders

    settings.CSP_ENABLED = True
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'<script[^>]*\ssrc="([^"]+)"', html) + re.findall(
        r'<link[^>]*\shref="([^"]+)"', html
    )
    assert any(src.endswith("swagger-ui-bundle.js") for src in sources), sources
    for src in sources:
        assert src.startswith(settings.STATIC_URL), src  # no CDN: the CSP allows only 'self'
        assert finders.find(src.removeprefix(settings.STATIC_URL)), f"{src} is not among the static files"
    assert "cdn" not in html.lower()
    assert "script-src 'self'" in response["Content-Security-Policy"]
