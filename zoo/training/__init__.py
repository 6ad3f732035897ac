"""What happens during a run command, as Lightning callbacks and settings: the session in its run folder, the
run's checkpoints and its status, resuming exactly, a non-finite loss, Ctrl-C and SIGTERM, precision, the knobs a
run adjusts, the progress bar and ``predict``'s file. Nothing here reads the command line (:mod:`zoo.cli` does).

- ``session``: what a run command sets up and writes in its run folder (callbacks, loggers, record)
- ``init_weights``: ``fit --init_weights``, a new run started from a checkpoint's weights and tokenizer
- ``adjusted_knobs``: knobs a run cannot honour as given, said and recorded as used
- ``sigterm``: SIGTERM while the run is built, before Lightning's own handler takes over
- ``callbacks``: a validation after the last step, an honest status when interrupted, the run's checkpoints
- ``resume``: a resumed run goes on as if never stopped (seeds per step, ``last.ckpt`` every N steps)
- ``nonfinite_loss``: a NaN or infinite loss stops the run (or skips the batch) before the optimiser step
- ``ctrl_c``: Ctrl-C stops a run cleanly, and the process can be stopped again after it
- ``precision``: float32 matmul precision, and the warning where 16-bit floats slow a CPU down
- ``progress``: the console, a progress bar in optimiser steps
- ``predictions``: ``predict``'s predictions, one JSON line per example in the split's order
"""
