"""Weights in and out of zoo's backbones: Hugging Face model folders (``config.json`` and ``*.safetensors`` or
``pytorch_model.bin``) of the GPT-2, BERT, Llama and Marian families read into :mod:`zoo.nn`'s backbones with the
knobs that reproduce them, and zoo backbones written back as those families' folders. ``transformers`` is not
needed for either (the parity tests use it as the reference), except to read Marian's hub layout.

- ``errors``: the one-line error of bad input; ``folder``: reading and writing a Hugging Face folder
- ``rules``: how one family's parameters map to a backbone's (renamed, transposed, stacked, permuted)
- ``family``: what the families share; ``gpt2``, ``bert``, ``llama`` (grouped-query attention included),
  ``marian``: each family's knobs and rules
- ``convert``: a backbone from a folder, and a folder from a backbone
- ``vocabulary``: a checkpoint's ids in zoo's order (``<pad>`` 0, ``<bos>`` 1, ``<eos>`` 2, ``<unk>`` 3)
- ``marian_hub``: Marian's tokenizer as the hub serves it (``source.spm``, ``target.spm``, ``vocab.json``)
- ``sentence_transformers``: a sentence-transformers folder's pooling (``modules.json``, ``1_Pooling``)
- ``importer``, ``export``: the commands ``python -m zoo import`` and ``python -m zoo export``;
  ``exported_files``: an export's tokenizer and generation settings, as zoo reads and decodes
"""
