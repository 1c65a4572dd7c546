"""BoilerNet's inputs: per text leaf its words and ancestor tags, the vocabularies that
number them, and batches of encoded pages.

Words are the evaluation's tokens (lowercased ``\\w+`` runs; one token per CJK
character), so the same code serves spaced and unspaced scripts. Ancestor tags are the
tags of the leaf's owner element and all its ancestors. The optional numeric features
(:data:`FEATURES`, not the seed's) are what boilerplate classifiers such as Web2Text and
jusText rely on and a bag misses: length, link density around the leaf, position, depth,
punctuation and stop words, the size of the leaf's block. The optional attribute bag (not
the seed's either) holds the words of the class and id attributes of the leaf's owner and
its ancestors ("nav", "footer", "related", "comment", ...), over its own vocabulary. The
optional flags (:data:`FLAGS`, not the seed's either) are 0/1 inputs per leaf: the page
is a list (the page type the extractor is given: article or list), iawce's denoiser
removes the leaf, the leaf lies in the region iawce extracts (:func:`iawce_marks`).
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from copy import deepcopy
from dataclasses import dataclass

import torch

from models.boilernet.model import EncodedPage
from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import BLOCK_TAGS, HtmlElement, body_of
from pipelines.extraction.iawce import content_region
from pipelines.extraction.leaves import TextLeaf, text_leaves
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import LIST

#: Index 0 of both vocabularies: an unknown word / any other tag.
UNKNOWN = 0
#: The version of the leaf features, tags and attribute words computed here (what the
#: denoiser adds is its own version, :mod:`models.common.versions`); a card records the one
#: its checkpoint was trained with. tests/models/boilernet/test_boilernet.py pins their output on fixed
#: pages: when it changes, bump this and re-measure (or retrain) the shipped BoilerNet.
FEATURES_VERSION = 1


def ancestor_tags(leaf: TextLeaf) -> list[str]:
    """Tags of the leaf's owner and its ancestors, nearest first."""
    return [element.tag for element in leaf.ancestors() if isinstance(element.tag, str)]


#: The per-leaf numeric features, in the order of :func:`leaf_features`' rows.
FEATURES = (
    "log_tokens",  # log(1 + the leaf's token count)
    "in_link",  # 1 when the leaf is inside an <a>
    "parent_link_share",  # share of the owner's tokens that are inside links
    "grandparent_link_share",  # the same for the owner's parent
    "position",  # leaf index / (leaves - 1), 0 for a single leaf
    "log_depth",  # log(1 + ancestors)
    "punctuation_share",  # non-word, non-space characters among the non-space ones
    "stop_word_share",  # tokens among the English STOP_WORDS
    "ends_sentence",  # 1 when the text ends with . ! ? or their CJK forms
    "block_log_tokens",  # log(1 + tokens of the nearest block-level ancestor)
    "block_log_leaves",  # log(1 + leaves of that block)
    "parent_log_leaves",  # log(1 + leaves under the owner): the leaf's sibling leaves
)

#: Optional numeric features of repetition on the page (after :data:`FEATURES`, in the
#: order of :func:`repetition_features`' rows): boilerplate repeats (ad notices, "help
#: report", carousels of related items, per-post buttons), and the network sees one leaf
#: at a time. Computed from the leaves' tokens and ancestor tags only.
REPETITION_FEATURES = (
    "log_text_repeats",  # log(1 + other leaves of the page with the same tokens)
    "log_path_repeats",  # log(1 + other leaves of the page with the same ancestor tags)
    "path_token_share",  # share of the page's tokens in the leaves with the leaf's ancestor tags
)

#: The feature sets a checkpoint may name (its ``features``), by the option that adds them.
FEATURE_SETS = {"leaf": FEATURES, "repetition": FEATURES + REPETITION_FEATURES}

#: The per-leaf 0/1 flags, in the order of :func:`leaf_flags`' columns.
FLAGS = (
    "list_page",  # the page is a list (its page type: article or list)
    "denoised_away",  # iawce's denoiser (for that page type) removes the leaf
    "iawce_region",  # the leaf lies in the element iawce renders (its article or list region)
)


