"""Page kinds: the feed's page_kind is the most probable kind of its page type."""

from __future__ import annotations

import pytest

from models.pagetype.kinds import KindLabelsError, check_kind_labels, kind_of_type, page_kinds

PROBABILITIES = {
    "article": 0.1,
    "listing": 0.05,
    "collection": 0.3,
    "forum": 0.25,
    "product": 0.15,
    "documentation": 0.1,
    "service": 0.05,
}


def test_the_seven_kinds_are_wcxbs():
    assert page_kinds() == (
        "article",
        "listing",
        "collection",
        "forum",
        "product",
        "documentation",
        "service",
    )


@pytest.mark.parametrize(
    ("page_type", "expected"),
    [
        (None, ("collection", 0.3)),  # no type yet: the most probable kind
        ("list", ("collection", 0.3)),
        ("article", ("forum", 0.25)),  # the most probable kind of the type, not overall
        ("other", ("collection", 0.3)),  # a type neither article nor list constrains nothing
    ],
)
def test_the_kind_follows_the_page_type(page_type, expected):
    assert kind_of_type(PROBABILITIES, page_type) == expected


def test_kind_labels_must_be_kinds_and_cover_both_page_types():
    check_kind_labels(page_kinds(), "k.pt")
    check_kind_labels(["forum", "listing"], "k.pt")  # one kind of each type is enough
    with pytest.raises(KindLabelsError, match=r"k\.pt: labels \['list'\] are not page kinds"):
        check_kind_labels(["article", "list"], "k.pt")
    with pytest.raises(KindLabelsError, match=r"k\.pt: no kind of page type \['list'\]"):
        check_kind_labels(["article", "forum"], "k.pt")


def test_a_page_type_that_is_a_kind_is_the_kind():
    # a page-type model with the seven kinds as its labels
    assert kind_of_type(PROBABILITIES, "product") == ("product", 0.15)
