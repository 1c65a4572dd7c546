"""PageSight's learnt models, one package per family (each: ``model.py`` the network,
``data.py`` its inputs, ``train.py`` its trainer), and ``common`` for what they share
(the checkpoint format, the model card, the best-epoch rule, seeds, the split, metrics).
The shipped checkpoints and their cards are in ``checkpoints/``, the split in ``splits/``."""
