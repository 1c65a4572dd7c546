"""What every model family shares: the checkpoint format, the model card, the best-epoch
rule and seeds, the one domain split, classification metrics, shipped files, the tree
ensemble as numpy arrays (element classifier and quality estimate), and the frozen
EfficientNet-Lite0 trunk and screenshot transform (page type and vision element)."""
