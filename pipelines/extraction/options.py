"""The I-AWCE extractors' tuned thresholds, in one options object passed through every
step (as trafilatura passes its ``Extractor`` options), so a benchmark can sweep them
without editing modules. Measurements are on WCXB dev's tune split (see README
"Extraction") unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipelines.extraction.denoise.options import DenoiseOptions


@dataclass(frozen=True)
class IawceOptions:
    """Thresholds of ``iawce`` and ``iawce-paper`` (each uses the ones its steps need)."""

    #: Share of its parent's text a child must hold to be descended into, for article
    #: pages (text outside links) and list pages (all text: links are a list's content).
    article_share: float = 0.7
    list_share: float = 0.8
    #: An article's descent starts from the page's one ``<main>`` (or ``role="main"``)
    #: when it holds at least this share of the page's text outside links
    #: (:func:`article.descent_start`). iawce on WCXB dev, word F1, training / validation
    #: domains: 0.8852 / 0.8564 from the body, 0.8859 / 0.8564 at 0.3 to 0.45 (3 pages
    #: better, none worse: a testimonials bar longer than the story no longer holds the
    #: descent at the body), 0.8851 at 0.2 (a portfolio whose ``<main>`` is its header).
    main_share: float = 0.4
    #: An article's descent stops above the child holding most of the text when the
    #: children before it are a lead (:func:`article.leads`): those holding a paragraph
    #: of ``lead_paragraph_words`` words hold together ``lead_words`` words and
    #: ``lead_share`` of the text. The descent used to drop a Q&A site's question, a
    #: thread's first post, a product's pitch. iawce on WCXB dev, word F1, training /
    #: validation domains: 0.8908 / 0.8704 without, 0.8929 / 0.8747 (49 pages better, 18
    #: worse: a video's transcript, a forum's notices); 0.8923 / 0.8750 counting every
    #: child before (28 worse: menus, tables of contents, buy boxes; there words 30 to 60
    #: and share 0.06 to 0.10 were within 0.0002 on training); 30 words and 0.06 with
    #: the paragraph test 0.8928 / 0.8745; a 10- or 25-word paragraph 0.8924 / 0.8927.
    lead_words: int = 40
    lead_share: float = 0.08
    lead_paragraph_words: int = 15
    #: It stops there too when that child is a post (by its class) and at least this
    #: many children after it repeat it (its tag and first class name, a paragraph each)
    #: and hold a lead's size together (:func:`article.repeated_after`): a thread's
    #: replies after its longest post. iawce on WCXB dev, word F1, training / validation
    #: domains: 0.8929 / 0.8747 without, 0.8933 / 0.8750 at 3 for any class (4 pages
    #: better, none worse; 0.8930 / 0.8750 at 2, 5 better and 5 worse; 0.8932 at 4), 0.8932
    #: / 0.8747 for posts only (2 threads better, none worse). The any-class rule took in
    #: a held-out article's related cards (a Drupal theme's ``paragraph`` components), and
    #: its two other gains were one theme on two sites: posts only is shipped.
    repeat_siblings: int = 3
    #: Paragraphs of an article with a larger share of link text are navigation.
    max_link_density: float = 0.7
    #: Share of its parent's text the block holding the items must keep for the list
    #: region to narrow to it. On WCXB dev's listing and collection pages and the demo
    #: web's list pages (whose gold is the items alone): 0.5 costs WCXB 0.003 word F1
    #: against not narrowing and lifts the demo's table-layout government site's lists
    #: from 0.55 to 0.80 (0.88 with the pairs of ``listing.is_list``).
    items_share: float = 0.5
    #: A list region is given the headings and the paragraphs of at least this many words
    #: that the block it shares with the page's ``<h1>`` holds before it (from the title
    #: on) and after it (:func:`listing.list_surroundings`). iawce on WCXB dev's listing and
    #: collection pages, training / validation domains (130 / 23), word F1 0.7488 / 0.7927
    #: -> 0.7602 / 0.8000 with what comes before (39 pages better: ergotron.com 0.83 ->
    #: 1.00, stackoverflow.blog 0.69 -> 0.92; 28 worse), -> 0.7656 / 0.8076 with what comes
    #: after too (8 more better: surplusgiant.com 0.68 -> 0.96, apnews.com 0.79 -> 0.94;
    #: 8 worse, the most imdb.com 0.70 -> 0.66), readers' feedback left out (before that,
    #: goodreads.com's comments and greenroads.com's testimonials cost 0.11 each). 8 and
    #: 12 words within 0.0001 of 10 before, 20 the same as 10 after; every block before
    #: (item lists and table rows too) 0.7591 / 0.7985; what comes after dropped when
    #: longer than half the region, 0.7595 / 0.8076 (before the feedback rule).
    surrounding_min_words: int = 10
    #: How many top-ranked (depth, class) keys compete on average text length (the
    #: paper's n).
    top_n: int = 15
    #: The improved ranking's smallest list (but see ``listing.is_list`` for pairs).
    min_items: int = 3
    #: Gap (in words, or CJK characters) between the two longest children above which
    #: the earlier of the two is the content (the paper's constant).
    paper_gap: int = 100
    #: Page-type guess (no classifier): a page whose denoised text is more than this
    #: share link text is a list when the list ranking finds ``card_min_count`` repeated
    #: blocks ...
    list_link_share: float = 0.5
    #: ... and so is one whose repeated blocks (the list ranking's pick) are at least
    #: this many, every one with a link, short on average, and hold this share of the text.
    card_min_count: int = 3
    card_max_average_length: float = 40
    card_min_share: float = 0.5
    #: ... unless the page tells one story: the article reading's region holds at least
    #: ``story_min_words`` words (CJK: characters) outside links, with at most
    #: ``story_max_link_density`` of its text linked. Chosen on both families' training
    #: splits (the pair whose worse family gains most; WCXB dev and Dragnet train, iawce
    #: with no page type: +0.0024 and +0.0180 word F1).
    story_min_words: int = 30
    story_max_link_density: float = 0.2
    #: The denoiser's thresholds, which every step above reads the page through:
    #: ``{"iawce": {"denoise": {"max_hidden_share": 0.3}}}`` sets one.
    denoise: DenoiseOptions = field(default_factory=DenoiseOptions)
    #: Keep the reader discussion under an article (comment threads, which the discussion
    #: step removes) after its content, as trafilatura's ``include_comments`` does:
    #: ``{"iawce": {"include_comments": true}}``. Off: a corpus of stories wants none.
    include_comments: bool = False
