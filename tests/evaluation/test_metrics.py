"""Metric unit tests with hand-computed values."""

import pytest
from simhash import Simhash

from models.pagetype.labels import load_label_mapping
from pipelines.evaluation.calibration import unrelated_distances
from pipelines.evaluation.fingerprint import (
    hamming_distance,
    simhash_features,
    simhash_fingerprint,
)
from pipelines.evaluation.gold import GoldPage
from pipelines.evaluation.metrics import (
    PRF,
    ShingleCounts,
    SnippetCounts,
    item_prf,
    paper_precision_recall,
    pooled_shingle_prf,
    pooled_snippet_prf,
    shingle_counts,
    snippet_counts,
    snippet_scores,
    word_prf,
)
from pipelines.evaluation.scoring import ScoringConfig, score_page, text_fingerprint
from pipelines.evaluation.text import normalize_text, shingles, tokens
from pipelines.urls import url_key
from tests.support.project_settings import pagesight_settings, scoring_config

ARTICLE = (
    "The harbor bridge reopened to traffic on Monday morning after a two year repair "
    "programme that replaced the deck, the cables and most of the lighting.\n\n"
    "City engineers said the new deck should last for at least fifty years."
)


def test_normalize_text_keeps_paragraphs_and_folds_width_and_case():
    assert normalize_text("  Ｈｅｌｌｏ\u3000 World \r\n\n\n\nSecond   line ") == (
        "hello world\n\nsecond line"
    )
    assert normalize_text(None) == ""


def test_tokens_split_cjk_characters_but_not_words():
    assert tokens("Hello, wörld! Привет мир") == ["hello", "wörld", "привет", "мир"]
    assert tokens("城市图书馆 opens, カタカナ") == ["城", "市", "图", "书", "馆", "opens", *"カタカナ"]


def test_shingles_of_short_and_long_token_lists():
    assert shingles(["a", "b"]) == [("a", "b")]
    assert shingles([]) == []
    assert shingles(list("abcde")) == [tuple("abcd"), tuple("bcde")]


@pytest.mark.parametrize(
    "text",
    [
        ARTICLE,
        "",
        "abc",
        "Hello World",
        "城市图书馆从下周一开始延长开放时间，每天晚上开放到十二点。",
        "港の新しい水族館が土曜日に開館しました",
        "Сегодня в городе открылся новый мост через реку.",
        "the cat sat on the mat " * 40,  # 4-grams repeated 40 times: package-safe
    ],
)
def test_fingerprint_equals_simhash_package(text):
    assert simhash_fingerprint(text) == Simhash(text).value


def test_long_repetitive_text_has_the_package_fingerprint_without_overflow():
    text = "abcd " * 1000 + ARTICLE  # the 4-gram "abcd" occurs 1000 times
    features = simhash_features(text)
    assert features["abcd"] == 1000
    # The package overflows with integer weights > 255 under NumPy 2 but is exact with
    # float weights, which take its unbatched float path.
    reference = Simhash({name: float(count) for name, count in features.items()}).value
    assert simhash_fingerprint(text) == reference
    assert hamming_distance(text_fingerprint(text), text_fingerprint(text.upper())) == 0


def test_hamming_distance_counts_differing_bits():
    assert hamming_distance(0, 0) == 0
    assert hamming_distance(0b1011, 0b0001) == 2
    assert hamming_distance(0, (1 << 64) - 1) == 64


def test_identical_texts_have_distance_zero_and_f1_one():
    assert hamming_distance(text_fingerprint(ARTICLE), text_fingerprint(ARTICLE)) == 0
    assert word_prf(tokens(ARTICLE), tokens(ARTICLE)) == PRF(1.0, 1.0, 1.0)
    assert shingle_counts(tokens(ARTICLE), tokens(ARTICLE)).prf() == PRF(1.0, 1.0, 1.0)


