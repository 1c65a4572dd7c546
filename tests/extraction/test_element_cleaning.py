"""What the element extractors render of their pick (issues 12 and 13): the chosen element
without what the denoiser drops inside it, and the page's cleaned body when there is no
usable pick. On hand-made captured pages (HTML + boxes), no browser."""

from __future__ import annotations

import logging
import random
from dataclasses import replace

import numpy as np
import pytest

from models.common.trees import ESTIMATE
from models.element.model import TreeEnsemble
from pipelines.extraction import Page, element_features
from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import body_of, is_element, parse_html
from pipelines.extraction.element_classifier import KNOWN_FEATURES, ElementClassifierExtractor, element_blocks
from pipelines.extraction.element_features import CLEANING_FEATURES, feature_matrix
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.textformat import to_text
from pipelines.extraction.vision_element import VisionElementExtractor
from tests.support.element_pages import sentence

SHARE = "Share this story on Facebook"
COMMENT = "First comment here"


def story_page() -> str:
    """The story (h1, four paragraphs) holding a share bar and a comment thread, then a
    sidebar of links."""
    rng = random.Random(7)
    story = "".join(f"<p>{sentence(rng, 25)} {sentence(rng, 18)}</p>" for _ in range(4))
    comments = "".join(
        f'<div class="comment-body"><p>{COMMENT if i == 0 else sentence(rng, 12)}</p></div>' for i in range(3)
    )
    side = "".join(f'<li><a href="/r{i}">{sentence(rng, 5)}</a></li>' for i in range(6))
    return (
        "<!DOCTYPE html><html><head><title>Harbour news</title></head><body>"
        f'<div id="story"><h1>{sentence(rng, 6)}</h1>{story}'
        f'<div class="share-buttons"><a href="https://facebook.test/share">{SHARE}</a> '
        '<a href="https://x.test/intent">Post it on X</a></div>'
        f'<div id="comments"><h3>3 comments</h3>{comments}</div></div>'
        f'<div class="side"><ul>{side}</ul></div>'
        "</body></html>"
    )


def page_boxes(html: str, text: bool = True, unboxed: str = "") -> list[dict]:
    """A box per element under body but the ``unboxed`` tag, in document order (the story
    first), visible, with its text length (0 everywhere when not ``text``)."""
    root = parse_html(html)
    tree = root.getroottree()
    return [
        {
            "tag": el.tag,
            "path": tree.getpath(el),
            "x": 0,
            "y": 40 * i,
            "w": 800,
            "h": 400,
            "visible": True,
            "text_len": len(el.text_content().strip()) if text else 0,
        }
        for i, el in enumerate(body_of(root).iterdescendants())
        if is_element(el) and el.tag != unboxed
    ]


def first_candidate_model(estimate: float) -> TreeEnsemble:
    """A one-leaf regressor: every candidate gets ``estimate``, so the first one (the
    story) is the pick."""
    return TreeEnsemble(
        *(np.array([-1]),) * 2,
        np.array([0]),
        np.array([0.0]),
        np.array([estimate]),
        np.array([0]),
        baseline=0.0,
        rate=1.0,
        depth=0,
        features=list(KNOWN_FEATURES),
        meta={"viewport_height": 768},
        output=ESTIMATE,
    )


def classifier(tmp_path, estimate: float = 0.9, **options: object) -> ElementClassifierExtractor:
    defaults = ElementClassifierExtractor.Options(tmp_path / "unused.npz")
    return ElementClassifierExtractor(replace(defaults, **options), first_candidate_model(estimate))


@pytest.mark.parametrize("wrapper", ["section", "fb:wrap"])  # a path with a prefix is no valid XPath
def test_the_chosen_element_is_rendered_without_its_share_bar_and_comments(tmp_path, wrapper):
    html = story_page().replace("<body>", f"<body><{wrapper}>").replace("</body>", f"</{wrapper}></body>")
    page = Page(html, "http://a.test/story", "article", page_boxes(html, unboxed=wrapper))
    extractor = classifier(tmp_path)
    choice = extractor.choose(page)
    assert choice is not None and choice.path == f"/html/body/{wrapper}/div[1]"  # the element itself is kept
    found = extractor.extract(page)
    assert found is not None
    story = parse_html(html).find(".//div[@id='story']")
    title, first = story.find("h1").text, story.find("p").text
    assert found.text.startswith(title) and first in found.text
    assert SHARE not in found.text and COMMENT not in found.text and "3 comments" not in found.text
    raw = classifier(tmp_path, clean_element=False).extract(page)
    assert raw is not None and SHARE in raw.text and COMMENT in raw.text and first in raw.text


def test_without_a_candidate_the_cleaned_body_is_the_extraction(tmp_path, caplog):
    html = story_page()
    page = Page(html, "http://a.test/none", "article", page_boxes(html, text=False))
    extractor = classifier(tmp_path)
    assert extractor.choose(page) is None
    with caplog.at_level(logging.INFO):
        found = extractor.extract(page)
    assert found is not None and "no candidate on http://a.test/none; the cleaned body instead" in caplog.text
    story = parse_html(html).find(".//div[@id='story']")
    assert story.find("p").text in found.text and SHARE not in found.text and COMMENT not in found.text
    side_link = parse_html(html).find(".//div[@class='side']//a").text
    assert side_link in found.text  # the body's, not only the story's


