"""``model.compile=true``: a task's network through ``torch.compile``, one graph for training and one for
evaluation over a whole run, whatever the shapes of its batches (docs/devices.md, "torch.compile").

TorchDynamo compiles a graph for the shapes of the first call and guards it; a call that fails a guard compiles
another graph (20-35 s each for Multi30k on an H200), and after ``torch._dynamo.config.recompile_limit`` of them
the network runs eagerly. Token-bucketed batches change their batch size and lengths at every step, so:

- every dimension of the network's tensor arguments is dynamic from the first call (``maybe_mark_dynamic``),
  and sizes 0 and 1 are not specialised (``backed_size_oblivious``): a last batch of one example runs the same
  graph as the others;
- validation, ``test`` and ``predict`` run without gradients, and get the one evaluation graph (Lightning runs
  ``fit``'s validation under ``no_grad`` and the other commands under ``inference_mode``, whose tensors a graph
  guards apart: their inputs are copied out of inference mode); decoding
  (greedy and beam search, sampling) and attention maps run the network eagerly
  (``torch.compiler.set_stance("force_eager")``): a key/value cache that grows by one position a step would
  make a graph per length;
- tables cached by the network (:class:`zoo.nn.positional.PositionTable`) are computed inside the graph.

The backend is Inductor unless ``ZOO_COMPILE_BACKEND`` names another (the tests use ``aot_eager``). Every
network of a process compiles through one backend callable per name, so that a network built again in the same
process (``test`` or a resume after ``fit``) runs the graphs already compiled where their guards hold.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable

import torch
import torch.fx.experimental._config as fx_config
from torch import Tensor, nn
from torch._dynamo.callback import CallbackArgs, callback_handler

BACKEND_ENV = "ZOO_COMPILE_BACKEND"
MODES = ("training", "evaluation")  # a graph with gradients (fit's steps), and one without (the evaluations)
_calling: list[CompiledNetwork] = []  # the network being called, whose graph Dynamo compiles


def compile_backend() -> str:
    """The backend named by ``ZOO_COMPILE_BACKEND`` (default ``inductor``).

    Raises:
        ValueError: for a name ``torch.compile`` does not know, listing the ones it does.
    """
    name = os.environ.get(BACKEND_ENV) or "inductor"
    known = torch._dynamo.list_backends(exclude_tags=())
    if name not in known:
        raise ValueError(f"{BACKEND_ENV}={name!r} is not a torch.compile backend; valid: {', '.join(known)}")
    return name


@functools.cache
def counting_backend(name: str) -> Callable:
    """The backend ``name`` as Dynamo calls it, once per graph, under the grad mode of the call being compiled:
    counted in the :class:`CompiledNetwork` being called. One callable per name: Dynamo reuses a graph only
    for the same backend callable."""

    def compile_graph(graph: torch.fx.GraphModule, example_inputs: list) -> Callable:
        if _calling:
            _calling[-1].graphs["training" if torch.is_grad_enabled() else "evaluation"] += 1
        return torch._dynamo.lookup_backend(name)(graph, example_inputs)

    return compile_graph


class CompiledNetwork:
    """``network`` compiled in place (``nn.Module.compile``: the same parameters and checkpoint keys), called
    with every dimension of its tensor arguments dynamic; counts the graphs compiled per mode and the seconds
    spent compiling while :meth:`start_clock` is on.

    Args:
        network: the task's backbone.
        backend: a ``torch.compile`` backend (``None``: :func:`compile_backend`).

    Raises:
        ValueError: for an unknown backend.
    """

    def __init__(self, network: nn.Module, backend: str | None = None) -> None:
        self.network, self.backend = network, backend or compile_backend()
        self.graphs = dict.fromkeys(MODES, 0)
        self.seconds = 0.0
        self._started: dict[str, float] = {}
        network.compile(backend=counting_backend(self.backend))

    def __call__(self, *args: Tensor | None) -> Tensor:
        """``network(*args)``; each tensor's sizes are symbols of the graph, not constants."""
        if torch.is_inference_mode_enabled():
            with torch.inference_mode(False), torch.no_grad():
                return self(*(arg.clone() if isinstance(arg, Tensor) else arg for arg in args))
        for arg in args:
            if isinstance(arg, Tensor):
                for dim in range(arg.dim()):
                    torch._dynamo.maybe_mark_dynamic(arg, dim)
        _calling.append(self)
        try:
            with fx_config.patch(backed_size_oblivious=True):
                return self.network(*args)
        finally:
            _calling.pop()

    def start_clock(self) -> None:
        """Count the seconds of every compilation from now on (Dynamo's, and AOTAutograd's lazy backward)."""
        callback_handler.register_start_callback(self._compile_started)
        callback_handler.register_end_callback(self._compile_ended)

    def stop_clock(self) -> None:
        for callbacks, callback in (
            (callback_handler.start_callbacks, self._compile_started),
            (callback_handler.end_callbacks, self._compile_ended),
        ):
            if callback in callbacks:
                callbacks.remove(callback)

    def _compile_started(self, args: CallbackArgs) -> None:
        self._started[args.compile_id] = time.perf_counter()

    def _compile_ended(self, args: CallbackArgs) -> None:
        started = self._started.pop(args.compile_id, None)
        if started is not None:
            self.seconds += time.perf_counter() - started

    def record(self) -> dict:
        """What a run records in ``summary.json`` (``compile.<command>``): the backend, the graphs compiled
        per mode and the seconds spent compiling."""
        return {"backend": self.backend, "graphs": dict(self.graphs), "seconds": round(self.seconds, 3)}
