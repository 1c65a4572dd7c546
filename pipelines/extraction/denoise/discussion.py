"""Threads and comments: a reply's subject line, the chrome a forum prints beside each
post, and reader discussion under a story."""

from __future__ import annotations

from collections import Counter

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import inside, longest_story, noise_marker, outermost_of, shown_length
from pipelines.extraction.denoise.vocabulary import (
    CHROME_SPARING_TAGS,
    DISCUSSION,
    INLINE_TAGS,
    LONE_NUMBER,
    NUMBERED_POST,
    POST_CHROME,
    POST_CHROME_CANDIDATES,
    PROTECTED_TAGS,
    REPLY_PREFIX,
    REPLY_SUBJECT,
)
from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.lengths import normalize_space, text_length


def reply_subjects(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The elements of ``body`` that hold only a reply's subject line
    (``REPLY_SUBJECT``, the widest such element around it), when the same subject heads
    at least two of them: "Re: <the thread's title>" over each reply."""
    holders: dict[HtmlElement, str] = {}
    for string in body.xpath(".//text()"):
        if not REPLY_PREFIX.match(string):
            continue
        holder = string.getparent()
        if string.is_tail:
            holder = holder.getparent()
        if holder is None or holder is body:
            continue
        subject = normalize_space(holder.text_content())
        if not REPLY_SUBJECT.match(subject) or text_length(subject) > options.reply_subject_max_words:
            continue
        while (parent := holder.getparent()) is not None and parent is not body:
            if normalize_space(parent.text_content()) != subject:
                break
            holder = parent
        holders[holder] = subject.lower()
    repeated = Counter(holders.values())
    return [holder for holder, subject in holders.items() if repeated[subject] >= 2]


def post_chrome(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The outermost elements of ``body`` whose whole text is a forum's chrome around a
    post (``POST_CHROME``), outside code and table cells, and on a thread the lone numbers
    outside ordered lists too."""
    chrome: list[HtmlElement] = []
    numbers: list[HtmlElement] = []
    for element in POST_CHROME_CANDIDATES(body):
        text = normalize_space(element.text_content())
        if POST_CHROME.fullmatch(text):
            kind = chrome
        elif LONE_NUMBER.fullmatch(text):
            kind = numbers
        else:
            continue
        if not any(node.tag in CHROME_SPARING_TAGS for node in (element, *element.iterancestors())):
            kind.append(element)
    found = outermost_of(chrome)
    if len(found) < options.min_thread_chrome:
        return found
    return outermost_of(found + [number for number in numbers if not inside(number, "ol")])


def discussion_blocks(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The outermost discussion blocks, when the body keeps a story besides them.

    A discussion may hold ``<article>`` elements (one per comment in HTML5 themes).
    Inline elements and code (a highlighter's ``hljs-comment``) are no discussion. When
    numbered posts (``id="comment-4398546_wrap"``), several, hold most of the discussion's
    text, the page is a forum thread whose posts are its content, and nothing goes (a
    story's comment section with a short list of numbered pingbacks beside it still goes).
    Nor does it go from a page without a story besides it, in paragraphs or in lines
    between ``<br>`` (a thread whose posts a "comments" block wraps, next to a sidebar)."""
    marked = []
    for element in body.xpath(".//*[@class or @id]"):
        if element.tag in PROTECTED_TAGS or element.tag in INLINE_TAGS:
            continue
        if DISCUSSION.search(noise_marker(element)) and element.find(".//h1") is None:
            marked.append(element)
    found = set(marked)
    outermost = [
        el for el in marked if not any(a in found or a.tag in ("pre", "code") for a in el.iterancestors())
    ]
    if not outermost:
        return []
    numbered = [el for el in outermost if NUMBERED_POST.search(f"{el.get('class', '')} {el.get('id', '')}")]
    discussion_length = sum(shown_length(el) for el in outermost)
    if len(numbered) > 1 and 2 * sum(shown_length(el) for el in numbered) > discussion_length:
        return []
    return outermost if longest_story(body, outermost) >= options.min_story_besides_discussion else []


def remove_reply_subjects(page: DenoisingPage) -> int:
    """The subject line a thread repeats over its replies ("Re:" and the thread's title)."""
    return page.remove(reply_subjects(page.body, page.options))


def remove_post_chrome(page: DenoisingPage) -> int:
    """The chrome a forum prints beside each post ("Joined 2019", "Posts: 1,204", "Reply", "3 years ago")."""
    return page.remove(page.small(post_chrome(page.body, page.options)))


def remove_discussion(page: DenoisingPage) -> int:
    """Reader discussion under a story (comment threads, by class or id), not a thread's posts.

    When the page keeps a story (``min_story_besides_discussion`` words of ``<p>`` under
    one parent, or of lines between ``<br>`` in one block): a news story's comments go, a
    forum thread (whose posts are its content and are often marked "comment", the rest of
    the page a sidebar) keeps them. A page that declares itself a thread or a Q&A page
    (:func:`~pipelines.extraction.metadata.page_declarations`: JSON-LD or microdata
    ``DiscussionForumPosting``, ``QAPage``) keeps them too: Vanilla marks the replies under
    a first post of several paragraphs as comments (open.vanillaforums.com 0.67 -> 0.98; no
    other WCXB dev training or validation page changed)."""
    if page.declared.thread:
        return 0
    blocks = [block for block in discussion_blocks(page.body, page.options) if block not in page.spared]
    page.discussion.extend(blocks)
    return page.remove(blocks)
