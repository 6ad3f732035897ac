"""What happens during training, as Lightning callbacks and settings: the run's checkpoints and its status,
resuming exactly, a non-finite loss, Ctrl-C, precision, the progress bar and ``predict``'s file.

- ``callbacks``: a validation after the last step, an honest status when interrupted, the run's checkpoints
- ``resume``: a resumed run goes on as if never stopped (seeds per step, ``last.ckpt`` every N steps)
- ``nonfinite_loss``: a NaN or infinite loss stops the run (or skips the batch) before the optimiser step
- ``ctrl_c``: Ctrl-C stops a run cleanly, and the process can be stopped again after it
- ``precision``: float32 matmul precision, and the warning where 16-bit floats slow a CPU down
- ``progress``: the console, a progress bar in optimiser steps
- ``predictions``: ``predict``'s predictions, one JSON line per example in the split's order
"""
