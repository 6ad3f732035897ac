"""Doctests of ``zoo/`` (collected with ``--doctest-modules``, see pyproject.toml) see ``torch`` as tests do."""

import pytest
import torch


@pytest.fixture(autouse=True)
def _doctest_torch(doctest_namespace):
    doctest_namespace["torch"] = torch
    torch.manual_seed(0)
