"""Re-stamping a stale card from captures (models.common.restamp and the element and vision
element families' commands): compared within the tolerance, re-stamped, or left for a
retrain."""

from __future__ import annotations

import copy
import shutil

import pytest

from models.common.card import CARD_FIELDS, card_path, read_card
from models.common.restamp import compare
from models.common.versions import denoiser_version
from models.element import restamp as element_restamp
from models.element.data import FEATURES_VERSION
from models.vision_element import restamp as vision_restamp
from tests.support.paths import ROOT

CHECKPOINTS = ROOT / "models" / "checkpoints"


def test_a_page_type_is_allowed_more_change_the_fewer_pages_it_has():
    recorded = {
        "overall": {"pages": 100, "f1": 0.8},
        "forum": {"pages": 25, "f1": 0.6},
        "product": {"pages": 4, "f1": 0.5},
    }
    measured = {"overall": {"pages": 99, "f1": 0.808}, "forum": {"pages": 25, "f1": 0.619}}
    overall, forum, product = compare(recorded, measured, "f1", tolerance=0.01)
    assert (overall.tolerance, overall.held, overall.measured_pages) == (0.01, True, 99)
    # sqrt(100 / 25) = 2: 0.019 is within 0.02, 0.021 is not
    assert (forum.tolerance, forum.held) == (0.02, True)
    assert not compare(recorded, {**measured, "forum": {"pages": 25, "f1": 0.621}}, "f1", 0.01)[1].held
    # a page type the measurement lacks moved to 0
    assert (product.measured, product.held) == (0.0, False)
    assert "beyond" in product.line() and "beyond" not in forum.line()


FAMILIES = [
    pytest.param(element_restamp, "element-classifier.npz", [], id="element"),
    pytest.param(vision_restamp, "vision-element.pt", ["--cache", "unused"], id="vision_element"),
]


def stale_copy(tmp_path, name):
    """The shipped checkpoint and its card (which records no versions) in ``tmp_path``."""
    checkpoint = tmp_path / name
    shutil.copy(CHECKPOINTS / name, checkpoint)
    shutil.copy(card_path(CHECKPOINTS / name), card_path(checkpoint))
    return checkpoint


def moved(validation, key, change):
    """The recorded validation summary with every group's ``key`` moved by ``change``."""
    measured = copy.deepcopy(validation)
    for row in measured.values():
        row[key] += change
    return measured


@pytest.mark.parametrize(("module", "name", "options"), FAMILIES)
def test_a_card_whose_scores_hold_is_restamped_with_the_code_versions(
    module, name, options, tmp_path, monkeypatch, capsys
):
    checkpoint = stale_copy(tmp_path, name)
    old = read_card(checkpoint)
    assert "versions" not in old
    validation = old["metrics"]["validation"]
    monkeypatch.setattr(module, "measure", lambda *args, **kwargs: moved(validation, module.KEY, -0.008))
    assert module.main([str(checkpoint), "feed.jsonl", "wcxb", *options]) == 0
    card = read_card(checkpoint)
    assert list(card)[: len(CARD_FIELDS)] == list(CARD_FIELDS)
    assert (card["versions"]["features"], card["versions"]["denoiser"]) == (
        FEATURES_VERSION,
        denoiser_version(),
    )
    assert (card["command"], card["metrics"]) == (old["command"], old["metrics"])
    assert card["date"] == old["trained_at"]
    overall = card["restamped"]["validation_" + module.KEY]["overall"]
    assert overall["recorded"] == validation["overall"][module.KEY]
    assert overall["measured"] == pytest.approx(validation["overall"][module.KEY] - 0.008)
    assert "retrain" not in capsys.readouterr().out


@pytest.mark.parametrize(("module", "name", "options"), FAMILIES)
def test_a_card_whose_scores_moved_is_left_for_a_retrain(
    module, name, options, tmp_path, monkeypatch, capsys
):
    checkpoint = stale_copy(tmp_path, name)
    before = card_path(checkpoint).read_bytes()
    validation = read_card(checkpoint)["metrics"]["validation"]
    measured = moved(validation, module.KEY, 0.0)
    measured["overall"][module.KEY] += 0.01  # beyond 0.009 overall; every page type holds
    monkeypatch.setattr(module, "measure", lambda *args, **kwargs: measured)
    assert module.main([str(checkpoint), "feed.jsonl", "wcxb", *options]) == 1
    assert card_path(checkpoint).read_bytes() == before
    out = capsys.readouterr().out
    assert "retrain" in out and "beyond" in out