@dataclass(frozen=True)
class IawceMarks:
    """Per text leaf (:func:`text_leaves` order): whether iawce's denoiser removes it, and
    whether it lies in the region iawce extracts from the denoised tree."""

    denoised_away: list[bool]
    in_region: list[bool]

    @classmethod
    def none(cls, leaves: int) -> IawceMarks:
        """No mark on any of ``leaves`` leaves (a model that reads only ``list_page``)."""
        return cls([False] * leaves, [False] * leaves)


def iawce_marks(root: HtmlElement, page_type: str, options: IawceOptions = IawceOptions()) -> IawceMarks:
    """iawce's view of the text leaves of ``root``'s body for ``page_type`` (article or
    list), computed on a copy (``root`` is left as it is): the denoiser's removals, and the
    region iawce renders (articles: the element its descent reaches; lists: the region
    around its items, or the link-counting descent when it finds none)."""
    copy = deepcopy(root)
    leaves = text_leaves(body_of(copy))
    denoise(copy, page_type)
    body = body_of(copy)
    region, _ = content_region(body, subtree_lengths(body), page_type, options)
    return IawceMarks(
        [not _under(leaf.owner, copy) for leaf in leaves], [_under(leaf.owner, region) for leaf in leaves]
    )


def _under(element: HtmlElement, ancestor: HtmlElement) -> bool:
    """Whether ``element`` is ``ancestor`` or lies under it."""
    node: HtmlElement | None = element
    while node is not None:
        if node is ancestor:
            return True
        node = node.getparent()
    return False


def leaf_flags(names: Sequence[str], page_type: str, marks: IawceMarks) -> torch.Tensor:
    """The leaves' flags ``names`` (of :data:`FLAGS`; leaves × flags) for a page of
    ``page_type`` (article or list) with iawce's ``marks``."""
    unknown = set(names) - set(FLAGS)
    if unknown:
        raise ValueError(f"unknown leaf flags {sorted(unknown)}; known: {', '.join(FLAGS)}")
    columns = {
        "list_page": [float(page_type == LIST)] * len(marks.denoised_away),
        "denoised_away": [float(away) for away in marks.denoised_away],
        "iawce_region": [float(inside) for inside in marks.in_region],
    }
    return torch.tensor([columns[name] for name in names], dtype=torch.float32).reshape(len(names), -1).T


#: Frequent English function words (jusText's signal; WCXB is mostly English).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)

_PUNCTUATION = re.compile(r"[^\w\s]")
_SENTENCE_END = ".!?。！？"


_ATTRIBUTE_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def attribute_words(leaves: Sequence[TextLeaf]) -> list[tuple[str, ...]]:
    """Per leaf, the distinct words of the class and id attributes of its owner and
    ancestors (lowercased letter runs, camelCase split, two letters or more), sorted."""
    by_element: dict[HtmlElement, frozenset[str]] = {}
    bags = []
    for leaf in leaves:
        words: set[str] = set()
        for element in leaf.ancestors():
            if (own := by_element.get(element)) is None:
                text = f"{element.get('class') or ''} {element.get('id') or ''}"
                own = by_element[element] = frozenset(
                    sys.intern(w.lower()) for w in _ATTRIBUTE_WORD.findall(text) if len(w) > 1
                )
            words |= own
        bags.append(tuple(sorted(words)))
    return bags


