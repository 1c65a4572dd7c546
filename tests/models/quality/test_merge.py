"""The line-level merge of extraction candidates: units, features, gold labels, merged
text and Markdown, and its fit in training."""

from __future__ import annotations

import pytest

from models.quality.features import PageStats, candidate_features
from models.quality.merge import (
    Grams,
    Line,
    candidate_lines,
    in_gold,
    kept_lines,
    kept_with_confidence,
    markdown_spans,
    merge_feature_names,
    merged_markdown,
    merged_quality,
    merged_text,
)

NAMES = ["first", "second", "third"]
STORY = "the council agreed to repair the old stone bridge"
DEBATE = "after a long debate that lasted into the night"
MENU = "home news sport weather"
PAGE = PageStats(words=40, link_words=4, link_bag=dict.fromkeys(MENU.split(), 1))


def lines_of(texts: list[str | None]) -> list[Line]:
    return candidate_lines(texts, PAGE, candidate_features(texts, NAMES, PAGE, "article"))


def feature(line: Line, name: str) -> float:
    return line.features[merge_feature_names(NAMES).index(name)]


def test_a_later_candidate_adds_only_the_lines_the_earlier_ones_lack():
    units = lines_of([f"{STORY}\n{MENU}", f"{STORY}\n{DEBATE}", None])
    assert [(u.text, u.source) for u in units] == [(STORY, 0), (MENU, 0), (DEBATE, 1)]
    assert all(len(u.features) == len(merge_feature_names(NAMES)) for u in units)


def test_line_features_count_who_keeps_it_and_its_links():
    story, menu, debate = lines_of([f"{STORY}\n{MENU}", f"{STORY}\n{DEBATE}", STORY])
    assert feature(story, "votes") == 3.0 and feature(menu, "votes") == 1.0
    assert feature(story, "in_third") == 1.0 and feature(menu, "in_second") == 0.0
    assert feature(menu, "link_share") == 1.0 and feature(story, "link_share") == 0.0
    assert feature(debate, "source") == 1.0 and feature(debate, "previous_votes") == -1.0
    assert feature(story, "next_votes") == 1.0


def test_short_lines_are_matched_by_their_own_length():
    assert Grams(["a", "b"]).contains(["a", "b"]) == 1.0
    assert Grams(["a", "c", "b"]).contains(["a", "b"]) == 0.0
    assert Grams().contains([]) == 0.0


def test_gold_label_and_merged_text():
    story, menu, debate = lines_of([f"{STORY}\n{MENU}", f"{STORY}\n{DEBATE}", None])
    gold = Grams(f"{STORY} {DEBATE}".split())
    assert [in_gold(u, gold) for u in (story, menu, debate)] == [True, False, True]
    units = [story, menu, debate]
    kept = kept_lines(units, [0.9, 0.05, 0.6], drop_below=0.1, add_from=0.5)
    assert merged_text(kept) == f"{STORY}\n\n{DEBATE}"
    kept = kept_lines(units, [0.9, 0.05, 0.6], drop_below=0.0, add_from=0.7)
    assert merged_text(kept) == f"{STORY}\n{MENU}"


def test_the_merge_confidence_weighs_the_kept_lines_by_their_words():
    story, menu, debate = lines_of([f"{STORY}\n{MENU}", f"{DEBATE} {DEBATE}", None])
    units = [story, menu, debate]
    assert (len(story.words), len(debate.words)) == (9, 18)
    kept, confidence = kept_with_confidence(units, [0.9, 0.05, 0.6], drop_below=0.1, add_from=0.5)
    assert kept == [story, debate] and confidence == pytest.approx((9 * 0.9 + 18 * 0.6) / 27)
    kept, with_menu = kept_with_confidence(units, [0.9, 0.05, 0.6], drop_below=0.0, add_from=0.7)
    assert kept == [story, menu] and with_menu == pytest.approx((9 * 0.9 + 4 * 0.05) / 13)
    assert kept_with_confidence(units, [0.05, 0.05, 0.2], drop_below=0.1, add_from=0.5) == ([], 0.0)
    assert merged_quality(0.8, confidence) == pytest.approx((0.8 + confidence) / 2)


TEXT = (
    "Bridge works\n\nThe council met.\n\nPhase | Months\nDeck | five\n\nx = repair(bridge)\n}\n\nNext steps"
)
MARKDOWN = (
    "# Bridge works\n\nThe **council** met.\n\n| Phase | Months |\n| --- | --- |\n| Deck | five |"
    "\n\n```\nx = repair(bridge)\n}\n```\n\nNext steps"
)


def test_markdown_spans_align_text_lines_with_their_markdown():
    spans = markdown_spans(TEXT, MARKDOWN)
    rows = MARKDOWN.splitlines()
    assert rows[slice(*spans[0])] == ["# Bridge works"]
    assert rows[slice(*spans[2])] == ["The **council** met."]
    assert rows[slice(*spans[4])] == [
        "| Phase | Months |",
        "| --- | --- |",
    ]  # the separator follows its header
    assert rows[slice(*spans[5])] == ["| Deck | five |"]
    assert rows[slice(*spans[7])] == ["```", "x = repair(bridge)", "}", "```"]  # fences and the wordless line
    assert rows[slice(*spans[10])] == ["Next steps"]
    assert 8 not in spans  # "}" has no words: it travels with the line before


def test_merged_markdown_takes_each_lines_markdown_from_its_own_candidate():
    other = "Residents may write to the town hall"
    texts = [TEXT, other]
    units = candidate_lines(texts, PAGE, candidate_features(texts, ["first", "second"], PAGE, "article"))
    keep = {"Bridge works", "Phase | Months", "Deck | five", "x = repair(bridge)", other}
    kept = kept_lines(units, [1.0 if u.text in keep else 0.0 for u in units], 0.5, 0.5)
    assert (
        merged_text(kept) == f"Bridge works\n\nPhase | Months\nDeck | five\n\nx = repair(bridge)\n\n{other}"
    )
    assert merged_markdown(kept, texts, [MARKDOWN, other]) == (
        "# Bridge works\n\n| Phase | Months |\n| --- | --- |\n| Deck | five |"
        f"\n\n```\nx = repair(bridge)\n}}\n```\n\n{other}"
    )
    code_only = [u for u in kept if u.text == "x = repair(bridge)"]
    no_close = MARKDOWN.replace("}\n```", "}")
    assert merged_markdown(code_only, texts, [no_close, other]).endswith("}\n```")  # an open fence is closed


@pytest.mark.parametrize("first", ["good", "half"])
def test_training_fits_the_merge_beside_the_first_candidate(first):
    from models.quality.train import MERGE_THRESHOLDS, TrainConfig, fit_merge
    from tests.models.quality.test_ensemble import synthetic_pages

    pages, gold = synthetic_pages()
    candidates = [first, *(name for name in ("good", "nav", "half") if name != first)]
    fit = fit_merge(pages, gold, candidates, TrainConfig())
    assert (fit.model.drop_below, fit.model.add_from) in MERGE_THRESHOLDS
    assert fit.model.trees.features[: len(candidates)] == [f"in_{name}" for name in candidates]
    assert len(fit.f1) == 36  # validation and held-out pages
    assert set(fit.metrics["heldout_f1_by_type"]) == {"article", "forum"}
    if first == "good":
        assert fit.metrics["heldout_first_f1"] == pytest.approx(1.0)
    else:  # half of the gold first: the lines of the good candidate it adds are the gain
        assert fit.metrics["heldout_f1"] > fit.metrics["heldout_first_f1"] + 0.1
