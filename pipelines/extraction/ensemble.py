"""The ``ensemble`` extractor (issue 14): several extractors of different natures run on
the page, a learned quality estimate predicts each one's word F1 against a gold main
content (:mod:`models.quality.model`). Two choices (PAGESIGHT_ENSEMBLE_CHOICE): ``pick`` keeps
iawce's extraction unless another candidate's estimate beats iawce's by the stage's
margin (chosen on validation domains); ``merge`` keeps iawce's lines that the stage's
line classifier does not rule out and adds the other candidates' lines it is sure of
(:mod:`models.quality.merge`; text and Markdown, each line's Markdown from its own
candidate). A page mostly in Chinese or Japanese script keeps iawce's extraction
(:func:`pipelines.scripts.mostly_unspaced`): WCXB dev, the estimate's and the merge's
training data, has no such page, and their features count words, where those scripts
give one token a character (on the demo web's Chinese notice board the merge added the
site's header to its list pages, and the pick chose worse candidates). The extraction's
``quality`` (the feed's ``extraction_quality``) is the picked candidate's estimate (the
peers' agreement for a consensus), or for a merge its mean with the kept lines' confidence
(:func:`models.quality.merge.merged_quality`); an extraction too short or a stand-in text
keeps at most 0.19 (:mod:`pipelines.extraction.degenerate`).

A cascade keeps it cheap: the ``cheap`` candidates (iawce, iawce-paper, dom-pagerank: a
few ms each) run first; only when the best of their estimates is below the confidence
threshold do the peers (trafilatura, readability, jusText) run and the ``full`` stage
choose among all six. On a page typed article where the pick is iawce and at least 5 % of
iawce's words sit in short lines, trafilatura and readability run, and when they agree
with each other and iawce adds mostly short lines they both lack (menus, rails, comment
headers), the closer of the two replaces iawce's pick, and their agreement is its quality
(:mod:`pipelines.extraction.consensus`; Dragnet's training and validation pages +0.017
word F1, WCXB dev's unchanged). The peers run without their own metadata, which the
ensemble would drop: the same text in half the time.
A page over ``max_words`` words (a book-sized page, where the other candidates and the
merge cost seconds and hundreds of MiB) keeps the lead's extraction, not estimated.
``ensemble-fast`` (the fast preset) never runs the peers. Title, author, date, language and canonical URL come from the
metadata module whichever candidate wins; on a list page the items are iawce's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

import numpy as np

from models.common.shipped import shipped_file
from pipelines.config import SettingsLike
from pipelines.extraction.consensus import (
    Consensus,
    ConsensusOptions,
    consensus_peer,
    ruled_out_by_first_peer,
    ruled_out_by_lead,
)
from pipelines.extraction.degenerate import capped_quality
from pipelines.extraction.iawce import IawceExtractor
from pipelines.extraction.metadata import Metadata
from pipelines.extraction.page import ARTICLE, Extraction, Extractor, Page
from pipelines.extraction.peers import ReadabilityExtractor, TrafilaturaExtractor
from pipelines.extraction.registry import build_extractor, configured_options, register
from pipelines.scripts import mostly_unspaced
from pipelines.version import short_hash

if TYPE_CHECKING:
    from models.quality.features import PageStats
    from models.quality.merge import MergeModel
    from models.quality.model import QualityEstimate, StageModel

logger = logging.getLogger(__name__)

#: The checkpoint shipped with the package (PAGESIGHT_ENSEMBLE_CHECKPOINT's default), a real
#: path also from a zipped Scrapyd egg.
SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/ensemble-quality.npz")


@register
class EnsembleExtractor:
    """Keep, among the candidates' extractions, the one the quality estimate ranks first
    (``pick``), or merge their lines with the checkpoint's line classifier (``merge``)."""

    name: ClassVar[str] = "ensemble"
    #: Whether the peers run when the cheap candidates' estimate is unsure.
    with_peers: ClassVar[bool] = True
    #: The checkpoint's meta key holding this preset's choice (made on validation).
    choice_key: ClassVar[str] = "choice"

    @dataclass(frozen=True)
    class Options:
        """``checkpoint``: the quality estimate (.npz from ``scrapy train-ensemble``);
        ``confident``: the cheap pick's estimate at or above which the peers do not run
        (None: the checkpoint's); ``choice``: ``pick`` or ``merge`` (empty: the
        checkpoint's); ``consensus``: when the peers' agreement replaces the lead's
        pick (:mod:`pipelines.extraction.consensus`; the ``ensemble`` only);
        ``max_words``: the most words of visible text on a page any candidate but the lead,
        and the line merge, run on (above it, the lead's extraction stands, with no
        estimate: no training page comes near). Settings
        PAGESIGHT_ENSEMBLE_*, or PAGESIGHT_EXTRACTOR_OPTIONS."""

        checkpoint: Path
        confident: float | None
        choice: str
        consensus: ConsensusOptions = field(default_factory=ConsensusOptions)
        #: The candidates' time and memory grow with the page, and the features and the
        #: merge with their texts: on the demo web's huge page (480,689 words, 8.3 M
        #: characters of rendered HTML) the ensemble took 19.8 s and +705 MiB at peak, 3.9 s
        #: and +244 MiB with the cheap stage's pick, 1.7 s and +133 MiB with the lead alone.
        #: The wordiest page of WCXB dev and Dragnet has 48,184 words: none is over it.
        max_words: int = 200_000

    def __init__(self, options: Options, estimate: QualityEstimate, candidates: dict[str, Extractor]):
        from models.quality.model import CHEAP, FULL

        self.options = options
        self.estimate = estimate
        self.candidates = candidates
        self.cheap = estimate.stages[CHEAP]
        self.full = estimate.stages[FULL] if self.with_peers else None
        lead = candidates.get(self.cheap.candidates[0])
        keeps_comments = isinstance(lead, IawceExtractor) and lead.options.include_comments
        #: The consensus rule, when it can run (:meth:`_usable_consensus`).
        self.consensus = self._usable_consensus(options.consensus, self.full, keeps_comments)
        self.confident = (
            float(estimate.meta["confident"]) if options.confident is None else float(options.confident)
        )
        #: The quality estimate's short hash, for the feed's provenance.
        self.checkpoint_hashes = {"ensemble": short_hash(options.checkpoint)}

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Load PAGESIGHT_ENSEMBLE_CHECKPOINT (empty: the shipped one) once, settle the
        choice against it (:meth:`_choice`) and build its candidates;
        QualityCheckpointError (one line) when the checkpoint is unusable,
        ExtractorUnavailable when a candidate's package is missing."""
        from models.quality.model import FULL, QualityEstimate

        def setting(name: str) -> str:
            value = settings.get(name) if settings is not None else None
            return "" if value is None else str(value)

        configured, threshold = (
            setting("PAGESIGHT_ENSEMBLE_CHECKPOINT"),
            setting("PAGESIGHT_ENSEMBLE_CONFIDENT"),
        )
        requested = configured_options(
            cls.name,
            cls.Options(
                checkpoint=Path(configured) if configured else SHIPPED_CHECKPOINT,
                confident=float(threshold) if threshold else None,
                choice=setting("PAGESIGHT_ENSEMBLE_CHOICE"),
            ),
            settings,
        )
        checkpoint = Path(requested.checkpoint)
        estimate = QualityEstimate.load(checkpoint)
        options = replace(
            requested, checkpoint=checkpoint, choice=cls._choice(requested.choice, estimate, checkpoint)
        )
        stages = [estimate.stages[name] for name in estimate.stages if cls.with_peers or name != FULL]
        names = dict.fromkeys(name for stage in stages for name in stage.candidates)
        return cls(options, estimate, {name: _text_only(build_extractor(name, settings)) for name in names})

    @classmethod
    def _choice(cls, configured: str, estimate: QualityEstimate, checkpoint: Path) -> str:
        """The requested choice made one: empty is the checkpoint's for this preset
        (:attr:`choice_key`, else the ``ensemble``'s in a checkpoint older than the fast
        preset's own; pick when it predates the merge, said in the log); merge from a
        checkpoint without one is QualityCheckpointError (one line)."""
        from models.quality.model import MERGE, PICK, STAGES, QualityCheckpointError

        if configured not in ("", PICK, MERGE):
            raise ValueError(
                f"ensemble choice {configured!r} (PAGESIGHT_ENSEMBLE_CHOICE or PAGESIGHT_EXTRACTOR_OPTIONS): "
                "set pick, merge or empty"
            )
        has_merge = all(stage in estimate.merges for stage in STAGES)
        if configured == MERGE and not has_merge:
            raise QualityCheckpointError(
                f"{checkpoint} has no line merge (trained before it); retrain it with "
                "`scrapy train-ensemble --wcxb WCXB_DEV` or set PAGESIGHT_ENSEMBLE_CHOICE=pick"
            )
        if configured:
            return configured
        if not has_merge:
            logger.info("ensemble: %s has no line merge (trained before it): the ensemble picks", checkpoint)
            return PICK
        stored = str(estimate.meta.get(cls.choice_key, estimate.meta.get("choice", PICK)))
        if stored not in (PICK, MERGE):
            raise QualityCheckpointError(f"{checkpoint} stores the unknown choice {stored!r}; retrain it")
        return stored

    def extract(self, page: Page) -> Extraction | None:
        from models.quality.features import page_stats
        from models.quality.merge import merged_quality
        from models.quality.model import CHEAP, FULL, MERGE
        from pipelines.evaluation.text import tokens

        first = self.cheap.candidates[0]
        found: dict[str, Extraction | None] = {first: self.candidates[first].extract(page)}
        lead = found[first]
        page_type = page.page_type or (lead.page_type if lead else ARTICLE)
        parsed = page.parsed  # parsed before the typed copy, which then shares it
        typed = page.with_page_type(page_type)
        stats = page_stats(parsed.root if parsed is not None else None)
        if self._over_max_words(stats, page):
            return self._with_metadata(lead, lead, page, page_type, None) if lead is not None else None
        stage_name = CHEAP
        winner, quality, rows, estimates = self._choose(self.cheap, found, typed, stats)
        if lead is not None and mostly_unspaced(tokens(lead.text)):
            # No page of the estimate's and the merge's training data is in these scripts:
            # iawce's text stays, with its own estimate.
            return self._with_metadata(lead, lead, page, page_type, float(estimates[0]))
        full = self.full
        if full is not None and quality < self.confident:
            stage_name = FULL
            winner, quality, rows, _ = self._choose(full, found, typed, stats)
        consensus = self._consensus(winner, found, typed) if full is not None else None
        if consensus is not None:
            winner, quality = consensus.peer, consensus.agreement
        chosen = found[winner]
        if chosen is None:
            logger.info("%s: no candidate found main content on %s", self.name, page.url or "<page>")
            return None
        if self.options.choice == MERGE and consensus is None:
            merged = self._merge(self.estimate.merges[stage_name], found, stats, rows)
            if merged is not None:
                chosen, quality = merged[0], merged_quality(quality, merged[1])
        return self._with_metadata(chosen, lead, page, page_type, quality)

    def _over_max_words(self, stats: PageStats, page: Page) -> bool:
        """Whether a page of ``stats`` is over ``max_words`` (said in the log)."""
        if stats.words <= self.options.max_words:
            return False
        logger.info(
            "%s: %s has %d words, over max_words (%d): the lead's extraction alone, not estimated",
            self.name,
            page.url or "<page>",
            stats.words,
            self.options.max_words,
        )
        return True

    @staticmethod
    def _usable_consensus(
        consensus: ConsensusOptions, full: StageModel | None, keeps_comments: bool
    ) -> ConsensusOptions | None:
        """``consensus`` when it is on and the full stage runs its peers; else None, said
        in the log when a checkpoint trained without them, or a lead asked to keep the
        reader discussion (which the peers drop, so that they would agree on removing
        it), turns it off."""
        if full is None or not consensus.enabled:
            return None
        missing = sorted(set(consensus.peers) - set(full.candidates))
        if missing:
            logger.info("ensemble: the checkpoint has no candidate %s: no peer consensus", ", ".join(missing))
            return None
        if keeps_comments:
            logger.info("ensemble: iawce keeps the comments (include_comments): no peer consensus")
            return None
        return consensus

    def _consensus(self, winner: str, found: dict[str, Extraction | None], page: Page) -> Consensus | None:
        """The peers' consensus that replaces the lead's pick
        (:func:`~pipelines.extraction.consensus.consensus_peer`), on a page typed article
        where the pick is the lead, with the peers; None elsewhere."""
        consensus, lead = self.consensus, self.cheap.candidates[0]
        if consensus is None or winner != lead or page.page_type != ARTICLE:
            return None
        lead_extraction = found[lead]
        if lead_extraction is None or ruled_out_by_lead(lead_extraction.text, consensus):
            return None  # no peer need run
        first, second = consensus.peers
        texts = {first: self._text(first, found, page)}
        if ruled_out_by_first_peer(lead_extraction.text, texts[first], consensus):
            return None  # the second peer need not run
        texts[second] = self._text(second, found, page)
        return consensus_peer(lead_extraction.text, texts, consensus)

    def _text(self, name: str, found: dict[str, Extraction | None], page: Page) -> str | None:
        """Candidate ``name``'s text, run on ``page`` unless it has run (kept in ``found``)."""
        if name not in found:
            found[name] = self.candidates[name].extract(page)
        extraction = found[name]
        return extraction.text if extraction else None

    def _choose(
        self, stage: StageModel, found: dict[str, Extraction | None], page: Page, stats: PageStats
    ) -> tuple[str, float, list[list[float]], np.ndarray]:
        """Run the stage's candidates not yet run; the one the stage picks by estimate
        (iawce unless another beats it by the stage's margin; one that found text beats
        one that did not), its estimate, the candidates' feature rows and estimates."""
        from models.quality.features import candidate_features

        for name in stage.candidates:
            if name not in found:
                found[name] = self.candidates[name].extract(page)
        texts = [
            extraction.text if extraction else None for extraction in (found[n] for n in stage.candidates)
        ]
        rows = candidate_features(texts, stage.candidates, stats, page.page_type or ARTICLE)
        estimates = stage.estimate(np.asarray(rows))
        found_any = np.array([text is not None for text in texts])
        best = stage.pick(np.where(found_any, estimates, -1.0)) if found_any.any() else 0
        return stage.candidates[best], float(estimates[best]), rows, estimates

    def _merge(
        self,
        merge: MergeModel,
        found: dict[str, Extraction | None],
        stats: PageStats,
        rows: list[list[float]],
    ) -> tuple[Extraction, float] | None:
        """The merged extraction of the stage's candidates (``rows``: their feature rows):
        the first found candidate's with the merged text and Markdown, and the kept
        lines' confidence; None when the merge keeps no line."""
        from models.quality.merge import candidate_lines, merged_markdown, merged_text

        extractions = [found[name] for name in merge.candidates]
        texts = [extraction.text if extraction else None for extraction in extractions]
        kept, confidence = merge.kept(candidate_lines(texts, stats, rows))
        base = next((extraction for extraction in extractions if extraction is not None), None)
        if not kept or base is None:
            return None
        markdowns = [extraction.markdown if extraction else None for extraction in extractions]
        merged = replace(
            base,
            extractor="merge",
            text=merged_text(kept),
            markdown=merged_markdown(kept, texts, markdowns),
        )
        return merged, confidence

    def _with_metadata(
        self, chosen: Extraction, first: Extraction | None, page: Page, page_type: str, quality: float | None
    ) -> Extraction:
        """``chosen``'s text with the metadata module's fields and, on a list page,
        iawce's items; ``quality`` None: not estimated."""
        metadata = page.parsed.metadata if page.parsed is not None else Metadata()
        return replace(
            chosen,
            extractor=f"{self.name}:{chosen.extractor}",
            page_type=page_type,
            items=first.items if first is not None else [],
            quality=None if quality is None else capped_quality(quality, chosen.text),
            title=metadata.title,
            author=metadata.author,
            published=metadata.published,
            language=metadata.language,
            canonical_url=metadata.canonical_url,
        )


def _text_only(candidate: Extractor) -> Extractor:
    """``candidate`` without the metadata of its own that the ensemble drops (the title,
    author and date come from the metadata module): trafilatura's is half its time,
    readability's title a second parse of the page."""
    if isinstance(candidate, (TrafilaturaExtractor, ReadabilityExtractor)):
        candidate.options = replace(candidate.options, with_metadata=False)
    return candidate


@register
class FastEnsembleExtractor(EnsembleExtractor):
    """The fast preset: the cheap candidates only (no peers), same checkpoint, its own
    choice (pick unless the merge is needed to stay within 0.01 of the default)."""

    name: ClassVar[str] = "ensemble-fast"
    with_peers: ClassVar[bool] = False
    choice_key: ClassVar[str] = "fast_choice"
