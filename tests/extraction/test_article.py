"""The paper's std-dev descent (every branch, the 100 threshold, CJK lengths) and the
improved descent."""

import pytest

from pipelines.extraction import Page, build_extractor
from pipelines.extraction.article import article_element_paper, content_element, descent_start
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import ARTICLE

OPTIONS = IawceOptions()
PAPER_GAP = OPTIONS.paper_gap


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def tree(body: str):
    root = parse_html(f"<html><body>{body}</body></html>")
    body_element = body_of(root)
    return body_element, subtree_lengths(body_element)


def iawce_text(html: str, url: str) -> str:
    """The text iawce extracts from an article page, which must hold some."""
    found = build_extractor("iawce").extract(Page(html, url, ARTICLE))
    assert found is not None
    return found.text


def by_id(body, element_id):
    return next(el for el in body.iter() if el.get("id") == element_id)


def test_a_leaf_returns_its_parent():
    body, lengths = tree(f'<div id="root"><p id="leaf">{words(5)}</p></div>')
    assert article_element_paper(by_id(body, "leaf"), lengths, PAPER_GAP) is by_id(body, "root")


def test_a_single_child_is_recursed_into():
    # body -> root (single child) -> three children with a big gap: the descent got there.
    body, lengths = tree(
        f'<div id="root"><div id="a">{words(20)}</div><div id="b">{words(200)}</div><div id="c">{words(10)}</div></div>'
    )
    assert article_element_paper(body, lengths, PAPER_GAP) is by_id(body, "a")


def test_gap_over_std_and_over_100_returns_the_earlier_of_the_two_longest():
    # lengths 20, 200, 10: gap 180 > std 82 and > 100; m2 ("a") comes before m1 ("b").
    body, lengths = tree(
        f'<div id="root"><div id="a">{words(20)}</div><div id="b">{words(200)}</div><div id="c">{words(10)}</div></div>'
    )
    assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, "a")
    # With m1 first, the earlier one is m1.
    body, lengths = tree(
        f'<div id="root"><div id="b">{words(200)}</div><div id="a">{words(20)}</div><div id="c">{words(10)}</div></div>'
    )
    assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, "b")


def test_gap_over_std_but_not_over_100_returns_the_element_itself():
    # lengths 10, 100, 5: gap 90 > std 43.6, but 90 <= 100.
    body, lengths = tree(
        f'<div id="root"><div id="a">{words(10)}</div><div id="b">{words(100)}</div><div id="c">{words(5)}</div></div>'
    )
    assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, "root")


def test_the_threshold_is_strictly_more_than_100():
    assert PAPER_GAP == 100
    for longest, expected in ((110, "root"), (111, "a")):  # gaps 100 and 101 over "a" (10)
        body, lengths = tree(
            f'<div id="root"><div id="a">{words(10)}</div><div id="b">{words(longest)}</div>'
            f'<div id="c">{words(5)}</div></div>'
        )
        assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, expected), (
            longest
        )


def test_gap_within_std_recurses_into_the_longest_child():
    # lengths 100, 90, 0, 0: gap 10 < std 47.6, so recurse into "a"; inside it, 60 vs 40
    # is a gap of 20 > std 10 and <= 100, so "a" itself.
    body, lengths = tree(
        f'<div id="root"><div id="a"><p>{words(60)}</p><p>{words(40)}</p></div>'
        f'<div id="b">{words(90)}</div><div id="c"></div><div id="d"></div></div>'
    )
    assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, "a")


def test_lengths_of_chinese_text_count_characters():
    # 150 and 10 characters: a gap of 140 > 100 characters. Counted as whitespace words
    # both would be one word, and the descent would take another branch.
    long_text, short_text = "中" * 150, "文" * 10
    body, lengths = tree(
        f'<div id="root"><div id="a">{short_text}</div><div id="b">{long_text}</div><div id="c">{short_text}</div></div>'
    )
    assert lengths[by_id(body, "b")] == 150
    assert article_element_paper(by_id(body, "root"), lengths, PAPER_GAP) is by_id(body, "a")


def test_improved_descent_follows_a_dominant_child_and_stops_where_text_spreads():
    body, lengths = tree(
        f'<div id="page"><div id="menu">{words(5)}</div><div id="content">'
        f"<p>{words(40)}</p><p>{words(50)}</p><p>{words(45)}</p></div></div>"
    )
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "content")


