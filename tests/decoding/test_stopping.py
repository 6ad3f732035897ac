"""Decoding loops that learn a few steps late that every row has finished (no read of the device per token)
give the ids of a loop that checks at every step."""

from __future__ import annotations

import pytest
import torch

from zoo.decoding.sampling import sample
from zoo.decoding.stopping import LAG, LaggedStop

EOS, PAD, VOCAB = 2, 0, 7


class Scripted:
    """A step that makes row ``r`` emit ``script[r][t]`` at step ``t`` (and token 3 after its script)."""

    def __init__(self, script: list[list[int]]) -> None:
        self.script, self.t = script, 0

    def __call__(self, tokens: torch.Tensor) -> torch.Tensor:
        chosen = [row[self.t] if self.t < len(row) else 3 for row in self.script]
        self.t += 1
        return torch.nn.functional.one_hot(torch.tensor(chosen), VOCAB).float().log()


def checked_every_step(script, limit, max_steps) -> torch.Tensor:
    """The loop as it was: ``finished.all()`` read after every token."""
    step, rows = Scripted(script), len(script)
    limit = torch.as_tensor(limit).expand(rows)
    finished, generated = limit <= 0, []
    for position in range(max_steps):
        chosen = step(None).argmax(dim=-1).masked_fill(finished, PAD)
        generated.append(chosen)
        finished = finished | (chosen == EOS) | (limit <= position + 1)
        if finished.all():
            break
    return torch.stack(generated, dim=1)


@pytest.mark.parametrize("lag", [0, 1, LAG])
def test_the_flag_of_a_step_is_known_lag_steps_later(lag):
    stop, finished = LaggedStop("cpu", lag=lag), torch.tensor([False, True])
    answers = []
    for step in range(12):
        finished = finished | (step >= 5)  # every row has finished after step 5
        answers.append(stop.after(step, finished))
    assert answers == [False] * (5 + lag) + [True] * (12 - 5 - lag) and stop.finished_at == 5


@pytest.mark.parametrize(
    ("script", "limit"),
    [
        ([[4, 5, EOS], [4, EOS], [5, 5, 5, 5, 5, 5, EOS]], 20),  # rows end with <eos> at different steps
        ([[4, 5, 6, 4, 5, 6, 4, 5, 6], [EOS]], torch.tensor([3, 9])),  # a row cut at its own limit
        ([[EOS], [EOS]], 9),  # every row ends at once: fewer steps than the lag
        ([[4] * 30, [5] * 30], 6),  # no row ends before the limit
        ([[4, EOS], [5, EOS]], torch.tensor([0, 4])),  # a row with no token to generate
    ],
)
def test_sample_gives_the_ids_of_a_loop_that_checks_every_step(script, limit):
    bound = int(torch.as_tensor(limit).max())
    start = torch.zeros(len(script), 1, dtype=torch.long)
    found = sample(Scripted(script), start, limit, EOS, PAD, max_steps=bound)
    expected = checked_every_step(script, limit, bound)
    assert torch.equal(found[:, : expected.shape[1]], expected)
    assert (found[:, expected.shape[1] :] == PAD).all()  # a loop at its bound before the flag was read: padding
    assert found.shape[1] == expected.shape[1] or found.shape[1] == bound
    assert torch.equal(sample(Scripted(script), start, limit, EOS, PAD), found)  # the bound read from the limit