def test_disjoint_texts_have_f1_zero():
    assert word_prf(tokens("alpha beta gamma"), tokens("delta epsilon")).f1 == 0.0
    disjoint = shingle_counts(tokens("alpha beta gamma delta"), tokens("one two three four"))
    assert disjoint.prf().f1 == 0.0


def test_word_prf_is_bag_of_words():
    # predicted {a, b, c, d}, gold {a, b, e}: 2 shared → P 2/4, R 2/3, F1 4/7
    result = word_prf(tokens("A b, c d."), tokens("a B e"))
    assert result.precision == pytest.approx(0.5)
    assert result.recall == pytest.approx(2 / 3)
    assert result.f1 == pytest.approx(4 / 7)
    # repeated words count as often as they occur on both sides: min(3, 1) = 1 shared
    assert word_prf(["spam"] * 3, ["spam", "eggs"]).precision == pytest.approx(1 / 3)


def test_word_prf_empty_sides():
    assert word_prf([], []) == PRF(1.0, 1.0, 1.0)
    assert word_prf([], ["gold", "text"]) == PRF(0.0, 0.0, 0.0)
    assert word_prf(["extracted", "text"], []) == PRF(0.0, 0.0, 0.0)


def test_shingle_counts_are_normalized_per_page():
    # shingles (one two three four), (two three four five) vs (… four six): 1 tp, 1 fp, 1 fn
    counts = shingle_counts(tokens("one two three four six"), tokens("one two three four five"))
    assert (counts.tp, counts.fp, counts.fn) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert counts.prf().f1 == pytest.approx(0.5)
    # A long perfect page weighs as much as the short half-right one: pooled (4/3, 1/3, 1/3)
    long_page = shingle_counts(tokens(ARTICLE * 5), tokens(ARTICLE * 5))
    pooled = pooled_shingle_prf([counts, long_page])
    assert pooled.precision == pytest.approx(0.8)
    assert pooled.recall == pytest.approx(0.8)
    assert pooled_shingle_prf([ShingleCounts(0.0, 0.0, 1.0)]) == PRF(0.0, 0.0, 0.0)


def test_paper_precision_and_recall_on_a_small_table():
    # C1 = 6 pages; C2 = distance < 30: 0, 5, 12, 29 → 4; C3 = distance < 10: 0, 5 → 2
    precision, recall = paper_precision_recall([0, 5, 12, 29, 30, 64], 30, 10)
    assert precision == pytest.approx(4 / 6)
    assert recall == pytest.approx(2 / 4)
    assert paper_precision_recall([40, 64], 30, 10) == (0.0, None)
    assert paper_precision_recall([], 30, 10) == (None, None)


def test_snippets_match_token_sequences():
    text = tokens("Rinse the lentils, then simmer them with onion — carrot and cumin.\n\nSign in")
    recall, precision = snippet_scores(
        text,
        ["simmer them with onion, carrot and cumin", "serve with bread"],
        ["Sign in", "Popular recipes", "   "],
    )
    assert recall == pytest.approx(1 / 2)
    assert precision == pytest.approx(1 / 2)  # "Sign in" leaked, "Popular recipes" kept out
    assert snippet_scores(text, [], []) == (None, None)
    assert snippet_scores([], ["simmer"], ["Sign in"]) == (0.0, 0.0)
    # a snippet must match whole tokens: "lent" is not in "lentils"
    assert snippet_scores(text, ["lent"], []) == (0.0, None)


def test_pooled_snippets_are_trafilaturas_definition():
    """Pooled over pages: P = body found / (body found + boilerplate found), R = body
    found / body snippets; a page with many snippets weighs more than in our means."""
    text = tokens("Rinse the lentils, then simmer them with onion. Sign in")
    first = snippet_counts(text, ["simmer them with onion", "serve with bread"], ["Sign in", "Popular"])
    assert first == SnippetCounts(with_found=1, with_total=2, without_found=1, without_total=2)
    second = snippet_counts(tokens("a b c d"), ["a b", "c d", "e", "f"], ["g"])
    assert second == SnippetCounts(2, 4, 0, 1)
    pooled = pooled_snippet_prf([first, second])
    assert pooled.precision == pytest.approx(3 / 4)
    assert pooled.recall == pytest.approx(3 / 6)
    assert pooled.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)
    assert snippet_counts([], ["a"], ["b"]) == SnippetCounts(0, 1, 0, 1)


