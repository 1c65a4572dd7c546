"""Lines whose whole text is a label: photo credits, and controls' labels that no
``<button>`` marks ("Read more", "Add to cart")."""

from __future__ import annotations

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import outermost_of, text_holders
from pipelines.extraction.denoise.vocabulary import CONTROL_LABELS, PHOTO_CREDIT
from pipelines.extraction.dom import HEADING_TAGS, HtmlElement
from pipelines.extraction.lengths import normalize_space, text_length


def photo_credits(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The outermost elements whose whole text is a photo credit. Only the
    elements around a text node that starts like one are read (a regular expression on
    every small element's whole text costs twice as much)."""
    found = []
    for element in text_holders(body, PHOTO_CREDIT.match):
        credit = None
        while element is not None and element is not body and element.tag not in HEADING_TAGS:
            text = normalize_space(element.text_content())
            if text_length(text) > options.photo_credit_max_length:
                break
            if PHOTO_CREDIT.match(text):
                credit = element
            element = element.getparent()
        if credit is not None:
            found.append(credit)
    return outermost_of(found)


def control_labels(body: HtmlElement) -> list[HtmlElement]:
    """The outermost elements whose whole text is a control's label; not a
    heading, nor a link that running text follows. Only the elements around a text node
    that is one are read, as for photo credits."""
    found = []
    for element in text_holders(body, is_control_label):
        if element is body or not is_control_label(element.text_content()):
            continue
        for ancestor in element.iterancestors():
            if ancestor is body or not is_control_label(ancestor.text_content()):
                break
            element = ancestor
        heading = element.tag in HEADING_TAGS or any(a.tag in HEADING_TAGS for a in element.iterancestors())
        if not heading and not (element.tail or "").strip():
            found.append(element)
    return outermost_of(found)


def is_control_label(text: str) -> bool:
    """Whether ``text``, spaces aside, is a control's label (``CONTROL_LABELS``)."""
    return bool(CONTROL_LABELS.fullmatch(normalize_space(text)))


def remove_photo_credits(page: DenoisingPage) -> int:
    """Elements whose whole text is a short photo credit ("Photo: Jane Doe", "Credit: Amazon").

    Not a heading (``PHOTO_CREDIT``, at most ``photo_credit_max_length`` words: "Image
    credit: Getty Images", "Фото: ТАСС"). A caption with its credit inside stays."""
    return page.remove(photo_credits(page.body, page.options))


def remove_control_labels(page: DenoisingPage) -> int:
    """Elements whose whole text is a control's label that no ``<button>`` marks ("Read more").

    ``CONTROL_LABELS``: "Show caption", "Add to cart", "Weiterlesen", "続きを読む"; not a
    heading nor a link that running text follows. On list pages they stay until the list
    ranking has read them (a card's "More info" is part of the repeated structure it
    reads); the list extractor drops them from the items it chose (:func:`is_control_label`)."""
    return page.remove(control_labels(page.body))
