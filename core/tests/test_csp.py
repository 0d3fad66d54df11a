"""A Content-Security-Policy on every page; templates carry no inline script or style."""

import re
from pathlib import Path

import pytest
from django.http import HttpResponse

ROOT = Path(__file__).resolve().parents[2]
INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "inline <script> block"),
    (re.compile(r"\son[a-z]+\s*=\s*[\"']", re.I), "on*= event handler"),
    (re.compile(r"\sstyle\s*=\s*[\"']", re.I), "style= attribute"),
    (re.compile(r"<style\b", re.I), "inline <style> block"),
]


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    parts = (part.strip().split() for part in policy.split(";") if part.strip())
    return {name: values for name, *values in parts}


def test_no_template_has_an_inline_script_handler_or_style_attribute():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {what}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        for pattern, what in INLINE
        if pattern.search(line)
    ]
    assert found == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/", "/login/", "/no/such/page/", "/api/v1/me/", "/api/docs/", "/healthz"]
)
def test_every_response_carries_a_policy_without_inline_scripts(client, path):
    policy = directives(client.get(path))
    assert policy["default-src"] == ["'self'"]
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]


@pytest.mark.django_db
def test_pages_of_our_own_allow_no_inline_styles_either(client, researcher):
    client.force_login(researcher)
    assert directives(client.get("/researcher/"))["style-src"] == ["'self'"]


@pytest.mark.django_db
def test_a_nonce_is_added_only_when_a_template_asks_for_one(rf):
    from csp.middleware import CSPMiddleware
    from django.http import HttpResponse

    def view(request):
        return HttpResponse(f"<script nonce='{request.csp_nonce}'>x()</script>")

    with_nonce = CSPMiddleware(view)(rf.get("/"))
    without = CSPMiddleware(lambda request: HttpResponse("plain"))(rf.get("/"))
    assert "'nonce-" in with_nonce["Content-Security-Policy"]
    assert "'nonce-" not in without["Content-Security-Policy"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_browser_check_catches_a_violation(live_server, browser, page):
    page.goto(f"{live_server.url}/login/")
    page.evaluate("document.body.setAttribute('style', 'color: red')")
    page.wait_for_timeout(200)
    assert any("Content Security Policy" in v for v in browser.violations)
    browser.violations.clear()  # this test wanted one


@pytest.mark.django_db
@pytest.mark.parametrize(
    "make",
    [
        lambda request: HttpResponse("plain"),
        lambda request: HttpResponse(f"<script nonce='{request.csp_nonce}'>x()</script>"),
        lambda request: _with(
            HttpResponse("relaxed"), _csp_update={"style-src": ["'unsafe-inline'"]}
        ),
        lambda request: _with(
            HttpResponse("own"), **{"Content-Security-Policy": "default-src 'none'"}
        ),
    ],
    ids=["plain", "nonce", "updated", "own-header"],
)
def test_the_policy_built_once_is_the_one_django_csp_builds(rf, settings, make):
    from csp.middleware import CSPMiddleware

    from core.csp import CachedPolicyCSPMiddleware

    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": {"img-src": ["'self'"]}}
    for _ in range(2):  # the second answer comes from the cache
        ours = CachedPolicyCSPMiddleware(make)(rf.get("/"))
        theirs = CSPMiddleware(make)(rf.get("/"))
        for header in ("Content-Security-Policy", "Content-Security-Policy-Report-Only"):
            mine, its = ours.get(header, ""), theirs.get(header, "")
            assert re.sub(r"'nonce-[^']+'", "N", mine) == re.sub(r"'nonce-[^']+'", "N", its)
            assert mine


@pytest.mark.django_db
def test_a_changed_setting_changes_the_cached_policy(rf, settings):
    from core.csp import CachedPolicyCSPMiddleware

    middleware = CachedPolicyCSPMiddleware(lambda request: HttpResponse("plain"))
    assert "example.org" not in middleware(rf.get("/"))["Content-Security-Policy"]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["https://example.org"]}}
    assert middleware(rf.get("/"))["Content-Security-Policy"] == "default-src https://example.org"


def test_a_nonce_asked_for_after_the_header_is_written_is_an_error(rf):
    from csp.exceptions import CSPNonceError

    from core.csp import CachedPolicyCSPMiddleware

    request = rf.get("/")
    CachedPolicyCSPMiddleware(lambda request: HttpResponse("plain"))(request)
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


def _with(response, **changes):
    for name, value in changes.items():
        if name.startswith("_"):
            setattr(response, name, value)
        else:
            response[name] = value
    return response
