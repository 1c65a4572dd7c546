"""Every registered extractor survives hostile text: NULs, control characters, lone
surrogates, noncharacters and broken markup injected into real pages never raise; and the
parser reads odd markup as a browser would (an early end of the document, React's
streamed chunks)."""

from __future__ import annotations

import gzip
import random

import pytest
from lxml import etree

from crawler.demo.generator import build_web
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.extraction import Page, available_extractors, build_extractor, decode_html
from pipelines.extraction.dom import parse_html, xml_compatible
from tests.support.paths import SHARED_DATASETS

WCXB_DEV = SHARED_DATASETS / "wcxb-dev"
#: WCXB dev pages fuzzed when the data set is there (seed-chosen).
WCXB_SAMPLE = 20

# What gets injected: each is inserted at seed-chosen places in the page's HTML.
POISON = [
    "\x00",
    "\x01\x02\x03",
    "\x0b\x0c",
    "\x1b[31m",
    "\x7f",
    "\ud800",
    "\udfff",
    "\ufffe",
    "\uffff",
    "<p>\x00NUL inside a paragraph\x08</p>",
    "<div",
    "</td></tr></table>",
    "<![CDATA[",
    "<!--",
    "<script>",
    '<a href="\x00\ud83d">',
    "&#0;&#1;&#x1f;&#xD800;&#xFFFF;&#65534;&#x110000;",
]


def poisoned(html: str, seed: int, count: int = 40) -> str:
    """``html`` with ``count`` pieces of POISON inserted at random offsets."""
    rng = random.Random(seed)
    pieces = list(html)
    for _ in range(count):
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(POISON))
    return "".join(pieces)


def demo_pages() -> list[tuple[str, str]]:
    """(url, HTML) of one article and one list page of every demo site."""
    chosen = []
    for model in build_web(seed=2026, articles_per_site=3):
        kinds: dict[str, tuple[str, str]] = {}
        for path, page in sorted(model.pages.items()):
            if page.gold is None or page.gold.get("page_type") in kinds:
                continue
            url = f"http://{model.spec.name}.example{path}"
            kinds[page.gold["page_type"]] = (url, decode_html(page.body, model.spec.charset.label))
        chosen.extend(kinds.values())
    return chosen


def wcxb_pages() -> list[tuple[str, str]]:
    records = [r for r in read_wcxb(WCXB_DEV) if r.has_html]
    sample = random.Random(9).sample(records, min(WCXB_SAMPLE, len(records)))
    return [(r.url, decode_html(gzip.decompress(r.html_path.read_bytes()))) for r in sample]


def _run_every_extractor(url: str, html: str, seed: int) -> None:
    text = poisoned(html, seed)
    for name in available_extractors():
        extractor = build_extractor(name)
        for page_type in (None, "article", "list"):
            extractor.extract(Page(text, url, page_type))


@pytest.mark.parametrize("index", range(8))
def test_extractors_survive_poisoned_demo_pages(index):
    pages = demo_pages()
    assert len(pages) == 8
    url, html = pages[index]
    _run_every_extractor(url, html, seed=index)


@pytest.mark.skipif(not WCXB_DEV.is_dir(), reason="WCXB dev is not on this machine")
def test_extractors_survive_poisoned_wcxb_pages():
    for seed, (url, html) in enumerate(wcxb_pages()):
        _run_every_extractor(url, html, seed)


def test_xml_incompatible_characters_are_removed_once_at_parse():
    root = parse_html("<html><body><p>a\x00b\x01c\x0bd\ud800e\ufffef\uffffg\th\ni</p>tail\x1f!</body></html>")
    paragraph = root.find(".//p")
    assert paragraph.text == "abcd\ufffdefg\th\ni"
    assert paragraph.tail == "tail!"
    paragraph.tail += paragraph.text  # an edit of parsed text can no longer fail
    assert xml_compatible("ok\r\n\t") == "ok\r\n\t"


def test_character_references_to_controls_are_removed():
    root = parse_html("<html><body><p>a&#1;b&#x1F;c&#65535;d&#233;e&#x41;</p></body></html>")
    assert root.find(".//p").text == "abcd\u00e9eA"


