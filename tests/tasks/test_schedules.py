"""Learning-rate schedules."""

import math

import pytest

from zoo.registry import SCHEDULES
from zoo.tasks.schedules import cosine, inverse_sqrt, needs_total_steps, schedule_factor


def test_inverse_sqrt_is_the_papers_eq3_up_to_scale():
    d_model, warmup = 512, 4000
    for step in (1, 100, 3999, 4000, 4001, 20000):
        paper = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
        ours = inverse_sqrt(step - 1, warmup) * d_model**-0.5 * warmup**-0.5
        assert ours == pytest.approx(paper)
    assert inverse_sqrt(warmup - 1, warmup) == 1.0


def test_cosine_warms_up_then_decays_to_the_floor():
    assert cosine(0, 10, 100) == pytest.approx(0.1)
    assert cosine(9, 10, 100) == pytest.approx(1.0)
    assert cosine(54, 10, 100) == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 0.5)))
    assert cosine(99, 10, 100, min_ratio=0.1) == pytest.approx(0.1)
    assert cosine(500, 10, 100, min_ratio=0.1) == pytest.approx(0.1)


def test_unknown_schedule():
    with pytest.raises(ValueError, match=r"model.schedule='step' is not valid"):
        schedule_factor("step", 0, 10, 100, 0.1)


def test_only_a_schedule_with_an_end_needs_the_number_of_steps():
    assert {name: needs_total_steps(name) for name in SCHEDULES.names()} == {
        "inverse_sqrt": False,
        "cosine": True,
        "constant": False,
    }
