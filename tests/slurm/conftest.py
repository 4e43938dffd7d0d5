"""A real Slurm cluster on this machine for the session (scripts/slurm-cluster):
slurmctld here, three slurmd nodes in network namespaces on a bridge, munge.
Skipped, saying why, only where it cannot exist: not root, no namespaces,
Slurm or munge not installed (the script's exit status 77).  Anything else
that keeps the cluster from coming up is an error of the tests, with the
script's words."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# the cluster's handle (here) and the job scenarios (tests/job)
for folder in (HERE, os.path.join(HERE, "..", "job")):
    sys.path.insert(0, folder)

import cluster as cluster_  # noqa: E402  (the lines above make it importable)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    directory = tmp_path_factory.mktemp("slurm")
    made = cluster_.up(directory)
    try:
        yield made
    finally:
        cluster_.down(directory)