def test_improved_descent_ignores_link_text_unless_asked():
    links = "".join(f'<a href="/{i}">{words(3)}</a>' for i in range(60))
    body, lengths = tree(
        f'<div id="page"><div id="links">{links}</div><div id="story"><p>{words(60)}</p><p>{words(40)}</p></div></div>'
    )
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "story")
    assert content_element(body, lengths, share=0.6, count_links=True) is by_id(body, "links")


def test_improved_descent_is_not_drawn_into_one_posts_long_log():
    posts = "".join(f'<div class="post"><p>{words(30)}</p></div>' for _ in range(4))
    body, lengths = tree(
        f'<div id="thread">{posts}<div class="post" id="log-post"><p>{words(10)}</p>'
        f"<pre><code>{words(900)}</code></pre></div></div>"
    )
    assert lengths.preformatted[by_id(body, "log-post")] == 900
    assert lengths.preformatted.get(body.find(".//p")) is None
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "thread")


def test_improved_descent_still_finds_a_listing_that_is_the_page():
    body, lengths = tree(
        f'<div id="page"><h1 id="title">{words(4)}</h1><pre id="listing">{words(800)}</pre></div>'
    )
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "listing")


def test_the_descent_starts_from_the_page_s_main_when_it_holds_enough_of_the_text():
    page = (
        f'<div id="site"><main id="main"><h1>{words(6)}</h1><p>{words(120)}</p><p>{words(110)}</p></main></div>'
        f'<div class="x-bar"><div id="testimonials"><p>{words(150)}</p><p>{words(140)}</p></div></div>'
    )
    body, lengths = tree(page)
    assert content_element(body, lengths, OPTIONS.article_share) is body  # the bar holds more
    start = descent_start(body, lengths, OPTIONS.main_share)
    assert start is by_id(body, "main")
    assert content_element(start, lengths, OPTIONS.article_share) is by_id(body, "main")
    body, lengths = tree(page.replace("<main", '<div role="main"').replace("</main>", "</div>"))
    assert descent_start(body, lengths, OPTIONS.main_share) is by_id(body, "main")


def test_the_descent_starts_from_the_body_without_one_main_holding_enough_text():
    story = f"<p>{words(200)}</p>"
    body, lengths = tree(f'<main id="hero"><h1>{words(5)}</h1></main><div id="story">{story}</div>')
    assert descent_start(body, lengths, OPTIONS.main_share) is body
    body, lengths = tree(f"<main>{story}</main><main>{story}</main>")
    assert descent_start(body, lengths, OPTIONS.main_share) is body
    body, lengths = tree(f'<main id="outer"><main>{story}</main></main>')  # nested: the outermost
    assert descent_start(body, lengths, OPTIONS.main_share) is by_id(body, "outer")


def test_iawce_leaves_out_a_testimonials_bar_longer_than_the_story():
    story = "".join(
        f"<p>Paragraph {n} of the pediatrician's advice on toddler sleep, in plain words.</p>"
        for n in range(16)
    )
    quotes = "".join(
        f"<p>Review {n}: Dr. Turner always takes the time to listen and answer every question we have.</p>"
        for n in range(16)
    )
    html = (
        "<html><head><title>Sleep training</title></head><body><div class='x-site'><main>"
        f"<h1>Sleep training your toddler</h1>{story}</main></div><div class='x-bar'>{quotes}</div></body></html>"
    )
    text = iawce_text(html, "https://clinic.example/sleep")
    assert "Paragraph 15" in text and "Review 0" not in text


def test_the_descent_stops_above_the_replies_to_keep_the_question_before_them():
    answers = "".join(f'<div class="answer"><p>{words(60)}</p></div>' for _ in range(5))
    body, lengths = tree(
        f'<div id="mainbar"><div id="question"><p>{words(60)}</p></div><div id="answers">{answers}</div></div>'
    )
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "answers")
    assert content_element(body, lengths, OPTIONS.article_share, article=OPTIONS) is by_id(body, "mainbar")


def test_a_menu_of_short_labels_or_a_short_paragraph_before_the_story_is_no_lead():
    story = f'<div id="story">{"".join(f"<p>{words(60)}</p>" for _ in range(5))}</div>'
    menu = "".join(f"<li><span>{words(4)}</span></li>" for _ in range(12))
    body, lengths = tree(f'<div id="page"><ul id="menu">{menu}</ul>{story}</div>')
    assert content_element(body, lengths, OPTIONS.article_share, article=OPTIONS) is by_id(body, "story")
    body, lengths = tree(f'<div id="page"><p id="kicker">{words(30)}</p>{story}</div>')
    assert content_element(body, lengths, OPTIONS.article_share, article=OPTIONS) is by_id(body, "story")
    body, lengths = tree(f'<div id="page"><p id="standfirst">{words(45)}</p>{story}</div>')
    assert content_element(body, lengths, OPTIONS.article_share, article=OPTIONS) is by_id(body, "page")


