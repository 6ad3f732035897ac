"""The command line: ``python -m zoo`` and its four run commands (``fit``, ``validate``, ``test``, ``predict``)
on LightningCLI. ``sweep``, ``compare`` and the inference commands sit above it and are reached by name.

- ``main``: the entry of every command; a bad configuration is one line and exit status 2
- ``lightning_cli``: ``ZooCLI``, the LightningCLI subclass that runs ``fit``/``validate``/``test``/``predict``
- ``options``: the commands and the options the zoo adds (``--runs_dir``, ``--nonfinite_loss``, ...)
- ``evaluation_args``: ``validate``/``test``/``predict`` of a checkpoint read its run's ``config.yaml``
- ``run_checks``: what ZooCLI checks while it builds the task, data and trainer (seed, vocabulary, weights)
- ``command_line``: the commands and what each does, read before anything heavy is imported, and the
  did-you-mean of every parser
- ``tool_parser``: the tools' parser (jsonargparse's, with ``--config``), their restricted numbers and one-line errors
- ``tool_config``: a tool's options from ``--config`` files, read left to right, each value of its option's kind
- ``parser``, ``value_errors``: fit's parser and its one-line errors for bad flags and values
- ``library_messages``: the wordings of jsonargparse's and argparse's messages those errors read, pinned by a test
- ``config_files``: the files a run command names, and a command given no model and data, checked before the CLI
  is imported
- ``unknown_fields``: a mistyped field told before Lightning loads, from an index in the cache, which
  ``field_index`` writes from the parser as ``parser_only`` builds it (the parser ``zoo sweep`` checks its trials with)
- ``config_checks``: checks of values Lightning would take and fail on mid-run
- ``empty_values``: an empty folder, file or name (``--runs_dir=``) refused, not read as the default or ``.``
- ``knobs``: every task's model knobs for ``--help`` and the typo suggestions
- ``recorded_values``: a run's recorded values read back as it wrote them (config files, flags); a config file
  never sets what one command did (``ckpt_path``, ``run_name``)
- ``typed_values``: a flag that a later config file would replace is refused (the command line reads left to right)
- ``lightning_errors``: one line for what Lightning raises on a bad trainer setting
- ``yaml_files``, ``errors``, ``int_or_float``: YAML reading, error printing, and
  ``--trainer.limit_val_batches=1`` read as an int whatever was imported first
"""
