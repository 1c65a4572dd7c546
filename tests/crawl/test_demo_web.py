"""The bundled demo web: determinism, gold against the served pages, structure, faults, command."""

from __future__ import annotations

import argparse
import functools
import io
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import urllib.robotparser
from collections import deque
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import lxml.html
import pytest
from PIL import Image
from scrapy.exceptions import UsageError
from scrapy.settings import Settings

from crawler.demo import DemoWeb, Faults, build_web, site_names
from crawler.demo.cli import (
    DemoWebOptions,
    add_demo_web_arguments,
    demo_web_options,
    serve_demo_web,
)
from crawler.demo.model import SiteModel
from crawler.demo.server import CONSENT_BANNER, served
from tests.support.paths import ROOT

ALL_FAULTS = Faults.parse("error_rate=0.1,hang,huge,non_html,script_redirect,stalled")
NO_FAULTS = Faults()
CHARSET = re.compile(r"charset=([\w-]+)", re.IGNORECASE)
SPACES = re.compile(r"\s+")


# --- helpers -----------------------------------------------------------------------------
def fetch(url: str, timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of a GET, without raising on HTTP errors."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def normalize(text: str) -> str:
    return SPACES.sub(" ", text).strip()


def visible_text(html: str, run_scripts: bool = True) -> str:
    """Text a reader sees: no scripts, styles or display:none elements. With
    ``run_scripts``, the magazine's article continuation is rendered as its script does."""
    root = lxml.html.fromstring(html)
    if run_scripts:
        for island in root.xpath('//script[@id="article-rest"]'):
            body = root.xpath('//div[@class="article-body"]')[0]
            for block in json.loads(island.text):
                element = lxml.html.Element("h2" if block["kind"] == "h2" else "p")
                element.text = block["text"]
                body.append(element)
    for element in root.xpath("//script | //style | //template | //noscript | //*[@hidden]"):
        element.drop_tree()
    for element in root.xpath("//*[@style]"):
        if "display:none" in element.get("style", "").replace(" ", ""):
            element.drop_tree()
    return normalize(root.text_content())


def same_site_links(url: str, html: bytes) -> list[str]:
    """Absolute same-origin <a href> targets of a page, fragments dropped."""
    root = lxml.html.fromstring(html)
    origin = urlsplit(url).netloc
    links = []
    for href in root.xpath("//a/@href"):
        target = urljoin(url, href).split("#")[0]
        if urlsplit(target).netloc == origin and target != url:
            links.append(target)
    return links


def depths(model: SiteModel, base: str = "http://demo.test", limit: int = 2) -> dict[str, int]:
    """Link depth of every page reachable from the home page within ``limit`` (raw HTML)."""
    seen = {base + "/": 0}
    queue = deque([base + "/"])
    while queue:
        url = queue.popleft()
        page = model.pages.get(url[len(base) :])
        if page is None or seen[url] >= limit or not page.content_type.startswith("text/html"):
            continue
        for link in same_site_links(url, page.body):
            if link not in seen:
                seen[link] = seen[url] + 1
                queue.append(link)
    return {url[len(base) :]: depth for url, depth in seen.items()}


@functools.cache
def built(seed: int = 2026, articles_per_site: int = 12, faults: Faults = NO_FAULTS) -> list[SiteModel]:
    """Generated sites, built once per argument set (tests only read them)."""
    return build_web(seed, articles_per_site, faults)


# --- fixtures ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def web():
    with DemoWeb(faults=ALL_FAULTS) as served:
        yield served


@pytest.fixture(scope="module")
def pages(web):
    """Every gold page fetched once: url -> (status, headers, body)."""
    return {record["url"]: fetch(record["url"]) for record in web.gold}


def gold_by_site(web, name):
    return [record for record in web.gold if record["site"] == name]


# --- determinism -------------------------------------------------------------------------
def test_same_seed_gives_identical_bytes_and_gold():
    first, second = build_web(seed=7, articles_per_site=4), build_web(seed=7, articles_per_site=4)
    for a, b in zip(first, second, strict=True):
        assert a is not b and a.pages.keys() == b.pages.keys()
        for path in a.pages:
            assert a.pages[path] == b.pages[path], f"{a.spec.name}{path} differs between builds"


def test_different_seed_gives_different_sites():
    first, second = built(7, 4), built(8, 4)
    for a, b in zip(first, second, strict=True):
        assert a.pages["/"].body != b.pages["/"].body
        texts_a = {record["text"] for record in a.gold_records()}
        texts_b = {record["text"] for record in b.gold_records()}
        assert not texts_a & texts_b


def test_faults_leave_the_other_pages_alone():
    for plain, faulty in zip(built(), built(faults=ALL_FAULTS), strict=True):
        errors = set(faulty.error_paths)
        assert faulty.gold_records() == [
            record for record in plain.gold_records() if record["url"] not in errors
        ]
        for path, page in plain.pages.items():
            if path != "/" and path not in errors:  # the home page links the fault pages
                assert faulty.pages[path] == page, f"{plain.spec.name}{path} changed with faults"


def test_served_bytes_do_not_depend_on_the_port(web):
    models = {model.spec.name: model for model in built(faults=ALL_FAULTS)}
    for site in web.sites:
        status, _, body = fetch(site.base_url + "/")
        assert status == 200
        assert body == models[site.name].pages["/"].body
        assert b"127.0.0.1" not in body


# --- gold against the served pages ---------------------------------------------------------
def test_sites_languages_and_charsets(web):
    assert [site.name for site in web.sites] == site_names()
    assert {(s.language, s.encoding) for s in web.sites} == {
        ("en", "utf-8"),
        ("ja", "Shift_JIS"),
        ("zh", "GBK"),
        ("ru", "windows-1251"),
    }
    assert len({urlsplit(s.base_url).port for s in web.sites}) == 4
    assert web.seed_urls == [site.base_url + "/" for site in web.sites]


def test_gold_records_follow_the_contract(web):
    sites = {site.name: site for site in web.sites}
    for record in web.gold:
        site = sites[record["site"]]
        assert record["url"].startswith(site.base_url + "/")
        assert record["page_type"] in ("article", "list")
        assert record["title"] and record["text"]
        assert record["language"] == site.language
        assert "\n\n\n" not in record["text"] and record["text"] == record["text"].strip()
        if record["page_type"] == "article":
            assert record["author"]
            assert datetime.fromisoformat(record["published"]).tzinfo is not None
        else:
            assert record["items"]
            expected = "\n\n".join(
                f"{item['title']}\n{item['text']}" if item["text"] else item["title"]
                for item in record["items"]
            )
            assert record["text"] == expected
            for item in record["items"]:
                assert item["url"].startswith(site.base_url + "/")
    for name in site_names():
        types = {record["page_type"] for record in gold_by_site(web, name)}
        assert types == {"article", "list"}, name


def test_every_gold_page_answers_with_its_declared_charset(web, pages):
    sites = {site.name: site for site in web.sites}
    for record in web.gold:
        status, headers, body = pages[record["url"]]
        assert status == 200, record["url"]
        charset = CHARSET.search(headers["Content-Type"]).group(1)
        assert charset == sites[record["site"]].encoding
        assert f'<meta charset="{charset}">'.encode("ascii") in body[:1024]
        html = body.decode(charset)  # strict: a wrongly encoded byte fails here
        root = lxml.html.fromstring(html)
        assert root.get("lang").split("-")[0] == record["language"]
        assert normalize(root.xpath("//h1")[0].text_content()) == record["title"]
        assert record["title"] in root.findtext(".//title")


def test_gold_text_is_what_the_page_shows(web, pages):
    for record in web.gold:
        _, headers, body = pages[record["url"]]
        html = body.decode(CHARSET.search(headers["Content-Type"]).group(1))
        seen = visible_text(html)
        for paragraph in record["text"].split("\n\n"):
            for line in paragraph.split("\n"):
                assert normalize(line) in seen, f"{record['url']}: gold line not on the page: {line[:60]}"
        if record["page_type"] == "article":
            assert f'datetime="{record["published"]}"' in html
            assert record["author"] in seen


def test_list_gold_items_are_the_linked_cards(web, pages):
    for record in (r for r in web.gold if r["page_type"] == "list"):
        _, headers, body = pages[record["url"]]
        root = lxml.html.fromstring(body.decode(CHARSET.search(headers["Content-Type"]).group(1)))
        anchors = {
            (urljoin(record["url"], a.get("href")), normalize(a.text_content()))
            for a in root.xpath("//a[@href]")
        }
        for item in record["items"]:
            assert (
                item["url"],
                item["title"],
            ) in anchors, f"{record['url']}: no link to {item['url']}"


def test_gold_leaves_out_hidden_text_and_boilerplate(web, pages):
    boilerplate = [
        "Printed from Daily Meridian",  # display:none inside the portal's article body
        "Advertisement",
        "Sponsored",
        "We use cookies",
        "スポンサーリンク",
        "続きを読む",
        "浏览次数",
        "当前位置",
        "Партнёрский материал",
        "Мы используем файлы cookie",
    ]
    for record in web.gold:
        for text in boilerplate:
            assert text not in record["text"], f"{record['url']} gold has boilerplate {text!r}"


def test_part_of_the_magazine_article_is_rendered_by_script(web, pages):
    for record in (r for r in gold_by_site(web, "magazine") if r["page_type"] == "article"):
        _, _, body = pages[record["url"]]
        html = body.decode("cp1251")
        last = record["text"].split("\n\n")[-1]
        assert last not in visible_text(html, run_scripts=False)
        assert last in visible_text(html, run_scripts=True)


def test_write_gold_is_utf8_jsonl(web, tmp_path):
    path = web.write_gold(tmp_path / "gold" / "demo.jsonl")
    raw = path.read_bytes()
    japanese_title = gold_by_site(web, "blog")[0]["title"]
    assert japanese_title.encode("utf-8") in raw  # written as UTF-8, not \u escapes
    lines = raw.decode("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == web.gold


# --- structure ---------------------------------------------------------------------------
@pytest.mark.parametrize(("articles_per_site", "deepest"), [(12, 2), (50, 3)])
def test_gold_and_fault_pages_are_within_depth_two(articles_per_site, deepest):
    """Two at the default size (the demo crawl's DEPTH_LIMIT); on bigger sites the rare
    topics, left out of the site index, are one step further, through their articles."""
    for model in built(articles_per_site=articles_per_site, faults=ALL_FAULTS):
        reached = depths(model, limit=deepest)
        wanted = [record["url"] for record in model.gold_records()]
        wanted += model.error_paths + model.hang_paths + model.huge_paths
        wanted += model.non_html_paths + model.robots_blocked_paths
        wanted += model.script_redirect_paths + model.stalled_paths
        missing = [path for path in wanted if reached.get(path, deepest + 1) > deepest]
        assert not missing, f"{model.spec.name}: deeper than {deepest}: {missing[:5]}"


def test_default_size_is_modest():
    sizes = {model.spec.name: len(model.gold_records()) for model in built()}
    assert all(28 <= size <= 36 for size in sizes.values()), sizes
    large = [r for model in built(articles_per_site=50, faults=ALL_FAULTS) for r in model.gold_records()]
    # 10% answer 5xx; each site adds a syndicated copy of its newest article
    assert sum(r["page_type"] == "article" for r in large) == 200 - 20 + 4


def test_articles_link_their_topic_author_and_month_indexes():
    """As on a news site, most links of an article lead to index pages (each a list page
    with gold), and some articles' first paragraph links an older story."""
    for model in built(articles_per_site=50):
        gold = {record["url"]: record for record in model.gold_records()}
        body_links = 0
        for record in (
            r for r in gold.values() if r["page_type"] == "article" and "near_duplicate_of" not in r
        ):
            root = lxml.html.fromstring(model.pages[record["url"]].body)
            box = root.xpath('//div[@class="article-topics"]')[0]
            targets = [a.get("href") for a in box.xpath(".//a")]
            assert len(targets) == 5, record["url"]  # three topics, the author, the month
            for target in targets:
                assert gold[target]["page_type"] == "list"
                folder = target.split("?")[0].rsplit("/", 1)[0] + "/"  # every page of the index
                pages = [r for r in gold.values() if r["url"].startswith(folder)]
                assert any(record["url"] in {i["url"] for i in r["items"]} for r in pages), target
            for anchor in root.xpath("//p/a"):
                if gold.get(anchor.get("href"), {}).get("page_type") == "article":
                    body_links += 1
                    assert normalize(anchor.getparent().text_content()) in normalize(record["text"])
        assert body_links > 10, model.spec.name


def test_no_broken_same_site_links():
    for model in built(faults=ALL_FAULTS):
        for path, page in model.pages.items():
            if not page.content_type.startswith("text/html") or page.hang or page.status != 200:
                continue
            for link in same_site_links("http://demo.test" + path, page.body):
                target = link[len("http://demo.test") :]
                assert target in model.pages, f"{model.spec.name}{path} links to missing {target}"


def test_robots_txt_disallows_private_pages(web):
    blocked = web.robots_blocked_urls
    assert blocked
    for site in web.sites:
        status, headers, body = fetch(site.base_url + "/robots.txt")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        robots = urllib.robotparser.RobotFileParser()
        robots.parse(body.decode("utf-8").splitlines())
        assert not robots.can_fetch("PageSight", site.base_url + "/private/anything.html")
        assert robots.can_fetch("PageSight", site.base_url + "/")
    for url in blocked:
        assert "/private/" in url
        assert url not in {record["url"] for record in web.gold}


# --- faults ------------------------------------------------------------------------------
def test_faults_parse():
    faults = Faults.parse(" latency_ms=50, error_rate=0.1,hang,huge,non_html ")
    assert faults == Faults(latency_ms=50, error_rate=0.1, hang=True, huge=True, non_html=True)
    assert Faults.parse(str(faults)) == faults
    every = Faults.parse("no_charset,late_meta,script_redirect,stalled,consent")
    assert every == Faults(no_charset=True, late_meta=True, script_redirect=True, stalled=True, consent=True)
    assert Faults.parse(str(every)) == every
    assert Faults.parse("") == Faults.parse("none") == Faults()
    assert str(Faults()) == "none"


@pytest.mark.parametrize(
    "text, message",
    [
        ("slow", "unknown fault knob 'slow'"),
        ("latency_ms", "needs a value"),
        ("latency_ms=fast", "needs a int"),
        ("error_rate=1.5", "between 0 and 1"),
        ("latency_ms=-1", ">= 0"),
        ("hang=1", "takes no value"),
        ("hang,hang", "given twice"),
    ],
)
def test_faults_parse_errors(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Faults.parse(text)


def test_no_faults_means_no_fault_pages():
    for model in built():
        assert not (model.error_paths or model.hang_paths or model.huge_paths or model.non_html_paths)
        assert all(page.status == 200 for page in model.pages.values())


def test_error_pages_answer_5xx_and_stay_out_of_gold(web):
    gold_urls = {record["url"] for record in web.gold}
    assert len(web.error_urls) == 4  # round(0.1 * 12) articles on each site
    for url in web.error_urls:
        status, _, _ = fetch(url)
        assert status in (500, 503)
        assert url not in gold_urls


def test_error_pages_are_chosen_by_the_seed():
    def chosen(seed):
        return [path for model in built(seed, 12, Faults(error_rate=0.3)) for path in model.error_paths]

    assert chosen(1) == chosen(1)
    assert chosen(1) != chosen(2)


def test_latency_is_added_to_every_response():
    with DemoWeb(articles_per_site=1, faults=Faults(latency_ms=300)) as slow:
        for url in (slow.seed_urls[0], slow.seed_urls[1] + "robots.txt"):
            started = time.monotonic()
            status, _, _ = fetch(url)
            assert status == 200
            assert time.monotonic() - started >= 0.25


def test_hanging_page_is_released_by_stop():
    hanging = DemoWeb(articles_per_site=1, faults=Faults(hang=True)).start()
    try:
        url = urlsplit(hanging.hang_urls[0])
        connection = socket.create_connection((url.hostname, url.port), timeout=5)
        connection.sendall(f"GET {url.path} HTTP/1.0\r\nHost: {url.netloc}\r\n\r\n".encode("ascii"))
        connection.settimeout(1.0)
        received = b""
        with pytest.raises(socket.timeout):  # the rest of the page never comes
            while chunk := connection.recv(65536):
                received += chunk
            pytest.fail("the hanging page finished")
        assert received.startswith(b"HTTP/1.0 200")
        assert b"<!DOCTYPE html>" in received and b"</html>" not in received
    finally:
        started = time.monotonic()
        hanging.stop()
        stopped_in = time.monotonic() - started
    assert stopped_in < 3.0
    connection.settimeout(2.0)
    assert connection.recv(65536) == b""  # released: the server closed the connection
    connection.close()
    hanging.stop()  # idempotent


def test_serving_knobs_change_headers_and_bytes_but_not_the_text():
    plain = {model.spec.name: model for model in built()}
    knobs = Faults(no_charset=True, late_meta=True, consent=True)
    for model in plain.values():
        page = model.pages["/"]
        content_type, body = served(page, knobs)
        assert content_type == "text/html" and CHARSET.search(page.content_type)
        meta = f'<meta charset="{model.spec.charset.label}">'.encode("ascii")
        assert meta in page.body[:200] and body.index(meta) > 1024  # past the browser's prescan
        assert body.count(CONSENT_BANNER) == 1 and body.index(CONSENT_BANNER) < body.index(b"</body>")
        codec = model.spec.charset.codec
        assert SPACES.sub(
            " ", lxml.html.fromstring(body.decode(codec)).find("body").text_content()
        ).startswith(
            SPACES.sub(
                " ", lxml.html.fromstring(page.body.decode(codec)).find("body").text_content()
            ).rstrip()
        )
        assert served(page, NO_FAULTS) == (page.content_type, page.body)
    robots = plain["portal"].pages["/robots.txt"]
    assert served(robots, knobs) == (robots.content_type, robots.body)


def test_the_error_fault_cuts_no_page_off_the_web():
    # A rare topic's index is linked only from its articles: were they all to answer 5xx,
    # no crawl could reach it (the 1,000-page soak's web lost three tag pages so).
    big = DemoWeb(seed=2026, articles_per_site=125, faults=Faults(error_rate=0.1))
    href = re.compile(rb'href="([^"#]*)"')
    for model in big.models:
        assert model.error_paths
        linked = set()
        for path, page in model.pages.items():
            if page.status == 200 and page.content_type.startswith("text/html"):
                linked.update(h.decode() for h in href.findall(page.body) if h.decode() != path)
        indexes = [p for p in model.pages if re.match(r"/(tag|author|archive)/", p) and "?page=" not in p]
        assert indexes and not [p for p in indexes if p not in linked], model.spec.name


def test_no_charset_is_what_the_server_sends():
    with DemoWeb(articles_per_site=1, faults=Faults(no_charset=True)) as bare:
        for url in bare.seed_urls:
            status, headers, _ = fetch(url)
            assert status == 200 and headers["Content-Type"] == "text/html"


def test_script_redirect_and_stalled_pages_are_linked_from_home(web):
    [redirect] = web.script_redirect_urls
    stalled, blocked = web.stalled_urls
    status, _, body = fetch(redirect)
    assert status == 200 and b'location.replace("https://" + location.host' in body
    status, _, body = fetch(stalled)
    assert status == 200 and b'<img src="/live/newsroom-feed.png"' in body
    status, _, body = fetch(blocked)  # the script comes first in <body>, before the text
    assert status == 200 and re.search(rb'<body[^>]*><script src="/live/wire-desk.js">', body)
    gold_urls = {record["url"] for record in web.gold}
    assert not {redirect, stalled, blocked} & gold_urls
    home = fetch(web.seed_urls[0])[2]
    for path in (b"/moved/old-story.html", b"/live/newsroom-feed.html", b"/live/wire-desk.html"):
        assert b'href="' + path + b'"' in home
    for never_finishes in ("/newsroom-feed.png", "/wire-desk.js"):
        with pytest.raises(TimeoutError):
            fetch(stalled.rsplit("/", 1)[0] + never_finishes, timeout=1.0)


def test_huge_page_is_several_megabytes(web):
    [url] = web.huge_urls
    status, headers, body = fetch(url, timeout=30)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert len(body) >= 3_000_000
    assert url not in {record["url"] for record in web.gold}


def test_non_html_pages_are_a_real_pdf_and_png(web):
    by_type = {}
    for url in web.non_html_urls:
        status, headers, body = fetch(url)
        assert status == 200
        by_type[headers["Content-Type"]] = body
    pdf, png = by_type["application/pdf"], by_type["image/png"]
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    assert pdf[xref:].startswith(b"xref")
    offsets = [int(line.split()[0]) for line in pdf[xref:].split(b"\n")[3:8]]
    for number, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(b"%d 0 obj" % number)
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG" and image.size == (640, 400)


# --- lifecycle ---------------------------------------------------------------------------
def test_urls_need_a_started_web():
    idle = DemoWeb(articles_per_site=1)
    with pytest.raises(RuntimeError, match="not started"):
        _ = idle.gold
    idle.stop()  # stopping a web that never started is fine


def test_base_port_serves_consecutive_ports():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        base = probe.getsockname()[1]
    if base > 65000:
        pytest.skip("free port too close to the top of the range")
    with DemoWeb(articles_per_site=1, base_port=base) as fixed:
        assert [urlsplit(url).port for url in fixed.seed_urls] == [
            base,
            base + 1,
            base + 2,
            base + 3,
        ]
        with pytest.raises(OSError, match="cannot serve site 'portal'"):
            DemoWeb(articles_per_site=1, base_port=base).start()


def test_hits_count_requests(web):
    url = web.seed_urls[2]
    before = web.hits[url]
    fetch(url)
    assert web.hits[url] == before + 1


# --- the command -------------------------------------------------------------------------
def parse_command_line(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_demo_web_arguments(parser)
    return parser.parse_args(argv)


def test_command_options_default_to_settings():
    settings = Settings(
        {
            "PAGESIGHT_DEMO_SEED": 5,
            "PAGESIGHT_DEMO_ARTICLES_PER_SITE": 3,
            "PAGESIGHT_DEMO_FAULTS": "hang",
        }
    )
    options = demo_web_options(parse_command_line(["--port", "8100"]), settings)
    assert options == DemoWebOptions(8100, 5, 3, Faults(hang=True), None)
    options = demo_web_options(
        parse_command_line(
            [
                "--port",
                "0",
                "--seed",
                "9",
                "--articles-per-site",
                "2",
                "--faults",
                "none",
                "--gold",
                "g.jsonl",
            ]
        ),
        settings,
    )
    assert options == DemoWebOptions(0, 9, 2, Faults(), Path("g.jsonl"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--port", "70000"], "--port"),
        (["--port", "0", "--articles-per-site", "0"], "--articles-per-site"),
        (["--port", "0", "--faults", "explode"], "--faults: unknown fault knob"),
    ],
)
def test_command_rejects_bad_options(argv, message):
    settings = Settings()
    settings.setmodule("settings")  # the project's own defaults
    with pytest.raises(UsageError, match=re.escape(message)):
        demo_web_options(parse_command_line(argv), settings)


def test_command_requires_a_port():
    with pytest.raises(SystemExit):
        parse_command_line([])


def test_serve_prints_site_urls_and_writes_gold(tmp_path):
    out, stop = io.StringIO(), threading.Event()
    options = DemoWebOptions(0, 3, 1, Faults(), tmp_path / "gold.jsonl")
    result = {}
    thread = threading.Thread(target=lambda: result.update(web=serve_demo_web(options, out, stop)))
    thread.start()
    deadline = time.monotonic() + 20
    while "Serving" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    urls = re.findall(r"http://127\.0\.0\.1:\d+/", out.getvalue())
    try:
        assert len(urls) == 4
        assert fetch(urls[0])[0] == 200
    finally:
        stop.set()
        thread.join(10)
    assert not thread.is_alive()
    lines = (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines and all(json.loads(line)["url"].startswith(tuple(urls)) for line in lines)


def _default_sigint() -> None:
    """In the child: Ctrl-C as a shell gives it. An in-process crawl earlier in the session
    can leave SIGINT ignored in pytest, and an ignored signal stays ignored across exec."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_scrapy_demo_web_serves_until_interrupted():
    process = subprocess.Popen(
        [sys.executable, "-m", "scrapy", "demo-web", "--port", "0", "--articles-per-site", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("Serving"):
                break
        urls = re.findall(r"http://127\.0\.0\.1:\d+/", "".join(lines))
        assert len(urls) == 4, "".join(lines) + process.stderr.read()
        assert fetch(urls[3])[0] == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0  # exits in ~1.5 s
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
