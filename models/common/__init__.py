"""What every model family shares: the checkpoint format, the model card, the best-epoch
rule and seeds, the one domain split, classification metrics, shipped files, and the
frozen EfficientNet-Lite0 trunk and screenshot transform (page type and vision element)."""
