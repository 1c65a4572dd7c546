"""The ensemble's quality estimate: per extraction candidate, its predicted word F1 against
the gold main content, and the line merge of the candidates (the ``ensemble`` extractor,
``pipelines/extraction/ensemble.py``, serves both; ``scrapy train-ensemble`` trains them)."""