def leaf_features(leaves: Sequence[TextLeaf]) -> list[tuple[float, ...]]:
    """One row of :data:`FEATURES` per leaf, in order (unnormalised; the network
    standardises them with the training set's mean and deviation)."""
    chains: list[list[HtmlElement]] = []
    linked: list[bool] = []
    token_totals: Counter[HtmlElement] = Counter()
    link_totals: Counter[HtmlElement] = Counter()
    leaf_totals: Counter[HtmlElement] = Counter()
    for leaf in leaves:
        chain = list(leaf.ancestors())
        in_link = any(element.tag == "a" for element in chain)
        count = len(leaf.tokens)
        for element in chain:
            token_totals[element] += count
            leaf_totals[element] += 1
            if in_link:
                link_totals[element] += count
        chains.append(chain)
        linked.append(in_link)
    last = max(len(leaves) - 1, 1)
    rows: list[tuple[float, ...]] = []
    for index, (leaf, chain, in_link) in enumerate(zip(leaves, chains, linked, strict=True)):
        parent = chain[0]
        grandparent = chain[1] if len(chain) > 1 else parent
        block = next((e for e in chain if e.tag in BLOCK_TAGS), chain[-1])
        visible = "".join(leaf.text.split())
        count = len(leaf.tokens)
        rows.append(
            (
                math.log1p(count),
                float(in_link),
                link_totals[parent] / token_totals[parent],
                link_totals[grandparent] / token_totals[grandparent],
                index / last,
                math.log1p(len(chain)),
                len(_PUNCTUATION.findall(visible)) / max(len(visible), 1),
                sum(token in STOP_WORDS for token in leaf.tokens) / count,
                float(leaf.text.rstrip()[-1] in _SENTENCE_END),  # a leaf has a token: never blank
                math.log1p(token_totals[block]),
                math.log1p(leaf_totals[block]),
                math.log1p(leaf_totals[parent]),
            )
        )
    return rows


