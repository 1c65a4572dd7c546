"""The extractor registry: classes built from settings, options, and the contract."""

from dataclasses import dataclass
from typing import ClassVar

import pytest
from scrapy.settings import Settings

import pipelines.extraction as extraction
from pipelines.extraction import (
    Extraction,
    Extractor,
    ExtractorUnavailable,
    Page,
    available_extractors,
    build_extractor,
    extractor_class,
    register,
)
from pipelines.extraction.options import IawceOptions
from tests.support.project_settings import pagesight_settings


class Echo:
    name: ClassVar[str] = "test-echo"

    @dataclass(frozen=True)
    class Options:
        upper: bool = False

    def __init__(self, options: Options):
        self.options = options

    @classmethod
    def from_settings(cls, settings=None):
        return cls(cls.Options())

    def extract(self, page: Page) -> Extraction | None:
        text = page.html.upper() if self.options.upper else page.html
        return Extraction(self.name, "article", None, text, text)


def test_builtin_extractors_are_registered():
    assert {"iawce", "iawce-paper", "trafilatura", "readability", "justext"} <= set(available_extractors())
    assert available_extractors() == sorted(available_extractors())
    for name in ("iawce", "iawce-paper", "trafilatura", "readability", "justext"):
        extractor = build_extractor(name)
        assert extractor.name == name
        assert isinstance(extractor, Extractor)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(
        ExtractorUnavailable,
        match=r"unknown extractor 'nope'; known extractors: .*iawce, iawce-other-type, iawce-paper",
    ):
        build_extractor("nope")


def test_register_returns_the_class_and_refuses_a_taken_name():
    assert register(Echo) is Echo
    assert register(Echo) is Echo  # the same class again is fine
    assert extractor_class("test-echo") is Echo
    assert build_extractor("test-echo").extract(Page("<p>x</p>")).text == "<p>x</p>"

    class Other(Echo):
        pass

    with pytest.raises(ValueError, match="already registered"):
        register(Other)


def test_register_checks_the_contract():
    class Nameless:
        Options = Echo.Options

        @classmethod
        def from_settings(cls, settings=None):
            return cls()

        def extract(self, page):
            return None

    class NoOptions:
        name = "no-options"

    class NoExtract:
        name = "no-extract"
        Options = Echo.Options
        from_settings = Nameless.from_settings

    with pytest.raises(ValueError, match="non-empty string `name`"):
        register(Nameless)
    with pytest.raises(ValueError, match="needs an `Options` dataclass"):
        register(NoOptions)
    with pytest.raises(ValueError, match="has no extract"):
        register(NoExtract)


def test_settings_override_an_extractors_options():
    settings = Settings(pagesight_settings(PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"article_share": 0.5}}))
    iawce = build_extractor("iawce", settings)
    assert iawce.options == IawceOptions(article_share=0.5)
    assert build_extractor("iawce-paper", settings).options == IawceOptions()
    bad = Settings(pagesight_settings(PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"nope": 1}}))
    with pytest.raises(ExtractorUnavailable, match=r"PAGESIGHT_EXTRACTOR_OPTIONS\['iawce'\]: no option nope"):
        build_extractor("iawce", bad)


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [("boilernet", "drop_forms", True), ("element-classifier", "checkpoint", None)],
)
def test_every_learned_extractor_reads_its_options_from_settings(name, field, value):
    if value is None:  # the shipped checkpoint, named explicitly
        value = str(build_extractor(name, Settings(pagesight_settings())).options.checkpoint)
    overrides = {name: {field: value}}
    extractor = build_extractor(name, Settings(pagesight_settings(PAGESIGHT_EXTRACTOR_OPTIONS=overrides)))
    assert getattr(extractor.options, field) == value
    bad = Settings(pagesight_settings(PAGESIGHT_EXTRACTOR_OPTIONS={name: {"nope": 1}}))
    with pytest.raises(
        ExtractorUnavailable, match=rf"PAGESIGHT_EXTRACTOR_OPTIONS\['{name}'\]: no option nope"
    ):
        build_extractor(name, bad)


def test_options_change_what_iawce_finds():
    html = (
        "<html><body><div id='main'><p>" + "word " * 60 + "</p></div>"
        "<div><p>" + "aside " * 40 + "</p></div></body></html>"
    )
    page = Page(html, page_type="article")
    default = build_extractor("iawce").extract(page)
    strict = extractor_class("iawce")(IawceOptions(article_share=0.55)).extract(page)
    assert "aside" in default.text
    assert "aside" not in strict.text


def test_page_type_is_checked():
    with pytest.raises(ValueError, match="page_type must be one of article, list or None"):
        Page("<p>x</p>", page_type="gallery")
    assert extraction.PAGE_TYPES == ("article", "list")


def test_screenshot_is_loaded_and_decoded_only_when_asked(tmp_path):
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (20, 30), "white").save(buffer, format="PNG")
    calls = []
    page = Page("<p>x</p>", screenshot=lambda: calls.append(1) or buffer.getvalue())
    assert calls == []
    assert page.screenshot_image.size == (20, 30)
    assert page.screenshot_png == buffer.getvalue() and calls == [1]
    assert Page("<p>x</p>").screenshot_image is None