def test_a_pick_scored_below_fallback_below_gives_the_cleaned_body(tmp_path, caplog):
    html = story_page()
    page = Page(html, "http://a.test/low", "article", page_boxes(html))
    side_link = parse_html(html).find(".//div[@class='side']//a").text
    kept = classifier(tmp_path, estimate=0.3, fallback_below=0.2).extract(page)
    assert kept is not None and side_link not in kept.text
    with caplog.at_level(logging.INFO):
        body = classifier(tmp_path, estimate=0.1, fallback_below=0.2).extract(page)
    assert body is not None and side_link in body.text and SHARE not in body.text
    assert "the pick scores 0.100 < 0.2 on http://a.test/low; the cleaned body instead" in caplog.text


def test_a_page_whose_body_shows_nothing_is_none_with_a_reason(tmp_path, caplog):
    html = "<html><body><div><span> </span></div></body></html>"
    with caplog.at_level(logging.INFO):
        assert (
            classifier(tmp_path).extract(Page(html, "http://a.test/e", "article", page_boxes(html))) is None
        )
    assert "the body of http://a.test/e shows no text" in caplog.text


def test_vision_without_a_candidate_of_the_size_gives_the_cleaned_body(caplog):
    pytest.importorskip("torch")
    from tests.extraction.test_vision_element import drawn_screenshot

    html = story_page()
    extractor = VisionElementExtractor(replace(VisionElementExtractor.Options(), min_side=100_000))
    page = Page(html, "http://a.test/v", "article", page_boxes(html), drawn_screenshot())
    with caplog.at_level(logging.INFO):
        found = extractor.extract(page)
    assert "no candidate of 100000 px on http://a.test/v" in caplog.text
    assert "no candidate on http://a.test/v; the cleaned body instead" in caplog.text
    assert found is not None and found.extractor == "vision-element"
    story = parse_html(html).find(".//div[@id='story']")
    assert story.find("p").text in found.text and SHARE not in found.text and COMMENT not in found.text


def test_an_element_the_render_hid_stays_out_of_the_cleaned_pick(tmp_path):
    html = story_page()
    boxes = page_boxes(html)
    story = parse_html(html).find(".//div[@id='story']")
    first, second = (p.text for p in story.findall("p")[:2])
    hidden = next(box for box in boxes if box["path"] == "/html/body/div[1]/p[2]")
    hidden["visible"] = False
    found = classifier(tmp_path).extract(Page(html, "http://a.test/hidden", "article", boxes))
    assert found is not None and first in found.text and second not in found.text
    assert SHARE not in found.text


@pytest.mark.parametrize("clean_for", [None, "article"])
def test_a_pick_the_render_hid_whole_keeps_its_text(clean_for):
    """A story whose fade-in never ran (it and all inside it marked invisible) is shown:
    the render's verdict on that much text is not trusted, as in iawce's denoiser."""
    html = story_page()
    root = parse_html(html)
    story = root.find(".//div[@id='story']")
    faded = root.getroottree().getpath(story)
    boxes = page_boxes(html)
    for box in boxes:
        box["visible"] = not (box["path"] == faded or box["path"].startswith(faded + "/"))
    text = to_text(element_blocks(root, story, boxes, "http://a.test/", clean_for))
    first, last = (p.text for p in story.findall("p")[::3])
    assert first in text and last in text
    assert (SHARE in text) == (clean_for is None)  # the cleaning still drops the share bar


def test_a_pick_the_denoiser_drops_whole_keeps_its_own_text():
    html = story_page()
    root = parse_html(html)
    share_bar = root.find(".//div[@class='share-buttons']")
    blocks = element_blocks(root, share_bar, page_boxes(html), "http://a.test/", "article")
    assert SHARE in to_text(blocks)  # the denoiser would remove it all: its shown text stands


def test_kept_share_is_the_share_of_an_elements_text_the_denoiser_keeps():
    html = story_page()
    root = parse_html(html)
    boxes = page_boxes(html)
    found, rows = feature_matrix(root, boxes, ["kept_share"], 768, "article")
    share = {candidate.path: row[0] for candidate, row in zip(found, rows, strict=True)}
    story = root.find(".//div[@id='story']")
    lengths = subtree_lengths(body_of(root))
    noise = sum(
        lengths[el] for el in story if el.get("class") == "share-buttons" or el.get("id") == "comments"
    )
    assert share["/html/body/div[1]"] == pytest.approx(1 - noise / lengths[story])
    assert share["/html/body/div[1]/p[1]"] == 1.0
    assert share["/html/body/div[1]/div[1]"] == 0.0  # the share bar goes whole
    assert share["/html/body/div[1]/div[2]/div[1]"] == 0.0  # inside the comment thread


def test_the_extractor_denoises_the_page_once_for_the_features_and_its_pick(tmp_path, monkeypatch):
    html = story_page()
    page = Page(html, "http://a.test/once", "article", page_boxes(html))
    made = []

    def counted(root, page_type, boxes=None):
        made.append(page_type)
        return denoise(root, page_type, boxes)

    monkeypatch.setattr(element_features, "denoise", counted)
    found = classifier(tmp_path).extract(page)
    assert found is not None and SHARE not in found.text and made == ["article"]


def test_a_checkpoint_without_the_kept_share_still_loads_and_extracts(tmp_path):
    old_features = [name for name in KNOWN_FEATURES if name not in CLEANING_FEATURES]
    path = replace(first_candidate_model(0.9), features=old_features).save(tmp_path / "old.npz")
    extractor = ElementClassifierExtractor(ElementClassifierExtractor.Options(path))
    html = story_page()
    found = extractor.extract(Page(html, "http://a.test/old", "article", page_boxes(html)))
    assert found is not None and SHARE not in found.text
    assert extractor.model.features == old_features
