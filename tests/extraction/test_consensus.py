"""Peer consensus: the rule on hand-made texts, then the shipped ensemble on a story whose
comment thread iawce keeps and trafilatura and readability drop (raw HTML, no browser)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from scrapy.settings import Settings

from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction import Page, build_extractor
from pipelines.extraction.consensus import (
    ConsensusOptions,
    consensus_peer,
    ruled_out_by_first_peer,
    ruled_out_by_lead,
)

STORY = "\n".join(
    [
        "The council agreed on Tuesday to repair the old stone bridge over the river after a long debate.",
        "Engineers had warned for years that the arches were weakening and the cost kept growing.",
        "Work is due to begin in the spring and should take eight months with a temporary footbridge.",
    ]
)
RAIL = "\n".join(f"Harbour festival news {n}\nNov {n}, 2012" for n in range(10))
REPLIES = "\n".join(
    f"Reply {n}: I have crossed that bridge every morning for thirty years on my way to the market "
    f"and the arches looked sound to me until the flood of {2000 + n}, when the water rose higher."
    for n in range(6)
)
OPTIONS = ConsensusOptions()


def test_two_agreeing_peers_replace_a_lead_that_adds_short_lines():
    peers = {"trafilatura": STORY, "readability": STORY.replace("long debate", "long and loud debate")}
    found = consensus_peer(f"{STORY}\n{RAIL}", peers, OPTIONS)
    assert found is not None and found.peer == "trafilatura"  # the closer to the lead
    assert found.agreement == pytest.approx(
        word_prf(tokens(peers["trafilatura"]), tokens(peers["readability"])).f1
    )
    assert 0.9 < found.agreement < 1.0


def test_long_lines_the_peers_lack_are_kept():
    # A forum thread's replies: the peers, built for articles, drop what a reader came for.
    peers = {"trafilatura": STORY, "readability": STORY}
    assert consensus_peer(f"{STORY}\n{REPLIES}", peers, OPTIONS) is None


@pytest.mark.parametrize(
    ("lead", "peers"),
    [
        (f"{STORY}\n{RAIL}", {"trafilatura": STORY, "readability": RAIL}),  # the peers disagree
        (f"{STORY}\n{RAIL}", {"trafilatura": STORY, "readability": None}),  # one found nothing
        (f"{STORY}\nNov 3, 2012", {"trafilatura": STORY, "readability": STORY}),  # the lead is close
    ],
    ids=["peers-disagree", "peer-missing", "lead-close"],
)
def test_no_consensus_keeps_the_lead(lead, peers):
    assert consensus_peer(lead, peers, OPTIONS) is None


@pytest.mark.parametrize(
    "lead", [STORY, f"{STORY}\nNov 3, 2012", f"{STORY}\n{RAIL}", RAIL, f"{STORY}\n{REPLIES}"]
)
@pytest.mark.parametrize("first", [STORY, RAIL, REPLIES, None, ""])
def test_the_first_peer_rules_out_only_what_no_second_peer_could_change(lead, first):
    if ruled_out_by_first_peer(lead, first, OPTIONS):
        for second in (first, STORY, RAIL, REPLIES, f"{STORY}\n{RAIL}"):
            assert consensus_peer(lead, {"trafilatura": first, "readability": second}, OPTIONS) is None
    close = word_prf(tokens(lead), tokens(first or "")).f1 > 0.9  # within the margin of 0.1
    assert ruled_out_by_first_peer(lead, first, OPTIONS) == (not first or close)


def test_the_thresholds_are_options():
    peers = {"trafilatura": STORY, "readability": STORY}
    lead = f"{STORY}\n{RAIL}"
    assert consensus_peer(lead, peers, OPTIONS) is not None
    assert consensus_peer(lead, peers, ConsensusOptions(min_short_share=1.01)) is None
    assert consensus_peer(lead, peers, ConsensusOptions(margin=1.0)) is None


def test_a_lead_with_almost_no_short_lines_needs_no_peer():
    assert ruled_out_by_lead(STORY, OPTIONS)  # three long lines: nothing short to remove
    assert ruled_out_by_lead(f"{STORY}\n{REPLIES}", OPTIONS)
    assert not ruled_out_by_lead(f"{STORY}\n{RAIL}", OPTIONS)
    assert not ruled_out_by_lead(STORY, ConsensusOptions(min_lead_short_share=0.0))


SUMMARY = (
    "An anonymous reader writes that the council agreed on Tuesday to repair the old stone bridge over "
    "the river, after a debate that lasted well into the night. Engineers had warned for years that the "
    "arches were weakening, and the cost of the work has grown with every winter of delay. Work is due to "
    "begin in the spring and should take eight months, during which a temporary footbridge will carry "
    "pedestrians."
)
COMMENTS = "".join(
    f"<li id='tree_{n}' class='comment'><div><h4><a href='#c{n}'>Re: bridge {n}</a></h4>"
    f"<span>(Score:{n % 5}, Insightful)</span><div>by <a href='/~u{n}'>user{n} ({1000 + n})</a> writes: "
    f"on Tuesday July 24, @11:{10 + n}AM</div></div><div>About time they fixed it.</div>"
    f"<div><a href='/reply/{n}'>Reply to This</a> <a href='/parent/{n}'>Parent</a></div></li>"
    for n in range(14)
)
#: A story summary in italics under a thread of short comments, as an old news-discussion
#: site lays it out: iawce keeps the thread, both peers drop it.
THREAD_PAGE = (
    "<html><head><title>Council to repair the stone bridge</title></head><body><div id=wrapper>"
    "<article><header><h2><a href='/story/1'>Council to repair the stone bridge</a></h2>"
    "<div>Posted by editor on Tuesday July 24, @10:00AM</div></header>"
    f"<div><i>{SUMMARY}</i></div></article><div id=discussion><ul>{COMMENTS}</ul></div></div></body></html>"
)
URL = "http://bridge.example/story/1"


def test_the_ensemble_takes_the_peers_story_over_iawces_thread_on_an_article():
    page = Page(THREAD_PAGE, URL, "article")
    iawce = build_extractor("iawce").extract(page)
    assert iawce is not None and "(Score:3, Insightful)" in iawce.text  # the page's premise
    found = build_extractor("ensemble", Settings()).extract(page)
    assert found is not None and found.extractor in {"ensemble:trafilatura", "ensemble:readability"}
    assert "Insightful" not in found.text and "temporary footbridge" in found.text
    peers = {name: build_extractor(name).extract(page) for name in ("trafilatura", "readability")}
    texts = [tokens(extraction.text) for extraction in peers.values() if extraction is not None]
    assert found.quality == pytest.approx(word_prf(*texts).f1)  # the peers' agreement
    assert found.title == "Council to repair the stone bridge"  # the metadata module's, as always
    off = Settings({"PAGESIGHT_EXTRACTOR_OPTIONS": {"ensemble": {"consensus": {"enabled": False}}}})
    kept = build_extractor("ensemble", off).extract(page)
    assert kept is not None and "Insightful" in kept.text


def test_the_second_peer_runs_only_when_the_first_leaves_a_consensus_possible():
    ensemble = build_extractor("ensemble", Settings())
    readability = ensemble.candidates["readability"]
    calls = []

    class Counting:
        def extract(self, page):
            calls.append(page.url)
            return readability.extract(page)

    ensemble.candidates["readability"] = Counting()
    near = f"<html><body><article><h1>Bridge</h1>{''.join(f'<p>{line}</p>' for line in STORY.splitlines())}</article></body></html>"
    assert ensemble.extract(Page(near, "http://bridge.example/2", "article")) is not None
    assert calls == []  # iawce and trafilatura agree: no consensus can replace iawce
    assert ensemble.extract(Page(THREAD_PAGE, URL, "article")).extractor != "ensemble:merge"
    assert calls == [URL]


def test_the_ensemble_runs_no_peer_for_a_consensus_its_lead_rules_out():
    """With the full stage off, the peers run for the consensus only: not on a story in
    long lines, and on the thread page, whose comment headers are short lines."""
    ensemble = build_extractor(
        "ensemble", Settings({"PAGESIGHT_EXTRACTOR_OPTIONS": {"ensemble": {"confident": 0.0}}})
    )
    ran = []
    for name in ensemble.consensus.peers:
        peer = ensemble.candidates[name]

        class Counting:
            def extract(self, page, name=name, peer=peer):
                ran.append(name)
                return peer.extract(page)

        ensemble.candidates[name] = Counting()
    story = f"<html><body><article><h1>Bridge</h1>{''.join(f'<p>{line}</p>' for line in (STORY + chr(10) + REPLIES).splitlines())}</article></body></html>"
    assert ensemble.extract(Page(story, "http://bridge.example/3", "article")) is not None
    assert ran == []
    assert ensemble.extract(Page(THREAD_PAGE, URL, "article")).extractor != "ensemble:merge"
    assert ran[0] == "trafilatura"


def test_the_ensembles_peers_run_without_their_own_metadata():
    ensemble = build_extractor("ensemble", Settings())
    assert not ensemble.candidates["trafilatura"].options.with_metadata
    assert not ensemble.candidates["readability"].options.with_metadata
    assert build_extractor("trafilatura", Settings()).options.with_metadata  # the extractor itself keeps it
    found = ensemble.extract(Page(THREAD_PAGE, URL, "article"))
    assert found is not None and found.title == "Council to repair the stone bridge"


def test_a_lead_asked_for_comments_keeps_them_through_the_ensemble(caplog):
    settings = Settings({"PAGESIGHT_EXTRACTOR_OPTIONS": {"iawce": {"include_comments": True}}})
    with caplog.at_level("INFO", logger="pipelines.extraction.ensemble"):
        ensemble = build_extractor("ensemble", settings)
    assert ensemble.consensus is None and "include_comments" in caplog.text
    found = ensemble.extract(Page(THREAD_PAGE, URL, "article"))
    assert found is not None and "About time they fixed it." in found.text


def test_the_ensemble_asks_no_consensus_on_a_page_typed_list():
    found = build_extractor("ensemble", Settings()).extract(Page(THREAD_PAGE, URL, "list"))
    assert found is not None and "Insightful" in found.text
    assert len(tokens(found.text)) > 2 * len(tokens(SUMMARY))


def test_a_page_over_max_words_is_its_leads_extraction_alone(caplog):
    """The budget that keeps a book-sized page's time and memory bounded: over
    ``max_words`` no other candidate runs (neither the cheap stage's nor the peers), nor the
    merge, and the quality is not estimated (no training page comes near that size)."""
    settings = Settings({"PAGESIGHT_EXTRACTOR_OPTIONS": {"ensemble": {"max_words": 100}}})
    ensemble = build_extractor("ensemble", settings)
    ran = []

    class Refusing:
        def __init__(self, name):
            self.name = name

        def extract(self, page):
            ran.append(self.name)
            return None

    lead = ensemble.cheap.candidates[0]
    for name in set(ensemble.full.candidates) - {lead}:
        ensemble.candidates[name] = Refusing(name)
    with caplog.at_level("INFO", logger="pipelines.extraction.ensemble"):
        found = ensemble.extract(Page(THREAD_PAGE, URL, "article"))
    assert ran == [] and found is not None and "Insightful" in found.text  # iawce's thread stays
    assert found.extractor == f"ensemble:{lead}" and found.quality is None
    assert found.title  # the metadata module's fields, as on every page
    assert (
        f"{URL} has " in caplog.text
        and "over max_words (100): the lead's extraction alone, not estimated" in caplog.text
    )
    ensemble.options = replace(ensemble.options, max_words=10_000)
    ensemble.extract(Page(THREAD_PAGE, URL, "article"))
    assert "trafilatura" in ran  # within the budget the consensus asks the peers
    ran.clear()
    ensemble.options = replace(ensemble.options, max_words=100)
    ensemble.candidates[lead] = Refusing(lead)  # a lead that finds nothing: no one else runs
    assert ensemble.extract(Page(THREAD_PAGE, URL, "article")) is None and ran == [lead]
