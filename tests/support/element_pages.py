"""Hand-made pages of one layout for the element classifier's tests: a header menu, the
story (``div#story``, the main element a person marks), a sidebar of links and a footer.

:func:`layout_boxes` gives such a page the boxes a capture would record, from a fixed
geometry per region (the e2e test renders the pages in Chromium instead).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from pipelines.extraction.dom import body_of, is_element, parse_html

MAIN_PATH = "/html/body/div[2]/div[1]"
WORDS = [
    "river",
    "council",
    "volunteers",
    "morning",
    "bridge",
    "market",
    "school",
    "harbour",
    "festival",
    "library",
    "station",
    "garden",
    "museum",
    "weather",
    "season",
    "village",
    "mayor",
    "budget",
    "project",
    "travel",
]

#: x, y, w, h of each region (page 1200 px wide); their descendants share the region's box.
REGIONS = {
    "/html/body/div[1]": (0, 0, 1200, 90),
    "/html/body/div[2]": (0, 100, 1200, 1400),
    MAIN_PATH: (40, 110, 760, 1300),
    "/html/body/div[2]/div[2]": (840, 110, 320, 700),
    "/html/body/div[3]": (0, 1520, 1200, 120),
}


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def layout_page(seed: int, paragraphs: int = 4) -> str:
    """A page of the layout; the seed varies its texts and number of sidebar links."""
    rng = random.Random(seed)
    menu = "".join(f'<li><a href="/s{i}">{rng.choice(WORDS)}</a></li>' for i in range(6))
    story = "".join(f"<p>{sentence(rng, 25)} {sentence(rng, 18)}</p>" for _ in range(paragraphs))
    side = "".join(f'<li><a href="/r{i}">{sentence(rng, 5)}</a></li>' for i in range(rng.randint(5, 9)))
    return (
        "<!DOCTYPE html><html><head><title>Page</title><style>"
        "body{margin:0;width:1200px;font:16px sans-serif}.menu{height:90px}"
        ".wrap{display:flex}#story{width:760px;margin:10px 40px}.side{width:320px}"
        "</style></head><body>"
        f'<div class="menu"><ul>{menu}</ul></div>'
        f'<div class="wrap"><div id="story"><h1>{sentence(rng, 6)}</h1>{story}</div>'
        f'<div class="side"><ul>{side}</ul></div></div>'
        f'<div class="foot"><p>{sentence(rng, 8)}</p><a href="/about">About us</a></div>'
        "</body></html>"
    )


def layout_boxes(html: str) -> list[dict]:
    """Boxes in the capture's format for a :func:`layout_page`, in document order."""
    root = parse_html(html)
    tree = root.getroottree()
    boxes = []
    for element in body_of(root).iterdescendants():
        if not is_element(element):
            continue
        path = tree.getpath(element)
        region = max((p for p in REGIONS if path == p or path.startswith(p + "/")), key=len, default=None)
        x, y, w, h = REGIONS[region] if region else (0, 1640, 1200, 20)
        boxes.append(
            {
                "tag": element.tag,
                "id": element.get("id", ""),
                "classes": (element.get("class") or "").split(),
                "path": path,
                "x": x,
                "y": y,
                "w": w,
                "h": h,
                "visible": True,
                "text_len": len(element.text_content().strip()),
            }
        )
    return boxes


def write_capture(folder: Path, url: str, html: str, boxes: list[dict]) -> dict:
    """Store a page as the store pipeline would and return its feed line."""
    stem = url.rsplit("/", 1)[-1]
    (folder / f"{stem}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
    (folder / f"{stem}.json").write_text(json.dumps(boxes), encoding="utf-8")
    return {
        "url": url,
        "status": "ok",
        "html": {"uri": (folder / f"{stem}.html.gz").as_uri()},
        "boxes": {"uri": (folder / f"{stem}.json").as_uri()},
    }


def write_marked_layout(tmp_path: Path) -> tuple[Path, Path]:
    """Four captured pages of the layout (a feed) and a person's marks of three (gold)."""
    lines = [
        write_capture(tmp_path, f"http://site.test/p{i}", layout_page(i), layout_boxes(layout_page(i)))
        for i in range(4)
    ]
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    marks = tmp_path / "labels.jsonl"
    marks.write_text(
        "".join(
            json.dumps({"url": f"http://site.test/p{i}", "text": "", "path": MAIN_PATH}) + "\n"
            for i in range(3)
        ),
        encoding="utf-8",
    )
    return feed, marks