def test_peers_extract_text_and_keep_the_given_page_type():
    html = (
        "<html><head><title>Harbor bridge reopens</title></head><body><nav><a href='/'>Home</a></nav>"
        "<article><h1>Harbor bridge reopens</h1>"
        + "".join(
            f"<p>The harbor bridge reopened on Monday after a repair programme, paragraph {i}, and "
            "all of the people who had been waiting for it at the end of the road were glad that "
            "they could cross it again on their way to work, as they had done for many years.</p>"
            for i in range(6)
        )
        + "</article></body></html>"
    )
    for name in ("trafilatura", "readability", "justext"):
        found = build_extractor(name).extract(Page(html, "https://a.example/bridge", "list"))
        assert found is not None and found.extractor == name, name
        assert "paragraph 3" in found.text and found.page_type == "list" and found.items == []
    assert (
        build_extractor("trafilatura").extract(Page(html, "https://a.example/b")).title
        == "Harbor bridge reopens"
    )


@pytest.mark.parametrize("name", ["trafilatura", "readability"])
def test_a_peer_without_its_metadata_finds_the_same_text(name):
    """What the ensemble asks of its peers: the text alone, whose metadata it would drop."""
    html = (
        "<html><head><title>Harbor bridge reopens | Daily</title></head><body><article>"
        "<h1>Harbor bridge reopens</h1><p>By <a href='/staff/ann'>Ann Lee</a>, 3 March 2024</p>"
        + "".join(
            f"<p>The harbor bridge reopened on Monday, paragraph {i}, and <a href='/roads'>the roads</a> "
            "to it were busy again with the people who had waited for it all winter long.</p>"
            for i in range(6)
        )
        + "</article></body></html>"
    )
    page = Page(html, "https://a.example/bridge")
    full = build_extractor(name)
    lean = build_extractor(name, Settings({"PAGESIGHT_EXTRACTOR_OPTIONS": {name: {"with_metadata": False}}}))
    assert full.options.with_metadata and not lean.options.with_metadata
    with_metadata, text_only = full.extract(page), lean.extract(page)
    assert with_metadata is not None and text_only is not None
    assert text_only.text == with_metadata.text and "paragraph 5" in text_only.text
    assert with_metadata.title and text_only.title is None


#: A story's paragraph (numbered in), its headline, menu and footer, per language.
#: Chinese: jusText has no stoplist; Korean: particles join the word before them, so its
#: Korean stoplist finds almost no stopword. Both paragraphs are under jusText's
#: 200-character threshold (90 and 135 characters), long only in their scripts.
STORIES = {
    "zh": (
        "第{i}段：市政府今天宣布，经过三个月的维修，港口大桥将于下周一重新开放，"
        "沿线居民和每天通勤的上班族都对此表示欢迎，交通部门也将增加公交班次以方便出行，"
        "大桥两侧的商店也准备了庆祝活动。",
        "港口大桥重新开放",
        ("首页", "新闻", "体育"),
        "版权所有 © 2025 本地新闻网",
    ),
    "ko": (
        "{i}번째 문단: 시청은 오늘 석 달 동안의 보수 공사를 마친 항구 다리를 다음 주 월요일에 "
        "다시 개통한다고 발표했으며, 다리 근처에 사는 주민들과 매일 출퇴근하는 직장인들은 "
        "이 소식을 크게 반겼고, 교통 당국은 버스 운행 횟수를 늘리기로 했다.",
        "항구 다리 재개통",
        ("홈", "뉴스", "스포츠"),
        "저작권 © 2025 지역 뉴스",
    ),
}


@pytest.mark.parametrize("language", sorted(STORIES))
def test_justext_keeps_a_story_in_a_script_its_stoplists_miss_and_drops_its_menu(language):
    """With stoplists alone jusText calls every paragraph of these pages boilerplate; its
    language-independent mode keeps the story's paragraphs."""
    paragraph, headline, menu, footer = STORIES[language]
    story = [paragraph.format(i=i) for i in range(1, 5)]
    html = (
        f"<html><head><title>{headline}</title></head><body><nav>"
        + " ".join(f"<a href='/{i}'>{item}</a>" for i, item in enumerate(menu))
        + f"</nav><article><h1>{headline}</h1>"
        + "".join(f"<p>{p}</p>" for p in story)
        + f"</article><footer>{footer}</footer></body></html>"
    )
    found = build_extractor("justext").extract(Page(html, "https://a.example/bridge"))
    assert found is not None
    assert all(p in found.text for p in story)
    assert menu[-1] not in found.text and footer not in found.text


@pytest.mark.parametrize("name", ["trafilatura", "justext"])
def test_a_peer_built_holds_the_one_merged_jus_text_stoplist_trafilatura_falls_back_on(name, monkeypatch):
    """Built with the extractor, not midway through a crawl, and trafilatura's fallback
    to jusText uses ours instead of building its own copy."""
    import justext.core
    import trafilatura.external

    from pipelines.extraction.peers import all_stoplists

    monkeypatch.setattr(trafilatura.external, "JT_STOPLIST", None)
    justext.core.define_stoplist.cache_clear()
    all_stoplists.cache_clear()
    build_extractor(name)
    assert trafilatura.external.JT_STOPLIST is all_stoplists()
    assert justext.core.define_stoplist.cache_info().currsize == 1


def test_trafilatura_built_has_dateparser_compile_every_locale_it_could_try_midway(monkeypatch):
    """Its regexes, which dateparser keeps per locale once compiled: at build time, not at
    the first date string that sends it through most locales."""
    from dateparser.languages.dictionary import Dictionary
    from dateparser.languages.loader import default_loader

    monkeypatch.setattr(Dictionary, "_split_regex_cache", {})
    build_extractor("trafilatura")
    (compiled,) = Dictionary._split_regex_cache.values()
    assert len(compiled) == len(list(default_loader.get_locale_map()))
