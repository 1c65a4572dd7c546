"""Plain text and Markdown rendering of an element."""

from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.textformat import is_escaped_markup, render_blocks, to_markdown, to_text

HTML = """<html><body>
<h1>Title  here</h1>
<p>Hello <a href="/x">world</a>, this   is <b>bold</b>.<br>Second line</p>
<div>Loose <span>inline</span> text<div>nested block</div>tail text</div>
<ul><li>one</li><li>two<ul><li>two-a</li></ul></li></ul>
<ol><li>first</li><li>second</li></ol>
<table><tr><th>City</th><th>Rain</th></tr><tr><td>Oslo</td><td><a href="https://o.example">42</a></td></tr></table>
<blockquote><p>Quoted words</p></blockquote>
<pre>code  line 1
   line 2</pre>
<script>ignored()</script>
</body></html>"""


def blocks():
    return render_blocks(body_of(parse_html(HTML)), "https://site.example/a/")


def test_plain_text_format():
    assert to_text(blocks()) == (
        "Title here\n\n"
        "Hello world, this is bold.\nSecond line\n\n"
        "Loose inline text\n\nnested block\n\ntail text\n\n"
        "one\n\ntwo\n\ntwo-a\n\nfirst\n\nsecond\n\n"
        "City | Rain\n\nOslo | 42\n\n"
        "Quoted words\n\n"
        "code  line 1\n   line 2"
    )


def test_markdown_format():
    assert to_markdown(blocks()) == (
        "# Title here\n\n"
        "Hello [world](https://site.example/x), this is **bold**.\nSecond line\n\n"
        "Loose inline text\n\nnested block\n\ntail text\n\n"
        "- one\n- two\n  - two-a\n1. first\n2. second\n\n"
        "| City | Rain |\n| --- | --- |\n| Oslo | [42](https://o.example) |\n\n"
        "> Quoted words\n\n"
        "```\ncode  line 1\n   line 2\n```"
    )


def test_block_kinds_levels_and_link_density():
    found = blocks()
    assert [b.kind for b in found][:2] == ["heading", "paragraph"]
    assert found[0].level == 1
    paragraph = found[1]
    assert paragraph.length == 7 and paragraph.link_length == 1
    assert paragraph.link_density == 1 / 7


def test_skip_and_substitutes():
    root = parse_html("<html><body><p>keep</p><div class='x'>drop</div><div id='s'>old</div></body></html>")
    body = body_of(root)
    substitute = render_blocks(parse_html("<p>new text</p>"))[0]
    found = render_blocks(
        body, skip=lambda el: el.get("class") == "x", substitutes={body.find("div[@id='s']"): substitute}
    )
    assert to_text(found) == "keep\n\nnew text"


def test_cjk_text_keeps_its_characters():
    body = body_of(parse_html("<html><body><h2>日本語の見出し</h2><p>本文です。  二行目</p></body></html>"))
    assert to_text(render_blocks(body)) == "日本語の見出し\n\n本文です。 二行目"


def test_a_malformed_link_becomes_no_url_instead_of_raising():
    from pipelines.extraction.dom import absolute_url

    assert absolute_url("http://[broken/path", "https://a.example/") == ""
    assert absolute_url("/ok", "https://a.example/x/") == "https://a.example/ok"


def test_a_paragraph_of_invisible_characters_is_no_line_but_they_stay_inside_words():
    """Page builders space paragraphs with ``<p>&zwj;</p>``: nothing shows, so no line in
    either format; a joiner inside an emoji sequence or a word is kept."""
    body = body_of(
        parse_html(
            "<html><body><p>One</p><p>&zwj;</p><p> &#8203; &shy;</p><br>&#65279;"
            "<p>Two \U0001f468\u200d\U0001f469 \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645</p></body></html>"
        )
    )
    found = render_blocks(body)
    assert (
        to_text(found)
        == "One\n\nTwo \U0001f468\u200d\U0001f469 \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    )
    assert to_markdown(found) == to_text(found)


def test_escaped_markup_is_never_a_line_outside_code():
    html = (
        "<html><body><article><p>The pier reopens in spring, the board said on Monday.</p>"
        "<p>&lt;img src=&quot;https://cdn.example/pier.jpg&quot; alt=&quot;The pier&quot; /&gt;</p>"
        "<p>&lt;/div&gt;&lt;/div&gt;</p>"
        "<p>Wrap the map in a &lt;figure&gt; element, the guide says, and give it a caption.</p>"
        "<pre>&lt;figure&gt;&lt;img src=&quot;map.png&quot;&gt;&lt;/figure&gt;</pre>"
        "</article></body></html>"
    )
    root = parse_html(html)
    text = to_text(render_blocks(body_of(root)))
    assert "cdn.example" not in text and "</div>" not in text
    assert "Wrap the map in a <figure> element" in text  # prose that names a tag stays
    assert '<figure><img src="map.png"></figure>' in text  # code is code
    assert is_escaped_markup('<img src="x.jpg" alt="A pier" />') and not is_escaped_markup("a < b > c")
