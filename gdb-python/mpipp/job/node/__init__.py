"""What runs on compute hosts next to the ranks: standard library and
job/link only (asserted by tests/test_floors.py)."""
