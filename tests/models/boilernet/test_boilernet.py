"""BoilerNet: shapes, the leaf features, a tiny overfit, the checkpoint round trip (and
the previous formats), seed ensembles and the start-up errors."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import pickle
from pathlib import Path

import pytest
import torch
from scrapy.settings import Settings

from models.boilernet.card import boilernet_versions, write_boilernet_card
from models.boilernet.checkpoint import load_boilernet, save_boilernet
from models.boilernet.data import (
    FEATURES,
    FEATURES_VERSION,
    FLAGS,
    REPETITION_FEATURES,
    IawceMarks,
    Vocabulary,
    ancestor_tags,
    attribute_words,
    feature_rows,
    iawce_marks,
    leaf_features,
    leaf_flags,
    repetition_features,
)
from models.boilernet.model import BoilerNet, BoilerNetConfig, LeafBatch, predict, predict_mean
from models.boilernet.train import (
    BoilerNetTrainConfig,
    LabelledPage,
    best_epoch,
    calibrate,
    encode,
    feature_names,
    fit,
    fit_members,
    kept_leaves,
    label_pages,
    leaf_scores,
    loss_weights,
    prepared_pages,
    soft_f1_loss,
    train_boilernet,
    vocabulary_of,
    write_out_of_fold,
)
from models.common.checkpoint import CheckpointError
from models.common.splits import DomainSplit
from models.common.versions import FIXTURE_FOLDERS, denoiser_version
from models.common.wcxb_pages import RAW, GoldPage
from pipelines.evaluation.wcxb import WcxbRecord
from pipelines.extraction.boilernet import BoilerNetExtractor, leaf_probabilities
from pipelines.extraction.denoise import unwrap_script_fallback
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.leaves import text_leaves
from pipelines.extraction.page import Page

PAGE = """<html><body><nav class="siteNav main-menu"><a href="/">Home</a> <a href="/news">News {n}</a></nav>
<article><h1>Story number {n}</h1><p>The council met on day {n} and agreed the budget.</p>
<p>Residents <b>welcomed</b> the plan for {n} new parks.</p><button>Share it</button></article>
<form><label>Subscribe to the story newsletter</label></form>
<footer id="site_footer"><p>Copyright {n} by the news site</p></footer></body></html>"""
GOLD = "Story number {n}\n\nThe council met on day {n} and agreed the budget.\n\nResidents welcomed the plan for {n} new parks."


def gold_page(n: int, domain: str) -> GoldPage:
    record = WcxbRecord(
        file_id=f"{n:04d}",
        url=f"https://{domain}/{n}",
        domain=domain,
        page_type="article",
        ground_truth={"main_content": GOLD.format(n=n)},
        html_path=Path("unused.html.gz"),
        source=Path("unused.json"),
    )
    return GoldPage(record, PAGE.format(n=n), None, RAW)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    split = DomainSplit({"train.example": "train", "valid.example": "validation"}, {"train.example": 0}, 1)
    pages = label_pages([gold_page(n, "train.example") for n in range(6)], split)
    pages += label_pages([gold_page(n, "valid.example") for n in range(6, 8)], split)
    config = BoilerNetTrainConfig(
        data=Path("."),
        out=Path("."),
        words=50,
        leaf_features=True,
        attributes=10,
        flags=("list_page", "denoised_away", "iawce_region"),
        dense=16,
        hidden=16,
        lr=0.02,
        window=64,
        batch_size=2,
    )
    train, validation = pages[:6], pages[6:]
    vocabulary = vocabulary_of(train, config)
    encode(pages, vocabulary, features=True, flags=config.flags)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a shared busy CPU: more threads only wait on each other
    try:
        model, history = fit(config, train, validation, vocabulary, 30, "test")
    finally:
        torch.set_num_threads(threads)
    path = save_boilernet(
        tmp_path_factory.mktemp("bn") / "boilernet.pt", [model], vocabulary, 0.5, {}, {}, flags=config.flags
    )
    return model, vocabulary, train, validation, history, path


def test_network_shapes_with_and_without_words():
    vocabulary = Vocabulary(("a", "b"), ("p", "div"))
    pages = [vocabulary.encoder().encode([(("a", "x"), ["p", "div"])] * n) for n in (3, 5)]
    batch = LeafBatch.of(pages)
    model = BoilerNet(
        BoilerNetConfig(words=vocabulary.word_size, tags=vocabulary.tag_size, dense=8, hidden=4)
    )
    assert model(batch).shape == (2, 5)
    assert [p.shape for p in predict(model, pages)] == [(3,), (5,)]
    tags_only = Vocabulary((), ("p",), use_words=False)
    assert tags_only.word_size == 0
    encoded = tags_only.encoder().encode([(("a",), ["p", "span"])])
    assert encoded.word_ids.numel() == 0 and encoded.tag_ids.tolist() == [1, 0]
    model = BoilerNet(BoilerNetConfig(words=0, tags=tags_only.tag_size, dense=8, hidden=4))
    assert model(LeafBatch.of([encoded])).shape == (1, 1)


def test_leaf_features_of_a_hand_made_page():
    html = """<html><body><div id="main"><p>One two three four five six.</p>
    <ul class="navBar x"><li><a href="/a" class="menu-link">Home</a></li><li><a href="/b">About us</a></li></ul>
    <p>See <a href="/c">the link</a> and more</p></div></body></html>"""
    leaves = text_leaves(body_of(parse_html(html)))
    assert [leaf.text.strip() for leaf in leaves] == [
        "One two three four five six.",
        "Home",
        "About us",
        "See",
        "the link",
        "and more",
    ]
    rows = leaf_features(leaves)
    assert len(rows) == 6 and all(len(row) == len(FEATURES) for row in rows)
    f = [dict(zip(FEATURES, row, strict=True)) for row in rows]
    assert f[0]["log_tokens"] == pytest.approx(math.log1p(6))
    assert [x["in_link"] for x in f] == [0, 1, 1, 0, 1, 0]
    # "See" is owned by the <p>: 2 of its 5 tokens are in the link; its parent <div> has 14 tokens, 5 linked.
    assert f[3]["parent_link_share"] == pytest.approx(2 / 5)
    assert f[3]["grandparent_link_share"] == pytest.approx(5 / 14)
    assert f[1]["parent_link_share"] == f[1]["grandparent_link_share"] == 1.0  # <a> in <li>
    assert [x["position"] for x in f] == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert f[0]["ends_sentence"] == 1 and f[3]["ends_sentence"] == 0
    assert f[0]["punctuation_share"] == pytest.approx(1 / 23)  # "." among 23 visible characters
    assert f[4]["stop_word_share"] == 0.5  # "the" of "the link"
    # The link text's block is the <p> (5 tokens, 3 leaves); the <a> holds 1 leaf.
    assert f[4]["block_log_tokens"] == pytest.approx(math.log1p(5))
    assert f[4]["block_log_leaves"] == pytest.approx(math.log1p(3))
    assert f[4]["parent_log_leaves"] == pytest.approx(math.log1p(1))
    assert f[0]["log_depth"] < f[1]["log_depth"]  # p/div/body/html vs a/li/ul/div/body/html
    # Class and id words of the owner and its ancestors: split, camelCase too, lowercased,
    # one-letter words dropped, each word once.
    bags = attribute_words(leaves)
    assert bags[0] == ("main",)
    assert bags[1] == ("bar", "link", "main", "menu", "nav")
    assert bags[2] == ("bar", "main", "nav")


def test_repetition_features_count_recurring_text_and_tag_paths():
    html = """<html><body><div><h3>Blouse one</h3><span>Help report</span></div>
    <div><h3>Blouse two is longer</h3><span>Help report</span></div>
    <p>The one story of the page, in many words.</p><p>Help report</p></body></html>"""
    leaves = text_leaves(body_of(parse_html(html)))
    pairs = [(leaf.tokens, ancestor_tags(leaf)) for leaf in leaves]
    rows = repetition_features(pairs)
    f = [dict(zip(REPETITION_FEATURES, row, strict=True)) for row in rows]
    # "help report" thrice (two <span>s in <div>s, one <p>): two other leaves share its text.
    assert [x["log_text_repeats"] for x in f] == pytest.approx(
        [0, math.log1p(2), 0, math.log1p(2), 0, math.log1p(2)]
    )
    # h3/div/body/html and span/div/body/html twice each; p/body/html twice.
    assert all(x["log_path_repeats"] == pytest.approx(math.log1p(1)) for x in f)
    total = sum(len(tokens) for tokens, _ in pairs)  # 2 + 2 + 4 + 2 + 9 + 2
    assert total == 21
    assert f[0]["path_token_share"] == pytest.approx((2 + 4) / total)  # the two <h3>s
    assert f[4]["path_token_share"] == pytest.approx((9 + 2) / total)  # the two <p>s
    assert repetition_features([]) == []
    # The extractor's rows (from the DOM) are the trainer's: FEATURES, then these.
    both = feature_rows(FEATURES + REPETITION_FEATURES, leaves, pairs)
    assert both.shape == (6, len(FEATURES) + 3)
    assert torch.allclose(both[:, : len(FEATURES)], torch.tensor(leaf_features(leaves)))
    assert torch.allclose(both[:, len(FEATURES) :], torch.tensor(rows, dtype=torch.float32))
    assert torch.equal(feature_rows(FEATURES, leaves, pairs), both[:, : len(FEATURES)])
    with pytest.raises(ValueError, match="unknown leaf feature set"):
        feature_rows(REPETITION_FEATURES, leaves, pairs)


def test_repetition_features_train_travel_in_the_checkpoint_and_reach_the_extractor(tmp_path):
    split = DomainSplit({"train.example": "train", "valid.example": "validation"}, {"train.example": 0}, 1)
    pages = label_pages([gold_page(n, "train.example") for n in range(3)], split)
    pages += label_pages([gold_page(3, "valid.example")], split)
    pages.append(
        dataclasses.replace(
            pages[0], file_id="empty", leaves=[], labels=[], in_form=[], features=torch.zeros(0)
        )
    )  # a page without a text leaf
    config = BoilerNetTrainConfig(
        data=Path("."),
        out=Path("."),
        words=20,
        leaf_features=True,
        repetition=True,
        dense=8,
        hidden=4,
        window=64,
        batch_size=2,
    )
    assert feature_names(config) == FEATURES + REPETITION_FEATURES
    with pytest.raises(ValueError, match="come with the leaf features"):
        feature_names(dataclasses.replace(config, leaf_features=False))
    vocabulary = vocabulary_of(pages[:3], config)
    encode(pages, vocabulary, features=True, repetition=True)
    assert pages[0].network_input.features.shape == (len(pages[0].leaves), len(FEATURES) + 3)
    assert pages[-1].network_input.features.shape == (0, len(FEATURES) + 3)
    model, _ = fit(config, pages[:3], pages[3:4], vocabulary, 1, "test")
    assert model.config.features == len(FEATURES) + 3
    path = save_boilernet(
        tmp_path / "rep.pt", [model], vocabulary, 0.5, {}, {}, features=feature_names(config)
    )
    loaded = load_boilernet(path)
    assert loaded.features == FEATURES + REPETITION_FEATURES
    html = PAGE.format(n=3)
    root = parse_html(html)
    probabilities = leaf_probabilities(loaded, text_leaves(body_of(root)), root, "article")
    expected = predict(loaded.models[0], [pages[3].network_input])[0]
    assert probabilities == pytest.approx(expected.tolist(), abs=1e-5)  # the trainer's inputs, from the DOM
    with pytest.raises(ValueError, match="2 feature names for 15 feature inputs"):
        save_boilernet(tmp_path / "bad.pt", [model], vocabulary, 0.5, {}, {}, features=FEATURES[:2])
    payload = torch.load(path, weights_only=True)
    payload["features"] = [*FEATURES, "log_text_repeats", "other", "path_token_share"]
    torch.save(payload, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="trained on the leaf features"):
        load_boilernet(tmp_path / "other.pt")


def test_tiny_overfit_labels_every_leaf_right(trained):
    model, _, train, validation, history, _ = trained
    assert history[-1]["loss"] < history[0]["loss"]
    kept = [
        kept_leaves(p, probs, 0.5)
        for p, probs in zip(train, predict(model, [p.encoded for p in train]), strict=True)
    ]
    assert leaf_scores(train, kept)["content"]["f1"] == 1.0
    # The form's label text never counts as content, whatever the network says.
    assert all(
        not keep
        for page, row in zip(train, kept, strict=True)
        for keep, form in zip(row, page.in_form, strict=True)
        if form
    )
    probabilities = predict(model, [p.encoded for p in validation])
    threshold, _ = calibrate(validation, probabilities)
    assert 0.05 <= threshold <= 0.95


def test_form_rule_is_calibrated_with_the_threshold():
    def page(in_form: list[bool]) -> LabelledPage:
        leaves = [(("post", "text"), ["p"]), (("menu",), ["a"]), (("more", "post"), ["p"])]
        return LabelledPage(
            "0001",
            "x.example",
            "forum",
            "validation",
            None,
            RAW,
            leaves,
            [1, 0, 1],
            in_form,
            ["post", "text", "more", "post"],
        )

    probabilities = [torch.tensor([0.9, 0.2, 0.6])]
    # A forum that wraps its posts in a form: the rule would drop them all.
    assert calibrate([page([True, True, True])], probabilities) == (0.25, False)
    # A form holding only the menu: dropping it costs nothing, and the seed's rule wins ties.
    assert calibrate([page([False, True, False])], probabilities)[1] is True
    assert kept_leaves(page([True] * 3), probabilities[0], 0.5, drop_forms=False) == [True, False, True]


def test_loss_weights_balance_classes_or_count_tokens_or_pages():
    leaves = [(("a", "b", "c"), ["p"]), (("menu",), ["a"]), (("d", "e"), ["p"]), (("x",), ["a"])]
    page = LabelledPage(
        "0001", "x.example", "article", "train", 0, RAW, leaves, [1, 0, 0, 0], [False] * 4, []
    )
    balanced, tokens = loss_weights([page], "balanced")[0], loss_weights([page], "tokens")[0]
    assert balanced.tolist() == pytest.approx([2.0, 2 / 3, 2 / 3, 2 / 3])  # 1 content leaf of 4
    assert tokens.tolist() == pytest.approx([12 / 7, 4 / 7, 8 / 7, 4 / 7])  # 3, 1, 2, 1 tokens
    assert float(balanced.mean()) == pytest.approx(1.0) and float(tokens.mean()) == pytest.approx(1.0)
    short = LabelledPage("0002", "x.example", "product", "train", 0, RAW, leaves[:2], [1, 0], [False] * 2, [])
    per_page = loss_weights([page, short], "page-tokens")
    assert [float(w.sum()) for w in per_page] == pytest.approx([3.0, 3.0])  # each page weighs the same
    assert per_page[1].tolist() == pytest.approx([9 / 4, 3 / 4])  # 3 and 1 of the page's 4 tokens
    assert float(torch.cat(per_page).mean()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unknown loss weighting"):
        loss_weights([page], "pages")


def test_out_of_fold_predictions_of_chosen_folds_only(tmp_path):
    split = DomainSplit(
        {"a.example": "train", "b.example": "train", "valid.example": "validation"},
        {"a.example": 0, "b.example": 1},
        2,
    )
    train = label_pages([gold_page(n, "a.example" if n % 2 else "b.example") for n in range(4)], split)
    validation = label_pages([gold_page(9, "valid.example")], split)
    config = BoilerNetTrainConfig(
        data=Path("."), out=None, words=20, leaf_features=True, dense=8, hidden=8, fold_epochs=2, window=64
    )
    out = tmp_path / "oof.jsonl"
    write_out_of_fold(config, out, train, validation, folds=(1,))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["file_id"] for line in lines) == ["0000", "0002"]  # fold 1: b.example
    assert all(line["fold"] == 1 and line["domain"] == "b.example" for line in lines)
    assert [len(line["probabilities"]) for line in lines] == [len(p.labels) for p in train if p.fold == 1]


def test_extractor_keeps_the_story_and_drops_menu_form_and_footer(trained):
    *_, path = trained
    extractor = BoilerNetExtractor.from_settings(
        Settings({"PAGESIGHT_BOILERNET_CHECKPOINT": str(path), "PAGESIGHT_BOILERNET_THRESHOLD": ""})
    )
    extraction = extractor.extract(Page(PAGE.format(n=42), "https://x.example/42"))
    assert extraction is not None and extraction.extractor == "boilernet"
    assert extraction.text.startswith("Story number 42\n\nThe council met on day 42")
    assert "Home" not in extraction.text and "Copyright" not in extraction.text
    assert "Subscribe" not in extraction.text
    assert "Share" not in extraction.text  # a button holds no leaf: never content
    assert "**welcomed**" in extraction.markdown


#: A script-built page (Discourse's shape): an empty app shell, the posts in a <noscript>.
SCRIPT_BUILT = """<html><body><header><a href="/">Forum home</a></header><div id="app"></div>
<noscript><div class="topic"><h1>Budget thread {n}</h1><p>The council met on day {n} and agreed the budget.</p>
<p>Residents welcomed the plan for {n} new parks.</p></div></noscript></body></html>"""


def test_a_script_fallback_holding_the_page_is_unwrapped_for_training_and_extraction(trained):
    root = parse_html(SCRIPT_BUILT.format(n=5))
    assert text_leaves(body_of(root))[0].text == "Forum home" and len(text_leaves(body_of(root))) == 1
    assert unwrap_script_fallback(body_of(root))
    assert [leaf.text for leaf in text_leaves(body_of(root))][1:] == [
        "Budget thread 5",
        "The council met on day 5 and agreed the budget.",
        "Residents welcomed the plan for 5 new parks.",
    ]
    # A <noscript> beside more text than its own (a "please enable JavaScript" notice) stays out.
    notice = parse_html(
        PAGE.format(n=5).replace("<footer", "<noscript><p>Enable JavaScript</p></noscript><footer")
    )
    assert not unwrap_script_fallback(body_of(notice)) and len(notice.findall(".//noscript")) == 1
    assert all("Enable" not in leaf.text for leaf in text_leaves(body_of(notice)))
    # Training labels the unwrapped leaves against the gold text.
    split = DomainSplit({"forum.example": "train"}, {"forum.example": 0}, 1)
    page = gold_page(5, "forum.example")
    gold = "Budget thread 5\n\nThe council met on day 5 and agreed the budget.\n\nResidents welcomed the plan for 5 new parks."
    page.record.ground_truth["main_content"] = gold
    (labelled,) = label_pages([GoldPage(page.record, SCRIPT_BUILT.format(n=5), None, RAW)], split)
    assert len(labelled.leaves) == 4 and labelled.labels == [0, 1, 1, 1]
    # The extractor reads the same leaves (before the unwrap it found no text but the link).
    *_, path = trained
    extractor = BoilerNetExtractor.from_settings(
        Settings({"PAGESIGHT_BOILERNET_CHECKPOINT": str(path), "PAGESIGHT_BOILERNET_THRESHOLD": "0"})
    )
    extraction = extractor.extract(Page(SCRIPT_BUILT.format(n=5), "https://forum.example/5"))
    assert extraction is not None and "Residents welcomed the plan for 5 new parks." in extraction.text


def test_checkpoint_round_trip_keeps_weights_in_fp16(trained):
    model, vocabulary, *_, path = trained
    payload = torch.load(path, weights_only=True)
    loaded = load_boilernet(path)
    assert len(payload["members"]) == len(loaded.models) == 1
    assert payload["members"][0]["out.weight"].dtype == torch.float16
    assert payload["features"] == list(FEATURES) and model.config.features == len(FEATURES)
    assert {"nav", "menu", "footer"} <= set(loaded.vocabulary.attributes)
    assert model.config.attributes == len(loaded.vocabulary.attributes) + 1
    # The training leaves' feature mean is saved with the weights.
    assert payload["members"][0]["feature_mean"].abs().sum() > 0
    assert loaded.vocabulary == vocabulary and loaded.threshold == 0.5
    versions = boilernet_versions()
    card = json.loads(
        write_boilernet_card(path, "scrapy train-boilernet ...", versions).read_text(encoding="utf-8")
    )
    assert card["checkpoint"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (card["family"], card["versions"]["denoiser"]) == ("boilernet", denoiser_version())
    assert card["versions"]["features"] == FEATURES_VERSION
    assert card["config"]["hidden"] == 16 and card["vocabulary"]["words"] == len(vocabulary.words)
    assert card["members"] == 1
    assert torch.allclose(loaded.models[0].out.weight, model.out.weight, atol=1e-2)


def test_previous_formats_still_load_and_changed_features_fail(trained, tmp_path):
    *_, path = trained
    vocabulary = Vocabulary(("a",), ("p",))
    seed = BoilerNet(BoilerNetConfig(words=vocabulary.word_size, tags=vocabulary.tag_size, dense=8, hidden=4))
    payload = torch.load(
        save_boilernet(tmp_path / "v3.pt", [seed], vocabulary, 0.3, {}, {}), weights_only=True
    )
    payload["format_version"] = 2  # version 2: one network's weights under "state_dict"
    payload["state_dict"] = payload.pop("members")[0]
    torch.save(payload, tmp_path / "v2.pt")
    assert len(load_boilernet(tmp_path / "v2.pt").models) == 1
    card = json.loads(
        write_boilernet_card(tmp_path / "v2.pt", "x", boilernet_versions()).read_text(encoding="utf-8")
    )
    assert card["checkpoint"]["format_version"] == 2  # the file's, not this code's
    payload["format_version"] = 1  # version 1: no features or flags keys, no feature buffers
    del payload["features"], payload["flags"]
    payload["state_dict"] = {
        k: v for k, v in payload["state_dict"].items() if k not in ("feature_mean", "feature_scale")
    }
    payload["config"] = {k: v for k, v in payload["config"].items() if k not in ("features", "flags")}
    torch.save(payload, tmp_path / "v1.pt")
    loaded = load_boilernet(tmp_path / "v1.pt")
    assert loaded.config.features == 0 and loaded.threshold == 0.3
    root = parse_html("<p>a a a</p><div>b</div>")
    probabilities = leaf_probabilities(loaded, text_leaves(body_of(root)), root, "article")  # no features
    assert len(probabilities) == 2 and all(0.0 <= p <= 1.0 for p in probabilities)
    payload = torch.load(path, weights_only=True)
    payload["features"] = ["log_tokens"]
    torch.save(payload, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match=r"trained on the leaf features \['log_tokens'\]"):
        load_boilernet(tmp_path / "other.pt")


def test_card_sections_for_the_benchmark_and_out_of_fold_predictions_are_written_by_code(trained, tmp_path):
    from models.boilernet.card import benchmark_section
    from models.boilernet.card import main as card_main

    *_, trained_path = trained
    path = tmp_path / "boilernet.pt"
    path.write_bytes(trained_path.read_bytes())
    report = {
        "dataset": "wcxb-dev",
        "pages": 3,
        "unscored_empty_gold": 1,
        "split": "heldout",
        "summaries": {
            "iawce": {"overall": {"pages": 3, "f1": 0.87454, "ms": 5.0}, "forum": {"pages": 1, "f1": 0.7}},
            "boilernet": {
                "overall": {"pages": 3, "f1": 0.85116, "ms": 9.0},
                "forum": {"pages": 1, "f1": 0.75},
            },
        },
        "per_page": {},
    }
    (tmp_path / "bench.json").write_text(json.dumps(report), encoding="utf-8")
    old = {"out_of_fold": {"file": "/somewhere/oof.jsonl", "pages": 979}}
    (tmp_path / "old.card.json").write_text(json.dumps(old), encoding="utf-8")
    argv = [str(path), "--command", "scrapy train-boilernet ...", "--benchmark", str(tmp_path / "bench.json")]
    with pytest.raises(SystemExit):  # a card that records no versions is re-stamped first
        card_main(argv)
    recorded = {"features": 1, "denoiser": "0123456789abcdef", "code": "c0de"}
    write_boilernet_card(path, "scrapy train-boilernet ...", recorded, "2026-11-01T00:00:00+00:00")
    argv += [
        "--benchmark-command",
        "benchmarks/extract.py ...",
        "--out-of-fold-from",
        str(tmp_path / "old.card.json"),
    ]
    assert card_main(argv) == 0
    card = json.loads((tmp_path / "boilernet.card.json").read_text(encoding="utf-8"))
    assert card["command"] == "scrapy train-boilernet ..."
    assert card["benchmark"] == {
        "command": "benchmarks/extract.py ...",
        "split": "heldout",
        "pages": 3,
        "heldout_word_f1": {
            "iawce": {"overall": 0.8745, "forum": 0.7},
            "boilernet": {"overall": 0.8512, "forum": 0.75},
        },
    }
    assert card["out_of_fold"] == old["out_of_fold"]
    assert card["checkpoint"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (card["versions"], card["date"]) == (recorded, "2026-11-01T00:00:00+00:00")  # kept
    card_main([str(path), "--command", "again"])  # without them: no such sections
    assert "benchmark" not in json.loads((tmp_path / "boilernet.card.json").read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match=r"not a benchmarks/extract\.py report"):
        benchmark_section({"summaries": {}}, "x")
    with pytest.raises(SystemExit):
        card_main([str(path), "--command", "x", "--out-of-fold-from", str(tmp_path / "bench.json")])


def test_seed_ensemble_averages_its_members_and_round_trips(trained, tmp_path):
    model, vocabulary, train, *_ = trained
    torch.manual_seed(7)
    other = BoilerNet(model.config)  # an untrained second member of the same shape
    other.load_state_dict({**other.state_dict(), "feature_mean": model.feature_mean})
    pages = [page.network_input for page in train[:2]]
    first, second = predict(model, pages), predict(other, pages)
    mean = predict_mean([model, other], pages)
    assert all(torch.allclose(m, (a + b) / 2) for m, a, b in zip(mean, first, second, strict=True))
    assert not torch.allclose(mean[0], first[0], atol=1e-3)
    path = save_boilernet(tmp_path / "ensemble.pt", [model, other], vocabulary, 0.4, {}, {}, flags=FLAGS)
    loaded = load_boilernet(path)
    assert len(loaded.models) == 2 and loaded.threshold == 0.4
    assert all(
        torch.allclose(a, b, atol=1e-2) for a, b in zip(loaded.probabilities(pages), mean, strict=True)
    )
    root = parse_html(PAGE.format(n=1))
    from_page = leaf_probabilities(loaded, text_leaves(body_of(root)), root, "article")
    assert from_page == pytest.approx(loaded.probabilities([train[1].network_input])[0].tolist(), abs=1e-3)
    card = json.loads(
        write_boilernet_card(path, "scrapy train-boilernet --seeds 2", boilernet_versions()).read_text(
            encoding="utf-8"
        )
    )
    assert card["members"] == 2 and card["checkpoint"]["format_version"] == 3
    wider = BoilerNet(
        BoilerNetConfig(words=vocabulary.word_size, tags=vocabulary.tag_size, dense=8, hidden=8)
    )
    with pytest.raises(ValueError, match="networks of one shape"):
        save_boilernet(tmp_path / "mixed.pt", [model, wider], vocabulary, 0.4, {}, {})
    with pytest.raises(ValueError, match="no network"):
        predict_mean([], pages)


def test_corrupt_ensemble_checkpoint_names_the_broken_member(trained, tmp_path):
    model, vocabulary, *_ = trained
    payload = torch.load(
        save_boilernet(tmp_path / "ensemble.pt", [model, model], vocabulary, 0.5, {}, {}, flags=FLAGS),
        weights_only=True,
    )
    del payload["members"][1]["out.weight"]
    torch.save(payload, tmp_path / "missing-weight.pt")
    with pytest.raises(CheckpointError, match=r"malformed .*member 2 of 2: .*out\.weight") as error:
        load_boilernet(tmp_path / "missing-weight.pt")
    assert "\n" not in str(error.value)
    payload["members"] = []
    torch.save(payload, tmp_path / "no-members.pt")
    with pytest.raises(CheckpointError, match="members must be a non-empty list"):
        load_boilernet(tmp_path / "no-members.pt")
    del payload["members"]
    torch.save(payload, tmp_path / "no-weights.pt")
    with pytest.raises(CheckpointError, match="malformed BoilerNet checkpoint: 'members'"):
        load_boilernet(tmp_path / "no-weights.pt")


def test_trainer_ships_a_seed_ensemble_calibrated_for_the_mean(tmp_path, monkeypatch):
    import models.boilernet.train as train_module

    split = DomainSplit(
        {"train.example": "train", "valid.example": "validation", "held.example": "heldout"},
        {"train.example": 0},
        1,
    )
    domains = ["train.example"] * 4 + ["valid.example", "held.example"]
    monkeypatch.setattr(train_module, "load_split", lambda: split)
    monkeypatch.setattr(
        train_module, "read_gold_pages", lambda *_: [gold_page(n, d) for n, d in enumerate(domains)]
    )
    config = BoilerNetTrainConfig(
        data=Path("."),
        out=tmp_path / "ensemble.pt",
        words=20,
        leaf_features=True,
        select="word-f1",
        dense=8,
        hidden=8,
        epochs=2,
        window=64,
        seed=3,
        seeds=2,
    )
    result = train_boilernet(config)
    assert result is not None
    members = result.metrics["members"]
    assert [m["seed"] for m in members] == [3, 4]
    assert all(m["best_epoch"] == best_epoch(m["history"], "word-f1") for m in members)
    loaded = load_boilernet(config.out)
    assert len(loaded.models) == 2 and loaded.threshold == result.threshold
    assert not torch.equal(loaded.models[0].out.weight, loaded.models[1].out.weight)  # different seeds
    assert "validation word F1 seed 4" in result.report()
    assert "mean of the networks" in result.report()
    with pytest.raises(ValueError, match="seeds must be 1 or more"):
        fit_members(
            BoilerNetTrainConfig(data=Path("."), out=None, seeds=0), [], [], Vocabulary((), ("p",)), 1, "x"
        )


def test_soft_f1_loss_is_one_minus_the_windows_fractional_word_f1():
    big = 50.0  # logits this large keep or drop a leaf all but exactly
    target = torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    weights = torch.tensor([[3.0, 1.0, 4.0, 0.0], [2.0, 2.0, 0.0, 0.0]])  # the last columns: padding
    right = torch.tensor([[big, big, -big, big], [-big, -big, -big, -big]])
    assert soft_f1_loss(right, target, weights).item() == pytest.approx(0.0, abs=1e-6)
    # Keeping the 4-token noise leaf too: F1 = (2 * 4 + 1) / (8 + 4 + 1); the empty window
    # keeping its 2 tokens: 1 / (2 + 1).
    wrong = torch.tensor([[big, big, big, big], [big, -big, -big, -big]])
    expected = ((1 - 9 / 13) + (1 - 1 / 3)) / 2
    assert soft_f1_loss(wrong, target, weights).item() == pytest.approx(expected, abs=1e-6)
    half = torch.zeros(2, 4, requires_grad=True)
    soft_f1_loss(half, target, weights).backward()
    assert half.grad is not None
    assert half.grad[0, 0] < 0 < half.grad[0, 2] and half.grad[1, 0] > 0  # keep content, drop noise
    assert half.grad[0, 3] == 0  # padding


def test_best_epoch_is_the_later_among_equals():
    history = [
        {"epoch": 1, "validation_word_f1": 0.8, "validation_content_f1": 0.9},
        {"epoch": 2, "validation_word_f1": 0.8, "validation_content_f1": 0.7},
    ]
    assert best_epoch(history, "word-f1") == 2 and best_epoch(history, "leaf-f1") == 1


def test_iawce_marks_and_flags_of_a_hand_made_page():
    root = parse_html(PAGE.format(n=3))
    leaves = text_leaves(body_of(root))
    marks = iawce_marks(root, "article")
    assert len(marks.denoised_away) == len(marks.in_region) == len(leaves)
    removed = {leaf.text.strip() for leaf, gone in zip(leaves, marks.denoised_away, strict=True) if gone}
    assert "Home" in removed and "Copyright 3 by the news site" in removed
    assert not {"Story number 3", "welcomed"} & removed
    region = {leaf.text.strip() for leaf, inside in zip(leaves, marks.in_region, strict=True) if inside}
    assert {"Story number 3", "welcomed"} <= region and "Home" not in region
    assert len(text_leaves(body_of(root))) == len(leaves)  # the page itself is left as it is
    marks = IawceMarks([True, False], [False, True])
    flags = leaf_flags(("list_page", "denoised_away", "iawce_region"), "list", marks)
    assert flags.tolist() == [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
    assert leaf_flags(("iawce_region",), "article", marks).tolist() == [[0.0], [1.0]]
    assert leaf_flags(("list_page",), "article", IawceMarks([], [])).shape == (0, 1)
    with pytest.raises(ValueError, match="unknown leaf flags"):
        leaf_flags(("sidebar",), "article", marks)


def test_flags_feed_the_network_and_travel_in_the_checkpoint(trained, tmp_path):
    model, _, train, *_, path = trained
    page = train[0].network_input
    assert page.flags.shape == (len(page), 3) and model.config.flags == 3
    flipped = type(page)(**{**vars(page), "flags": 1.0 - page.flags})
    assert not torch.allclose(predict(model, [page])[0], predict(model, [flipped])[0])
    loaded = load_boilernet(path)
    assert loaded.flags == ("list_page", "denoised_away", "iawce_region")
    card = json.loads(
        write_boilernet_card(path, "scrapy train-boilernet ...", boilernet_versions()).read_text(
            encoding="utf-8"
        )
    )
    assert card["flags"] == ["list_page", "denoised_away", "iawce_region"]
    payload = torch.load(path, weights_only=True)
    payload["flags"] = ["list_page"]
    torch.save(payload, tmp_path / "fewer.pt")
    with pytest.raises(CheckpointError, match=r"leaf flags \['list_page'\] for 3 flag inputs"):
        load_boilernet(tmp_path / "fewer.pt")


def test_shipped_checkpoint_loads():
    from pipelines.extraction.boilernet import SHIPPED_CHECKPOINT

    loaded = load_boilernet(SHIPPED_CHECKPOINT)
    assert loaded.flags == ("list_page", "denoised_away", "iawce_region")  # as README says


def test_missing_or_broken_checkpoint_fails_at_start_up_in_one_line(tmp_path):
    missing = tmp_path / "missing.pt"
    with pytest.raises(CheckpointError, match=r"not found: .*missing\.pt") as error:
        BoilerNetExtractor.from_settings(Settings({"PAGESIGHT_BOILERNET_CHECKPOINT": str(missing)}))
    assert "\n" not in str(error.value)
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match=r"corrupt\.pt is unreadable"):
        load_boilernet(corrupt)
    foreign = tmp_path / "foreign.pt"
    torch.save({"format": "pagesight-page-classifier"}, foreign)
    with pytest.raises(CheckpointError, match="not a BoilerNet checkpoint"):
        load_boilernet(foreign)


def test_registered_instance_without_checkpoint_returns_none(tmp_path, caplog):
    extractor = BoilerNetExtractor(BoilerNetExtractor.Options(checkpoint=str(tmp_path / "none.pt")))
    assert extractor.extract(Page("<p>Some text here</p>")) is None
    assert extractor.extract(Page("<p>Some text here</p>")) is None
    assert sum("unusable" in r.message for r in caplog.records) == 1


def test_prepared_pages_are_reused_only_from_the_same_denoiser(tmp_path, monkeypatch):
    import models.boilernet.train as train_module

    prepared_afresh = []

    def gold_pages(data, gold, limit):
        prepared_afresh.append(1)
        return [gold_page(n, "train.example") for n in range(2)]

    monkeypatch.setattr(train_module, "read_gold_pages", gold_pages)
    split = DomainSplit({"train.example": "train"}, {"train.example": 0}, 1)
    config = BoilerNetTrainConfig(data=Path("."), out=Path("."), prepared=tmp_path / "prepared.pkl")
    monkeypatch.setattr(train_module, "denoiser_fingerprint", lambda: "rules-a")
    first = prepared_pages(config, split)
    again = prepared_pages(config, split)
    assert len(prepared_afresh) == 1 and [p.file_id for p in again] == [p.file_id for p in first]
    monkeypatch.setattr(train_module, "denoiser_fingerprint", lambda: "rules-b")  # the rules changed
    prepared_pages(config, split)
    assert len(prepared_afresh) == 2
    with config.prepared.open("wb") as old:  # a cache from before fingerprints: a bare list
        pickle.dump(first, old)
    prepared_pages(config, split)
    assert len(prepared_afresh) == 3
    prepared_pages(config, split)
    assert len(prepared_afresh) == 3
    with config.prepared.open("wb") as old:  # the same denoiser, leaves from before the unwrap
        pickle.dump({"denoiser": "rules-b", "pages": first}, old)
    prepared_pages(config, split)
    assert len(prepared_afresh) == 4


def leaf_features_digest() -> str:
    """A hash of the leaf inputs models.boilernet.data computes (no denoiser) on fixed pages."""
    digest = hashlib.sha256()
    for page in sorted(FIXTURE_FOLDERS[0].glob("*.html")):
        leaves = text_leaves(body_of(parse_html(page.read_text(encoding="utf-8"))))
        pairs = [(list(leaf.tokens), ancestor_tags(leaf)) for leaf in leaves]
        rows = (leaf_features(leaves), repetition_features(pairs), attribute_words(leaves), pairs)
        digest.update(json.dumps(rows, default=lambda v: round(float(v), 5)).encode())
    return digest.hexdigest()[:16]


def test_the_features_version_is_bumped_when_what_they_compute_changes():
    """When this fails, BoilerNet's leaf inputs changed: bump FEATURES_VERSION, pin the new
    hash, and re-measure (or retrain) the shipped BoilerNet."""
    assert (FEATURES_VERSION, leaf_features_digest()) == (1, "cf53754a1c49f2b9")
