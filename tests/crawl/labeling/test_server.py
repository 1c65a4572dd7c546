"""The labeling server's frozen page: a base in its head so its relative styles and images
load from its own site, the body (and so every XPath) untouched, scripts still off."""

from __future__ import annotations

import lxml.html

from crawler.labeling.server import frozen_page

PAGE = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><link rel='stylesheet' href='/static/site.css'>"
    "</head><body><div><p>text</p></div><script>var s = '<base href=\"http://evil.test/\">';</script></body></html>"
)


def body_paths(html: str) -> list[str]:
    root = lxml.html.fromstring(html)
    tree = root.getroottree()
    return [tree.getpath(el) for el in root.find("body").iter()]


def test_the_frozen_page_loads_from_its_own_site_with_the_same_body() -> None:
    html, csp = frozen_page(PAGE, "http://site.test:8080/news/a.html")
    assert html.startswith('<!DOCTYPE html><html><head><base href="http://site.test:8080/news/a.html"><meta')
    assert body_paths(html) == body_paths(PAGE)
    assert "script-src 'none'" in csp and "base-uri http://site.test:8080" in csp


def test_the_pages_own_base_is_resolved_and_kept() -> None:
    page = PAGE.replace("<meta charset='utf-8'>", "<base href='../cdn/'>")
    html, csp = frozen_page(page, "https://site.test/news/a.html")
    assert '<head><base href="https://site.test/cdn/">' in html
    assert csp.endswith("base-uri https://site.test")


def test_a_page_without_head_or_web_address_gets_no_base() -> None:
    for page, url in (("<p>bare</p>", "http://site.test/"), (PAGE, "file:///tmp/a.html")):
        html, csp = frozen_page(page, url)
        assert html == page and csp.endswith("base-uri 'none'")
