import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "gdb-python"))
sys.path.insert(0, HERE)

from mpipp.model.datatype import RoomForDeepTrees  # noqa: E402  (after the path)


@pytest.fixture(autouse=True)
def room_for_deep_trees():
    """The recursion limit the model's walks need, as the gdb layer's entry
    points give it (the model never raises it by itself)."""
    with RoomForDeepTrees():
        yield