def test_iawce_keeps_a_question_page_s_question_and_its_answers():
    question = (
        "<p>Is there a keyboard shortcut that moves the focus to the files pane of the explorer window? "
        "Tabbing through every control until a selection rectangle appears takes far too long.</p>"
        "<p>I have tried the view menu and the address bar shortcuts, and neither of them does it.</p>"
    )
    answers = "".join(
        f'<div class="answer"><div class="votes">{n}</div><p>Answer {n}: press the key that cycles the panes, '
        "then the arrows move within the list of files. It works in every version I have used, and the "
        "setting survives a restart of the shell, so nothing has to be configured again later.</p></div>"
        for n in range(6)
    )
    html = (
        "<html><head><title>Focus the files pane</title></head><body><div id='content'><div id='mainbar'>"
        f"<div class='question'><h1>Focus the files pane</h1>{question}</div>"
        f"<div id='answers'><h2>6 Answers</h2>{answers}</div></div></div></body></html>"
    )
    text = iawce_text(html, "https://qa.example/questions/1")
    assert "Is there a keyboard shortcut" in text and "Answer 5:" in text


def thread(replies: int) -> str:
    """A thread whose first post holds most of the text, then ``replies`` like it."""
    reply = f'<article class="message message--post"><p>{words(30)}</p></article>'
    return (
        '<div id="thread"><article id="first" class="message message--post is-first">'
        f"<p>{words(150)}</p><p>{words(150)}</p></article>{reply * replies}</div>"
    )


def story_then(story_class: str, block_class: str, blocks: int, block_words: int) -> str:
    """A story of eight paragraphs, then ``blocks`` blocks of one paragraph each."""
    story = "".join(f"<p>{words(60)}</p>" for _ in range(8))
    block = f'<div class="{block_class}"><p>{words(block_words)}</p></div>'
    return f'<div id="page"><div id="story" class="{story_class}">{story}</div>{block * blocks}</div>'


@pytest.mark.parametrize(
    ("html", "reached"),
    [
        pytest.param(thread(3), "thread", id="three replies like the longest post"),
        pytest.param(story_then("post-body", "post-body", 2, 40), "story", id="two like blocks"),
        pytest.param(story_then("post-body", "teaser", 4, 20), "story", id="four unlike blocks"),
        pytest.param(  # a Drupal theme names every component "paragraph paragraph--type--X"
            story_then(
                "paragraph paragraph--type--text", "paragraph paragraph--type--reference-block", 4, 20
            ),
            "story",
            id="four like-named components that are not posts",
        ),
    ],
)
def test_the_descent_stops_above_the_longest_child_only_for_replies_that_repeat_a_post(html, reached):
    body, lengths = tree(html)
    assert content_element(body, lengths, OPTIONS.article_share, article=OPTIONS) is by_id(body, reached)


def test_without_the_lead_options_the_descent_goes_into_the_longest_post():
    body, lengths = tree(thread(3))
    assert content_element(body, lengths, OPTIONS.article_share) is by_id(body, "first")


def test_iawce_keeps_every_post_of_a_thread_whose_first_post_is_the_longest():
    first = "".join(
        f"<p>Paragraph {n} of the opening post: the build log of a quiet desktop computer, with the parts "
        "chosen, the fans tuned and the temperatures measured under a long render.</p>"
        for n in range(8)
    )
    replies = "".join(
        f'<article class="message message--post"><div class="user">member{n}</div><p>Reply {n}: thanks for '
        "the write-up, the fan curve section answered the question I had about idle noise on my own build.</p>"
        "</article>"
        for n in range(4)
    )
    html = (
        "<html><head><title>Quiet build log</title></head><body><div class='block-body'>"
        f"<article class='message message--post is-first'><h1>Quiet build log</h1>{first}</article>"
        f"{replies}</div></body></html>"
    )
    text = iawce_text(html, "https://forum.example/threads/1")
    assert "Paragraph 7 of the opening post" in text and "Reply 3:" in text