def test_items_match_by_url_then_by_title():
    gold = [
        {"title": "Bridge reopens", "url": "https://a.example/bridge"},
        {"title": "River festival draws record crowds", "url": "https://a.example/festival"},
        {"title": "Library hours", "url": "https://a.example/library"},
    ]
    predicted = [
        {"title": "Completely different label", "url": "http://A.example/bridge/"},
        {"title": "River festival draws record crowds", "url": None},
        {"title": "Weather", "url": "https://a.example/weather"},
    ]
    result = item_prf(predicted, gold, min_text_f1=0.8)
    assert result.precision == pytest.approx(2 / 3)
    assert result.recall == pytest.approx(2 / 3)
    # "River festival" alone shares 2 of 5 title words with the gold: F1 4/7 < 0.8
    assert item_prf([{"title": "River festival"}], gold[1:2], min_text_f1=0.8).recall == 0.0
    assert item_prf([{"title": "River festival"}], gold[1:2], min_text_f1=0.5).recall == 1.0


def test_url_key_rules():
    assert url_key("HTTP://Example.COM:80/a/?b=2&a=1#top") == "example.com/a?a=1&b=2"
    assert url_key("https://example.com:443/a?a=1&b=2") == url_key("http://example.com/a/?b=2&a=1")
    assert url_key("https://example.com") == url_key("https://example.com/") == "example.com/"
    assert url_key("https://example.com/%7Euser/") == "example.com/~user"
    assert url_key("http://example.com:8080/") == "example.com:8080/"
    assert url_key("https://www.example.com/") != url_key("https://example.com/")
    assert url_key("https://example.com/a?q=") != url_key("https://example.com/a")
    assert url_key("https://bücher.example/") == "xn--bcher-kva.example/"


def _gold(**overrides):
    fields = {"url": "https://a.example/x", "text": ARTICLE, "source": "test", "site": "a"}
    return GoldPage(**{**fields, **overrides})


def test_score_page_of_a_perfect_extraction():
    record = {"url": "https://a.example/x", "status": "ok", "text": ARTICLE, "page_type": "article"}
    scores = score_page(record, _gold(page_type="article"), scoring_config())
    assert scores["hamming_distance"] == 0 and scores["correct"] and scores["complete"]
    assert scores["word_f1"] == 1.0 and scores["shingle_f1"] == 1.0
    assert scores["type_correct"] is True and scores["failure"] is None


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (None, "missing from feed"),
        ({"url": "u", "status": "error", "error": "TimeoutError"}, "error: TimeoutError"),
        ({"url": "u", "status": "skipped", "error": "not HTML"}, "skipped: not HTML"),
    ],
)
def test_failed_pages_score_zero(record, reason):
    scores = score_page(record, _gold(page_type="list", with_snippets=["bridge"]), scoring_config())
    assert scores["failure"] == reason
    assert scores["hamming_distance"] == 64 and not scores["correct"]
    assert scores["word_f1"] == scores["shingle_f1"] == scores["snippet_recall"] == 0.0
    assert scores["type_correct"] is False and scores["predicted_type"] is None


def test_empty_extraction_fails_but_keeps_its_page_type():
    record = {"url": "u", "status": "ok", "text": "  ", "page_type": "article"}
    scores = score_page(record, _gold(page_type="article"), scoring_config())
    assert scores["failure"] == "no text extracted"
    assert scores["hamming_distance"] == 64 and scores["word_f1"] == 0.0
    assert scores["type_correct"] is True


