"""The denoiser's thresholds, in one options object passed through every step (as
trafilatura passes its ``Extractor`` options), so that a benchmark can sweep them without
editing modules: ``PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"denoise": {"max_hidden_share": 0.3}}}``
(the ``denoise`` field of :class:`~pipelines.extraction.options.IawceOptions`). Measurements
are iawce's word F1 on WCXB dev's training / validation domains unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DenoiseOptions:
    """Thresholds of the denoising steps, grouped by the module of the steps that read them."""

    # Read by the steps of .hidden.
    #: Invisible elements holding more than this share of the page's text are a page the
    #: render did not reveal, not hidden boilerplate (:func:`.hidden.remove_invisible`). iawce on the
    #: captures of WCXB dev's training and validation domains (1,086 pages, rendered DOM and
    #: boxes), word F1: 0.840 trusting every verdict; 0.863 / 0.862 / 0.861 with this share at
    #: 0.2 / 0.35 / 0.5; 0.863 with no boxes at all.
    max_hidden_share: float = 0.2

    # Read by .state: the steps that spare large blocks, the declared description.
    #: The steps that spare large blocks (:meth:`.state.DenoisingPage.small`) leave an element alone
    #: when it holds more than this share of the page's text: that is misnested markup (an
    #: unclosed <header> that swallowed the page), not noise.
    max_removed_share: float = 0.7

    #: A product's declared description (JSON-LD) must be this long (words) to be looked for.
    min_declared_description_words: int = 15

    #: ... and a text node this long (characters) that it holds marks where the page shows it.
    min_declared_fragment_chars: int = 20

    # Read by the steps of .widgets.
    #: A <form> with at most this much text (words; CJK characters) is a search, login,
    #: contact or newsletter form and goes; a longer one wraps content (forum software wraps
    #: whole threads in a form).
    form_max_length: int = 100

    #: A short form goes with its frame, the outermost ancestor of at most this many words,
    #: when the frame invites the reader to sign up (``SIGN_UP_WORDS``): the newsletter box's
    #: heading, pitch and consent line ("Be the first to know!", "By signing up, you agree
    #: ..."). iawce on WCXB dev, word F1, training / validation domains: 0.8903 / 0.8695 →
    #: 0.8904 / 0.8702 (9 pages better, 3 worse whose gold keeps a sign-up or log-in box;
    #: travelnoire.com 0.83 → 1.00, mashable.com 0.82 → 0.86); at 40 words 0.8904 / 0.8702
    #: without mashable.com; without the words, Steam's buy boxes went too. On list pages one
    #: page changed, for the worse (4dayweek.io 0.36 → 0.34), so only articles do this.
    sign_up_frame_max_length: int = 60

    #: An element whose whole text is a JSON object or array this long (characters) is a
    #: script's data, not content (the data step): Avada's hidden ``DynamicProductValue`` spans,
    #: Amazon's ``aok-hidden`` grid state. Shorter JSON is left alone, and JSON in code always.
    #: With the UUIDs too (eBay's scrambled "Sponsored" labels were the longest text of its item
    #: pages' "Similar items" carousels): iawce on WCXB dev, training / validation domains,
    #: 0.8873 / 0.8564 → 0.8875 / 0.8628 (tribelifting.com 0.81 → 1.00; three eBay item pages
    #: 0.00-0.04 → 0.33-0.48), no page worse.
    min_data_chars: int = 200

    #: At least this many forms of one class that show no control and hold a paragraph are
    #: the page's posts: old Reddit wraps each comment in a ``usertext`` form.
    min_controlless_forms: int = 5

    # Read by the steps of .boilerplate.
    #: A block named only as a list of posts (``POST_LIST_WORDS``) goes when at least this
    #: share of its text is links.
    post_list_min_link_share: float = 0.1

    #: A page with more than this many outermost blocks named only by ``AUTHOR_WORDS`` keeps
    #: them all: those are a thread's posters.
    max_author_blocks: int = 2

    #: A filter panel (``FACET_WORDS``) goes when none of its texts is longer than this many
    #: words (option labels, not a product grid or a section of prose).
    facet_max_text_words: int = 20

    #: A story block of at least this many words is spared the class step's common words
    #: (ads, share, newsletter): almanac.com's Drupal ``body-ad-wrapper`` 0.20 → 0.99 and 0.32 → 0.99 word
    #: F1, hubermanlab.com's ``rich-text-newsletter-cms`` 0.24 → 1.00; iawce on WCXB dev,
    #: training / validation domains, 0.8793 / 0.8507 → 0.8808 / 0.8548, no page worse (the
    #: same at 300). Sparing it the article words too kept three Amazon pages' reviews
    #: (session 28, held-out domains).
    min_spared_story: int = 150

    # Read by the steps of .copies.
    #: A block of at least this many words whose text appears exactly twice on the page loses
    #: one copy (the duplicate step). iawce on WCXB dev's raw HTML, word F1, training /
    #: validation domains: 0.8730 / 0.8473 keeping both copies, 0.8759 / 0.8478 keeping one.
    min_duplicate_words: int = 20

    #: A block is found from a string of its text at least this long (characters) that occurs
    #: exactly twice on the page.
    min_duplicate_chars: int = 50

    #: Twins (two adjacent siblings of one tag and one text, no third beside them) of at least
    #: this many characters lose one copy however short (the twin step, on articles:
    #: :func:`twin_copies`). iawce on WCXB dev, training / validation domains: 0.89525 /
    #: 0.87626 -> 0.89562 / 0.87683 (31 pages better: eBay's screen-reader copies of each
    #: title and price, logo strips doubled for a scrolling loop; 6 worse by at most 0.01).
    #: Paragraphs stay (as two short ones alike always did: one page worse by 0.006 for it).
    #: Pairs among any number of siblings, runs of three or more included: 36 better, 10
    #: worse (a plan table's repeated rows, a docs page's identical tab panels); only the
    #: two children of an element: 14 better, none worse, half the gain. On list pages the
    #: twins are part of the cards the list ranking reads (artistcraftsman.com 0.68 -> 0.61).
    min_twin_chars: int = 3

    #: ... and at most this many, whitespace included: a bound on the cost (iawce's output is
    #: the same without it on every WCXB dev training and validation page).
    max_twin_chars: int = 2400

    #: A quotation (``<blockquote>``) goes when at least this share of its text, counted in
    #: strings of at least ``min_quoted_chars`` characters (shorter ones are attributions and
    #: buttons: "jtbell said:", "Click to expand..."), also stands outside every quotation on
    #: the page, and it has at least ``min_quote_chars`` such characters (the quoted step): a reply
    #: that quotes a post of the same thread then holds only its own words. iawce on WCXB dev's
    #: raw HTML, word F1, training / validation domains: 0.8892 / 0.8677 → 0.8902 / 0.8695 (20
    #: pages better, 16 worse, all forums but two: WCXB's gold drops the quoted copy on most
    #: forums and keeps it on some, physicsforums.com and tomshardware.com among them). A first
    #: version that counted any second copy, quoted or not: 0.8903 / 0.8695, 23 better and 20
    #: worse; with it, shares 0.5 and 0.95 scored 0.8901 on training.
    quoted_copy_share: float = 0.8

    min_quoted_chars: int = 20

    min_quote_chars: int = 40

    # Read by the steps of .discussion (and the teaser step: a story besides the teasers).
    #: Words of ``<p>`` text under one parent (a story) the page must keep outside its
    #: discussion for the discussion to go. iawce on WCXB dev's training / validation domains,
    #: word F1: 0.8692 / 0.8448 without this rule, 0.8713 / 0.8468 at 50 (forum pages 0.738 →
    #: 0.773 / 0.627 → 0.657; article pages 0.945 → 0.944 / 0.942), 0.8712 at 100, 0.8704 at 150.
    #: A story written as lines between ``<br>`` (old blog and Slashdot-style posts) counts
    #: too: 0.8718 → 0.8728 on the training domains, validation unchanged (0.8469).
    #: It is the only test: a second one, 150 words of any text kept besides, left the
    #: comments under short blog posts (without it, iawce with no page type on the training
    #: splits: Dragnet 0.8628 -> 0.8679, 8 pages better, 1 worse by 0.03; WCXB dev 0.8995,
    #: no page changed; at 100 words, Dragnet 0.8660).
    min_story_besides_discussion: int = 50

    #: A reply's subject line (``REPLY_SUBJECT``) is at most this many words.
    reply_subject_max_words: int = 20

    #: A page with this many post chrome elements is a thread, where an element whose whole
    #: text is a number (``LONE_NUMBER``: votes, a poster's post count) is chrome too, outside
    #: ordered lists: 0.8907 / 0.8703 → 0.8908 / 0.8704 (26 pages better, 21 of them threads;
    #: 5 worse by at most 0.003); at 10, 17 better and 2 worse.
    min_thread_chrome: int = 5

    # Read by the steps of .teasers.
    #: A teaser heading is at most this long (words; CJK characters).
    teaser_heading_max_length: int = 8

    #: ... and this many characters.
    teaser_heading_max_chars: int = 50

    #: The block of a teaser heading is its nearest ancestor with this many link targets (two:
    #: Valnet's one-story "Related" cards inside the text, a title and its author; iawce on
    #: WCXB dev, training / validation domains, 3 -> 2: two pages better, xda-developers.com
    #: 0.74 -> 0.76, none worse; 1: four better, one worse).
    teaser_min_links: int = 2

    #: ... of whose text at least this share is link text,
    teaser_min_link_share: float = 0.25

    #: ... and whose length is at most this share of the story's.
    teaser_max_story_share: float = 0.5

    #: A block of at least this many ``<article>`` children is a list of teaser cards when each
    #: has a linked title (``<h2>``-``<h5>``, or an element whose class names a title: a
    #: theme's ``<div class="title">``; Elementor's ``elementor-post__title``; iawce on WCXB
    #: dev, training / validation domains, 0.8938 / 0.8752 -> 0.8938 / 0.8761, one page
    #: better: beefound.agency 0.83 -> 0.99, none worse), ...
    teaser_min_cards: int = 3

    #: ... holds at most this many words (title, date, excerpt), ...
    teaser_card_max_length: int = 120

    #: ... and the block is at most this share of the story's length (a Michelin guide's
    #: restaurant cards, ten times its intro, are the content). Elementor's posts widget beside
    #: a post (omalleytunstall.com 0.55 → 0.98): iawce on WCXB dev, training / validation
    #: domains, 0.8875 / 0.8628 → 0.8876 / 0.8648, 4 pages better, 1 worse (a service page
    #: whose gold keeps its "insights" cards); at 1.0: 0.8876 / 0.8628, 2 better, none worse.
    #: Cards whose excerpts are all cut short ("...") are teasers at any length (session 40:
    #: searchlight.vc 0.66 -> 1.00, no other training or validation page changed; without any
    #: bound blog.resy.com's restaurant cards, the content, went: 0.98 -> 0.11).
    teaser_cards_max_story_share: float = 1.5

    # Read by the steps of .labels.
    #: A photo credit is at most this long (words; CJK characters).
    photo_credit_max_length: int = 12
