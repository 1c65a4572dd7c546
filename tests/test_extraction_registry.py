"""The extractor registry."""

import pytest

import pipelines.extraction as extraction
from pipelines.extraction import Extraction, Extractor, Page, available_extractors, get_extractor, register


class Echo:
    name = "test-echo"

    def extract(self, page: Page) -> Extraction | None:
        return Extraction(self.name, "article", None, page.html, page.html)


def test_builtin_extractors_are_registered():
    assert {"iawce", "iawce-paper"} <= set(available_extractors())
    assert available_extractors() == sorted(available_extractors())
    for name in ("iawce", "iawce-paper"):
        extractor = get_extractor(name)
        assert extractor.name == name
        assert isinstance(extractor, Extractor)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown extractor 'nope'; known extractors: .*iawce, iawce-paper"):
        get_extractor("nope")


def test_register_returns_the_extractor_and_refuses_a_taken_name():
    echo = Echo()
    assert register(echo) is echo
    assert register(echo) is echo  # the same object again is fine
    assert get_extractor("test-echo").extract(Page("<p>x</p>")).text == "<p>x</p>"
    with pytest.raises(ValueError, match="already registered"):
        register(Echo())


def test_register_checks_the_contract():
    class Nameless:
        def extract(self, page):
            return None

    class NoExtract:
        name = "no-extract"

    with pytest.raises(ValueError, match="non-empty string `name`"):
        register(Nameless())
    with pytest.raises(ValueError, match="has no extract"):
        register(NoExtract())


def test_page_type_is_checked():
    with pytest.raises(ValueError, match="page_type must be one of article, list or None"):
        Page("<p>x</p>", page_type="gallery")
    assert extraction.PAGE_TYPES == ("article", "list")