def test_gold_without_text_has_no_text_metrics():
    record = {"url": "u", "status": "ok", "text": "Some navigation", "page_type": "article"}
    scores = score_page(record, _gold(text=""), scoring_config())
    assert scores["gold_has_text"] is False
    assert scores["hamming_distance"] is None and scores["word_f1"] is None


def test_normalization_is_applied_to_both_sides():
    gold = "城市图书馆从下周一开始延长开放时间，每天晚上开放到十二点。"
    extracted = "城市图书馆从下周一开始延长开放时间,  每天晚上开放到十二点.\n"
    scores = score_page({"url": "u", "text": extracted}, _gold(text=gold), scoring_config())
    assert scores["hamming_distance"] == 0 and scores["word_f1"] == 1.0


def test_page_types_map_through_the_label_mapping():
    config = scoring_config()
    assert [config.label(t) for t in ("listing", "Collection", "forum", "list", None)] == [
        "list",
        "list",
        "article",
        "list",
        None,
    ]
    record = {"url": "u", "text": ARTICLE, "page_type": "list"}
    assert score_page(record, _gold(page_type="collection"), config)["type_correct"] is True
    assert score_page(record, _gold(page_type="product"), config)["type_correct"] is False
    custom = scoring_config(
        label_mapping=load_label_mapping({"labels": ["article", "list"], "map": {"product": "list"}})
    )
    assert score_page(record, _gold(page_type="product"), custom)["type_correct"] is True
    assert custom.label("gallery") is None  # not covered: not type-scored


def test_text_only_systems_have_no_type_or_item_metrics():
    gold = _gold(page_type="listing", items=[{"title": "Bridge", "url": "https://a.example/b"}])
    scores = score_page({"url": "u", "text": ARTICLE}, gold, scoring_config(), text_only=True)
    assert scores["type_correct"] is None and scores["item_recall"] is None
    assert scores["word_f1"] is not None


def test_scoring_config_validates_thresholds_and_reads_settings():
    with pytest.raises(ValueError, match="complete=40, correct=30"):
        scoring_config(correct_distance=30, complete_distance=40)
    from scrapy.settings import Settings

    settings = Settings(
        pagesight_settings(PAGESIGHT_EVAL_CORRECT_DISTANCE="20", PAGESIGHT_EVAL_WORST_PAGES=3)
    )
    config = ScoringConfig.from_settings(settings, complete_distance=5, correct_distance=None)
    assert (config.correct_distance, config.complete_distance, config.worst_pages) == (20, 5, 3)


def test_unrelated_pairs_compare_extractions_with_other_pages_gold_of_the_same_site():
    rows = [
        {"site": "s", "extracted_simhash": f"{0b0000:016x}", "gold_simhash": f"{0b0001:016x}"},
        {"site": "s", "extracted_simhash": f"{0b1111:016x}", "gold_simhash": f"{0b0111:016x}"},
        {"site": "s", "extracted_simhash": None, "gold_simhash": f"{0b0011:016x}"},
        {"site": "t", "extracted_simhash": f"{0b0000:016x}", "gold_simhash": f"{0b1111:016x}"},
        {"site": "s", "extracted_simhash": None, "gold_simhash": None},
    ]
    distances = unrelated_distances(rows, pairs_per_page=50)
    # row 0 (0000) vs gold of rows 1 (0111) and 2 (0011); row 1 (1111) vs rows 2 and 0
    assert distances == [[3, 2], [2, 3], [], [], []]
    assert unrelated_distances(rows, pairs_per_page=1) == [[3], [2], [], [], []]
    # across sites, row 3 (site t) joins: each extraction meets the next three golds
    assert unrelated_distances(rows, pairs_per_page=50, same_site=False) == [
        [3, 2, 4],
        [2, 0, 3],
        [],
        [1, 3, 2],
        [],
    ]
    twins = [dict(rows[0]), dict(rows[0])]
    assert unrelated_distances(twins, pairs_per_page=5) == [[], []]
