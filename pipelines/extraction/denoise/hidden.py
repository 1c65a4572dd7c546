"""What the render hid: the elements the browser reported invisible (trusted only while
they hold a small share of the page, and not what a click reveals), and the ``<noscript>``
fallback of a script-built page, unwrapped.

Markup hints of hiddenness (``hidden``, ``aria-hidden``, inline ``display:none``) are not
trusted: scripts reveal such content, and on WCXB's raw HTML honouring them cost 0.012
word F1 on article-like pages (0.859 → 0.847). Only the browser's verdict counts; the
hints only choose which of two copies goes (:mod:`~pipelines.extraction.denoise.copies`).
"""

from __future__ import annotations

from typing import Any

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import outermost_length, shown_length, text_outside
from pipelines.extraction.denoise.vocabulary import REVEALABLE_MARKERS
from pipelines.extraction.dom import HtmlElement, body_of, is_element
from pipelines.extraction.lengths import text_length


def trusted_hidden(
    root: HtmlElement,
    boxes: list[dict[str, Any]],
    scope: HtmlElement | None = None,
    options: DenoiseOptions = DenoiseOptions(),
) -> list[HtmlElement]:
    """The elements the render hid (:func:`invisible_elements`), or none when they hold
    more than ``max_hidden_share`` of the text of ``scope`` (the body unless given): that
    much hidden text is content the render did not reveal (a fade-in that never ran), not
    hidden boilerplate."""
    hidden = invisible_elements(root, boxes)
    within = body_of(root) if scope is None else scope
    return hidden if outermost_length(hidden) <= options.max_hidden_share * shown_length(within) else []


def invisible_elements(root: HtmlElement, boxes: list[dict[str, Any]]) -> list[HtmlElement]:
    """Elements whose box says ``visible: false``, that have no visible descendant box and
    that a reader cannot reveal with a click (:func:`revealable`)."""
    shows_content: set[str] = set()
    hidden: list[dict[str, Any]] = []
    for box in boxes:
        path = box.get("path")
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        if box.get("visible", True):
            while path:
                if path in shows_content:
                    break
                shows_content.add(path)
                path = path.rpartition("/")[0]
        else:
            hidden.append(box)
    tree = root.getroottree()
    found = []
    for box in hidden:
        if box["path"] in shows_content:
            continue
        try:
            matches = tree.xpath(box["path"])
        except Exception:  # lxml raises XPathEvalError subclasses; a bad path is just skipped
            continue
        if not isinstance(matches, list):  # a tag like `divclass="x"` makes the path an expression
            continue
        if (
            len(matches) == 1
            and is_element(matches[0])
            and matches[0].tag == box.get("tag", matches[0].tag)
            and matches[0].tag != "noscript"  # always invisible where scripts run: unwrap_noscript decides
            and not revealable(matches[0])
        ):
            found.append(matches[0])
    return found


def revealable(element: HtmlElement) -> bool:
    """Whether ``element`` sits in a closed ``<details>`` or a tab, accordion or other
    container that a reader opens (``REVEALABLE_MARKERS``)."""
    for node in (element, *element.iterancestors()):
        if node.tag == "details":
            return True
        attrib = node.attrib
        marker = f"{attrib.get('class', '')} {attrib.get('id', '')} {attrib.get('role', '')}"
        if REVEALABLE_MARKERS.search(marker):
            return True
    return False


def unwrap_script_fallback(body: HtmlElement) -> int:
    """Unwrap (in place) the outermost <noscript> elements when they hold more of the
    body's text than the rest of it: a script-built page's server-rendered fallback.
    Returns how many were unwrapped."""
    outermost = [n for n in body.iter("noscript") if not any(a.tag == "noscript" for a in n.iterancestors())]
    if not outermost:
        return 0
    inside = sum(text_length(n.text_content()) for n in outermost)
    if inside <= text_length(text_outside(body, "noscript")):
        return 0
    for noscript in outermost:
        noscript.drop_tag()
    return len(outermost)


def remove_invisible(page: DenoisingPage) -> int:
    """Elements the browser reported invisible, unless they hold much of the page's text.

    Matched by their lxml-style XPath ``path`` and tag in the capture's element boxes
    (``visible: false``); the paths refer to the untouched tree, so this step comes first.
    An invisible box with a visible descendant box stays (a zero-height container of
    floated children is "invisible" but shows its content), ``<noscript>`` is left to
    :func:`unwrap_noscript`, and when the invisible elements hold more than
    ``max_hidden_share`` of the page's text nothing goes: the render never revealed the page
    (a fade-in or an app shell whose script did not run), and what a reader would see once
    it did is the page itself. Content a reader opens with a click stays too: inside a
    closed ``<details>`` or a container whose class, id or role names a tab, accordion,
    collapsible, toggle, panel, spoiler or FAQ (``REVEALABLE_MARKERS``)."""
    return page.remove(trusted_hidden(page.root, page.boxes, options=page.options)) if page.boxes else 0


def unwrap_noscript(page: DenoisingPage) -> int:
    """A ``<noscript>`` holding more text than the rest of the page, unwrapped (its content kept).

    That is the server-rendered fallback of a script-built page (Discourse forums, for one)
    read without running its scripts; any other ``<noscript>`` goes with the tags."""
    return unwrap_script_fallback(page.body)
