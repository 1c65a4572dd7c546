"""BoilerNet (Leonhardt et al. 2020): a sequence labeller that keeps or drops each text leaf
of a page, one of the registered extractors (``pipelines/extraction/boilernet.py``)."""
