"""Pure evaluation of extractions against gold (no Scrapy imports): metrics
(``metrics``, ``text``), gold readers (``gold``, ``wcxb``), scoring (``scoring``), the
accumulating :class:`~pipelines.evaluation.scorebook.Evaluation`, feed re-scoring
(``feed``) and report rendering (``report``).

The package itself imports nothing, so light modules (tokens, metrics) can be used
without loading the report's plotting or the extractors that feed re-scoring needs.
"""
