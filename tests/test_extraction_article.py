"""The paper's std-dev descent (every branch, the 100 threshold, CJK lengths) and the
improved descent."""

from pipelines.extraction.article import article_element_paper, content_element
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.options import IawceOptions

OPTIONS = IawceOptions()
PAPER_GAP = OPTIONS.paper_gap


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def tree(body: str):
    root = parse_html(f"<html><body>{body}</body></html>")
    body_element = body_of(root)
    return body_element, subtree_lengths(body_element)


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
