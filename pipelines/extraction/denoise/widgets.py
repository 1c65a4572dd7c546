"""Forms and data: short forms (a sign-up box's frame with them on articles) and
elements whose whole text is a script's data (a JSON object or array, a UUID)."""

from __future__ import annotations

import json
from collections import Counter

from pyquery import PyQuery

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import shown_length
from pipelines.extraction.denoise.vocabulary import LITERAL_TAGS, SIGN_UP_WORDS, UUID
from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.lengths import text_length


def page_forms(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """``body``'s forms, less the posts that ``min_controlless_forms`` tells."""
    forms = list(body.iter("form"))
    bare = [form for form in forms if not _has_controls(form) and form.find(".//p") is not None]
    classes = Counter(form.get("class", "") for form in bare)
    posts = {form for form in bare if classes[form.get("class", "")] >= options.min_controlless_forms}
    return [form for form in forms if form not in posts]


def _has_controls(form: HtmlElement) -> bool:
    return any(
        control.tag != "input" or (control.get("type") or "").strip().lower() != "hidden"
        for control in form.iter("input", "textarea", "select", "button")
    )


def sign_up_frame(form: HtmlElement, body: HtmlElement, limit: float, max_length: int) -> HtmlElement:
    """What goes with a short ``form``: its frame (the outermost ancestor below ``body`` of
    at most ``sign_up_frame_max_length`` words, within ``limit``) when the frame's text
    names a sign-up, else the form alone."""
    frame = form
    for ancestor in form.iterancestors():
        if ancestor is body or text_length(ancestor.text_content()) > max_length:
            break
        frame = ancestor
    if frame is form or shown_length(frame) > limit or not SIGN_UP_WORDS.search(frame.text_content()):
        return form
    return frame


def data_blocks(body: HtmlElement, min_chars: int) -> list[HtmlElement]:
    """Elements outside code whose text, all of it, is a UUID or a JSON object or array of
    at least ``min_data_chars`` characters."""
    return [
        element
        for element in body.iter()
        if is_element(element)
        and not len(element)
        and _is_data((element.text or "").strip(), min_chars)
        and not any(node.tag in LITERAL_TAGS for node in (element, *element.iterancestors()))
    ]


def _is_data(text: str, min_chars: int) -> bool:
    if UUID.fullmatch(text):
        return True
    if len(text) < min_chars or text[0] + text[-1] not in ("{}", "[]"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def remove_tags(page: DenoisingPage) -> int:
    """Tags that never hold content (the table's: scripts, navigation, asides, inputs, popovers)."""
    return page.remove(page.small(list(PyQuery(page.root)(",".join(page.table.tags)))))


def remove_data(page: DenoisingPage) -> int:
    """Elements whose whole text is a script's data: a long JSON object or array, or a UUID.

    Outside code, JSON of at least ``min_data_chars`` characters (a script's state parked in
    a hidden element) or a UUID (eBay hides one in a span between the visible letters of
    "Sponsored")."""
    return page.remove(data_blocks(page.body, page.options.min_data_chars))


def remove_forms(page: DenoisingPage) -> int:
    """Short forms (search, login, contact, newsletter), but not a page's posts.

    At most ``form_max_length`` words. Not the forms of one class that show no control and
    hold a paragraph, when a page has ``min_controlless_forms`` of them: old Reddit's
    comments, 0.39 -> 0.87, no other WCXB dev training or validation page changed."""
    limit = page.options.form_max_length
    return page.remove([form for form in page_forms(page.body, page.options) if _short(form, limit)])


def remove_sign_up_forms(page: DenoisingPage) -> int:
    """Short forms as on lists, each with its frame when the frame invites the reader to sign up.

    The frame (:func:`sign_up_frame`) is a newsletter box's heading, pitch and consent line."""
    body, limit, options = page.body, page.limit, page.options
    return page.remove(
        [
            sign_up_frame(form, body, limit, options.sign_up_frame_max_length)
            for form in page_forms(body, options)
            if _short(form, options.form_max_length)
        ]
    )


def _short(form: HtmlElement, max_length: int) -> bool:
    return text_length(form.text_content()) <= max_length