def test_text_after_a_lone_surrogate_is_kept():
    root = parse_html("<html><body><p>before \udc80 after</p><p>next paragraph</p></body></html>")
    assert [p.text for p in root.iter("p")] == ["before \ufffd after", "next paragraph"]


def test_what_follows_an_early_end_of_the_document_is_in_the_body_as_in_a_browser():
    story = "<section><h1>Six kinds of outsourcing</h1>" + "<p>A paragraph of the story itself.</p>" * 6
    html = f"<html><body><header><nav>Home</nav></header>\n</BODY>\n</html >\n<div>{story}</section></div>"
    root = parse_html(html)
    assert [p.text for p in root.iter("p")] == ["A paragraph of the story itself."] * 6
    assert root.find("body/div/section/h1") is not None
    found = build_extractor("iawce").extract(Page(html, "https://hr.example/six-kinds"))
    assert found is not None and found.text.count("A paragraph of the story itself.") == 6


def streamed_page(boundary_comments: bool) -> str:
    """A React page streamed in chunks: a Suspense boundary (with its fallback) and a
    placeholder, each filled by a hidden chunk and its script at the end of the body."""
    start, end = ("<!--$?-->", "<!--/$-->") if boundary_comments else ("", "")
    paragraphs = "".join(f"<p>Streamed paragraph {n} of the story.</p>" for n in range(6))
    return (
        "<html><body><main><h1>Cloud stocks</h1><p>The opening paragraph.</p>"
        f'{start}<template id="B:0"></template><div>Loading paragraph...</div>{end}'
        '<p>Between the chunks.</p><div class="toc"><template id="P:1"></template></div></main>'
        "<footer>Site footer</footer>"
        f'<div hidden id="S:0">{paragraphs}</div><script>$RC("B:0","S:0")</script>'
        '<div hidden id="S:1"><a href="#one">Contents</a> tail</div><script>$RS("S:1","P:1")</script>'
        "</body></html>"
    )


def test_react_streamed_chunks_are_put_where_the_page_s_scripts_put_them():
    root = parse_html(streamed_page(boundary_comments=True))
    main = root.find("body/main")
    assert [p.text for p in main.iter("p")] == [
        "The opening paragraph.",
        *(f"Streamed paragraph {n} of the story." for n in range(6)),
        "Between the chunks.",
    ]
    assert "Loading" not in main.text_content()  # the boundary's fallback goes
    assert " ".join(main.find("div").text_content().split()) == "Contents tail"
    assert root.find(".//template") is None and root.find(".//div[@hidden]") is None
    assert not any(True for _ in root.iter(etree.Comment))


def test_a_streamed_page_saved_without_its_comments_keeps_the_fallback_and_gets_the_chunks():
    root = parse_html(streamed_page(boundary_comments=False))
    texts = [p.text for p in root.find("body/main").iter("p")]
    assert texts[1:7] == [f"Streamed paragraph {n} of the story." for n in range(6)]
    assert "Loading paragraph..." in root.find("body/main").text_content()


def test_iawce_reads_a_streamed_article_in_order():
    found = build_extractor("iawce").extract(
        Page(streamed_page(True), "https://fool.example/cloud", "article")
    )
    assert found is not None
    assert (
        found.text.index("opening paragraph") < found.text.index("paragraph 5") < found.text.index("Between")
    )


def test_boxes_whose_path_is_an_xpath_expression_are_skipped():
    # Broken markup (`<divclass="w">`) makes an element whose lxml path reads as an XPath
    # comparison, which evaluates to a boolean instead of a node list.
    html = "<html><body><article>" + "<p>Long enough paragraph of words here.</p>" * 8
    html += '<divclass="w">widget</divclass="w"></article></body></html>'
    boxes = [
        {
            "tag": 'divclass="w"',
            "path": '/html/body/article/divclass="w"',
            "visible": False,
            "x": 0,
            "y": 0,
            "w": 0,
            "h": 0,
        },
        {"tag": "article", "path": "/html/body/article", "visible": True, "x": 0, "y": 0, "w": 800, "h": 900},
    ]
    for name in available_extractors():
        build_extractor(name).extract(Page(html, "http://a.example/", "article", boxes))