def repetition_features(leaves: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[tuple[float, ...]]:
    """One row of :data:`REPETITION_FEATURES` per leaf (pairs of its tokens and ancestor
    tags, in page order; unnormalised)."""
    texts = [tuple(words) for words, _ in leaves]
    paths = [tuple(tags) for _, tags in leaves]
    text_counts = Counter(texts)
    path_counts = Counter(paths)
    path_tokens: Counter[tuple[str, ...]] = Counter()
    for text, path in zip(texts, paths, strict=True):
        path_tokens[path] += len(text)
    total = max(sum(path_tokens.values()), 1)
    return [
        (
            math.log1p(text_counts[text] - 1),
            math.log1p(path_counts[path] - 1),
            path_tokens[path] / total,
        )
        for text, path in zip(texts, paths, strict=True)
    ]


def feature_rows(
    names: Sequence[str], leaves: Sequence[TextLeaf], pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
) -> torch.Tensor:
    """The leaves' numeric features ``names`` (one of :data:`FEATURE_SETS`; leaves ×
    features): ``pairs`` are the leaves' (tokens, ancestor tags)."""
    if tuple(names) not in FEATURE_SETS.values():
        raise ValueError(f"unknown leaf feature set {list(names)}")
    rows = torch.tensor(leaf_features(leaves), dtype=torch.float32).reshape(len(leaves), len(FEATURES))
    if len(names) > len(FEATURES):
        rows = torch.cat([rows, repetition_rows(pairs)], dim=1)
    return rows


def repetition_rows(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> torch.Tensor:
    """:func:`repetition_features` as a float tensor (leaves × :data:`REPETITION_FEATURES`)."""
    return torch.tensor(repetition_features(pairs), dtype=torch.float32).reshape(
        len(pairs), len(REPETITION_FEATURES)
    )


@dataclass(frozen=True)
class Vocabulary:
    """The kept words, tags and attribute words, most frequent first; their ids start at 1."""

    words: tuple[str, ...]
    tags: tuple[str, ...]
    #: Whether words are used at all (``False``: tags only, the seed's vocabulary 0).
    use_words: bool = True
    #: The kept class/id attribute words (empty: no attribute bag, the seed's input).
    attributes: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        leaves: Iterable[tuple[Sequence[str], Sequence[str]]],
        words: int,
        tags: int,
        attribute_bags: Iterable[Sequence[str]] = (),
        attributes: int = 0,
    ) -> Vocabulary:
        """The ``words`` most frequent words and ``tags`` most frequent tags of the leaves
        (pairs of word tokens and ancestor tags), and the ``attributes`` most frequent
        attribute words of their ``attribute_bags``; ``words=0`` builds a tags-only
        vocabulary."""
        word_counts: Counter[str] = Counter()
        tag_counts: Counter[str] = Counter()
        for leaf_words, leaf_tags in leaves:
            if words:
                word_counts.update(leaf_words)
            tag_counts.update(leaf_tags)
        attribute_counts: Counter[str] = Counter()
        if attributes:
            for bag in attribute_bags:
                attribute_counts.update(bag)
        return cls(
            tuple(w for w, _ in word_counts.most_common(words)),
            tuple(t for t, _ in tag_counts.most_common(tags)),
            use_words=words > 0,
            attributes=tuple(a for a, _ in attribute_counts.most_common(attributes)),
        )

    @property
    def word_size(self) -> int:
        """Rows of the word input (0 when tags only)."""
        return len(self.words) + 1 if self.use_words else 0

    @property
    def tag_size(self) -> int:
        return len(self.tags) + 1

    @property
    def attribute_size(self) -> int:
        """Rows of the attribute input (0 when there is none)."""
        return len(self.attributes) + 1 if self.attributes else 0

    def to_dict(self) -> dict[str, object]:
        return {
            "words": list(self.words),
            "tags": list(self.tags),
            "use_words": self.use_words,
            "attributes": list(self.attributes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Vocabulary:
        """The vocabulary of :meth:`to_dict` (one without ``attributes`` has none)."""
        words, tags, use_words = data["words"], data["tags"], data["use_words"]
        attributes = data.get("attributes", [])
        if (
            not isinstance(words, list)
            or not isinstance(tags, list)
            or not isinstance(attributes, list)
            or not isinstance(use_words, bool)
        ):
            raise ValueError("vocabulary needs lists words, tags (and attributes) and a boolean use_words")
        return cls(tuple(map(str, words)), tuple(map(str, tags)), use_words, tuple(map(str, attributes)))

    def encoder(self) -> PageEncoder:
        return PageEncoder(self)


class PageEncoder:
    """Turns leaves into ids with one vocabulary (dict lookups built once)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.use_words = vocabulary.use_words
        self.word_index = {w: i for i, w in enumerate(vocabulary.words, start=1)}
        self.tag_index = {t: i for i, t in enumerate(vocabulary.tags, start=1)}
        self.attribute_index = {a: i for i, a in enumerate(vocabulary.attributes, start=1)}

    def encode(
        self,
        leaves: Sequence[tuple[Sequence[str], Sequence[str]]],
        features: torch.Tensor | None = None,
        attribute_bags: Sequence[Sequence[str]] | None = None,
        flags: torch.Tensor | None = None,
    ) -> EncodedPage:
        """Encode (word tokens, ancestor tags) pairs, in order, with their numeric
        features (a leaves × :data:`FEATURES` tensor; ``None``: no features), their
        attribute words (:func:`attribute_words`; needed when the vocabulary has some) and
        their flags (:func:`leaf_flags`; ``None``: none)."""
        word_ids: list[int] = []
        word_counts: list[int] = []
        tag_ids: list[int] = []
        tag_counts: list[int] = []
        for words, tags in leaves:
            if self.use_words:
                word_ids.extend(self.word_index.get(w, UNKNOWN) for w in words)
                word_counts.append(len(words))
            else:
                word_counts.append(0)
            tag_ids.extend(self.tag_index.get(t, UNKNOWN) for t in tags)
            tag_counts.append(len(tags))
        if features is None:
            features = torch.zeros(len(leaves), 0)
        elif len(features) != len(leaves):
            raise ValueError(f"{len(features)} feature rows for {len(leaves)} leaves")
        if flags is None:
            flags = torch.zeros(len(leaves), 0)
        elif len(flags) != len(leaves):
            raise ValueError(f"{len(flags)} flag rows for {len(leaves)} leaves")
        attribute_ids: list[int] = []
        attribute_counts = [0] * len(leaves)
        if self.attribute_index:
            if attribute_bags is None or len(attribute_bags) != len(leaves):
                raise ValueError("this vocabulary needs one attribute-word bag per leaf")
            for index, bag in enumerate(attribute_bags):
                attribute_ids.extend(self.attribute_index.get(a, UNKNOWN) for a in bag)
                attribute_counts[index] = len(bag)
        return EncodedPage(
            torch.tensor(word_ids, dtype=torch.long),
            torch.tensor(word_counts, dtype=torch.long),
            torch.tensor(tag_ids, dtype=torch.long),
            torch.tensor(tag_counts, dtype=torch.long),
            features.float(),
            torch.tensor(attribute_ids, dtype=torch.long),
            torch.tensor(attribute_counts, dtype=torch.long),
            flags.float(),
        )
