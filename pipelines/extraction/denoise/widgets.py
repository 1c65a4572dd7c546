"""Forms and data: short forms (a sign-up box's frame with them on articles) and
elements whose whole text is a script's data (a JSON object or array, a UUID)."""

from __future__ import annotations

import json
from collections import Counter

from pyquery import PyQuery

from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import shown_length
from pipelines.extraction.denoise.vocabulary import LITERAL_TAGS, SIGN_UP_WORDS, UUID
from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.lengths import text_length

#: A <form> with at most this much text (words; CJK characters) is a search, login,
#: contact or newsletter form and goes; a longer one wraps content (forum software wraps
#: whole threads in a form).
FORM_MAX_LENGTH = 100

#: A short form goes with its frame, the outermost ancestor of at most this many words,
#: when the frame invites the reader to sign up (``SIGN_UP_WORDS``): the newsletter box's
#: heading, pitch and consent line ("Be the first to know!", "By signing up, you agree
#: ..."). iawce on WCXB dev, word F1, training / validation domains: 0.8903 / 0.8695 →
#: 0.8904 / 0.8702 (9 pages better, 3 worse whose gold keeps a sign-up or log-in box;
#: travelnoire.com 0.83 → 1.00, mashable.com 0.82 → 0.86); at 40 words 0.8904 / 0.8702
#: without mashable.com; without the words, Steam's buy boxes went too. On list pages one
#: page changed, for the worse (4dayweek.io 0.36 → 0.34), so only articles do this.
SIGN_UP_FRAME_MAX_LENGTH = 60

#: An element whose whole text is a JSON object or array this long (characters) is a
#: script's data, not content (the data step): Avada's hidden ``DynamicProductValue`` spans,
#: Amazon's ``aok-hidden`` grid state. Shorter JSON is left alone, and JSON in code always.
#: With the UUIDs too (eBay's scrambled "Sponsored" labels were the longest text of its item
#: pages' "Similar items" carousels): iawce on WCXB dev, training / validation domains,
#: 0.8873 / 0.8564 → 0.8875 / 0.8628 (tribelifting.com 0.81 → 1.00; three eBay item pages
#: 0.00-0.04 → 0.33-0.48), no page worse.
MIN_DATA_CHARS = 200

#: At least this many forms of one class that show no control and hold a paragraph are
#: the page's posts: old Reddit wraps each comment in a ``usertext`` form.
MIN_CONTROLLESS_FORMS = 5


def page_forms(body: HtmlElement) -> list[HtmlElement]:
    """``body``'s forms, less the posts that ``MIN_CONTROLLESS_FORMS`` tells."""
    forms = list(body.iter("form"))
    bare = [form for form in forms if not _has_controls(form) and form.find(".//p") is not None]
    classes = Counter(form.get("class", "") for form in bare)
    posts = {form for form in bare if classes[form.get("class", "")] >= MIN_CONTROLLESS_FORMS}
    return [form for form in forms if form not in posts]


def _has_controls(form: HtmlElement) -> bool:
    return any(
        control.tag != "input" or (control.get("type") or "").strip().lower() != "hidden"
        for control in form.iter("input", "textarea", "select", "button")
    )


def sign_up_frame(form: HtmlElement, body: HtmlElement, limit: float) -> HtmlElement:
    """What goes with a short ``form``: its frame (the outermost ancestor below ``body`` of
    at most ``SIGN_UP_FRAME_MAX_LENGTH`` words, within ``limit``) when the frame's text
    names a sign-up, else the form alone."""
    frame = form
    for ancestor in form.iterancestors():
        if ancestor is body or text_length(ancestor.text_content()) > SIGN_UP_FRAME_MAX_LENGTH:
            break
        frame = ancestor
    if frame is form or shown_length(frame) > limit or not SIGN_UP_WORDS.search(frame.text_content()):
        return form
    return frame


def data_blocks(body: HtmlElement) -> list[HtmlElement]:
    """Elements outside code whose text, all of it, is a UUID or a JSON object or array of
    at least ``MIN_DATA_CHARS`` characters."""
    return [
        element
        for element in body.iter()
        if is_element(element)
        and not len(element)
        and _is_data((element.text or "").strip())
        and not any(node.tag in LITERAL_TAGS for node in (element, *element.iterancestors()))
    ]


def _is_data(text: str) -> bool:
    if UUID.fullmatch(text):
        return True
    if len(text) < MIN_DATA_CHARS or text[0] + text[-1] not in ("{}", "[]"):
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

    Outside code, JSON of at least ``MIN_DATA_CHARS`` characters (a script's state parked in
    a hidden element) or a UUID (eBay hides one in a span between the visible letters of
    "Sponsored")."""
    return page.remove(data_blocks(page.body))


def remove_forms(page: DenoisingPage) -> int:
    """Short forms (search, login, contact, newsletter), but not a page's posts.

    At most ``FORM_MAX_LENGTH`` words. Not the forms of one class that show no control and
    hold a paragraph, when a page has ``MIN_CONTROLLESS_FORMS`` of them: old Reddit's
    comments, 0.39 -> 0.87, no other WCXB dev training or validation page changed."""
    return page.remove([form for form in page_forms(page.body) if _short(form)])


def remove_sign_up_forms(page: DenoisingPage) -> int:
    """Short forms as on lists, each with its frame when the frame invites the reader to sign up.

    The frame (:func:`sign_up_frame`) is a newsletter box's heading, pitch and consent line."""
    body, limit = page.body, page.limit
    return page.remove([sign_up_frame(form, body, limit) for form in page_forms(body) if _short(form)])


def _short(form: HtmlElement) -> bool:
    return text_length(form.text_content()) <= FORM_MAX_LENGTH
