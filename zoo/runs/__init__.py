"""A run as a folder and a record: its identity and name, the folder and its lock, which checkpoint a command
uses, the launch it belongs to, what it records locally and on W&B.

- ``identity``: a config made canonical, the fields that make a run another, its hash and name
- ``folders``: making, finding (``--ckpt_path last``) and removing run folders; their checkpoints
- ``resolution``: which folder and checkpoint a command uses, and the checks of both
- ``data_seed``: a ``data.seed`` left out: the run's seed, or the one a recorded run trained with
- ``lock``: one command at a time writes a folder
- ``launch``: one launch (``torchrun``, ``srun``, ``mpirun``, several nodes), one folder, from Lightning's
  cluster environments
- ``record``: the local run record (``metrics.jsonl``, ``summary.json``) as a Lightning logger
- ``wandb_logger``, ``wandb_guard``: W&B's mode, logger and summaries; a W&B failure never stops training
- ``partial_evaluations``: an evaluation over part of a split is recorded apart (``partial/``, ``full/``)
- ``devices``: the devices and effective batch a run trained on
- ``checkpoint_file``: reading a checkpoint file, with one line for a damaged one
- ``wandb_agent``: which run folder and W&B run a trial that ``wandb agent`` (re)started takes
- ``output_files``: files a command writes where the user says, never over a file of the user's
"""
