"""The tests' handle on a cluster made by scripts/slurm-cluster."""

import os
import re
import subprocess
import time

import pytest

import gdbrun

SLURM_CLUSTER = os.path.join(gdbrun.REPO, "scripts", "slurm-cluster")
CANNOT_HERE = 77   # the script's "this machine cannot host a cluster"
# Slurm's job states before a job's end.
UNFINISHED = ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED")


class Cluster:
    def __init__(self, directory):
        self.directory = str(directory)
        with open(os.path.join(self.directory, "env")) as f:
            self.values = dict(line.strip().split("=", 1) for line in f if "=" in line)
        self.nodes = self.values["NODES"].split(",")

    def env(self, extra=None):
        """This process's environment, pointed at the cluster (and no
        allocation of another Slurm inherited)."""
        env = {name: value for name, value in os.environ.items()
               if not name.startswith("SLURM_")}
        env["SLURM_CONF"] = self.values["SLURM_CONF"]
        env.update(extra or {})
        return env

    def run(self, argv, timeout=120, **kwargs):
        """argv run here against the cluster; its CompletedProcess (text)."""
        return subprocess.run(argv, env=self.env(kwargs.pop("env", None)), capture_output=True,
                              text=True, timeout=timeout, **kwargs)

    def wait_job(self, job, timeout=300):
        """The state a job ended in (sbatch --wait polls every 2 to 32 s)."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.run(["scontrol", "show", "job", "-o", job]).stdout
            state = re.search(r"\bJobState=(\S+)", out)
            assert state, out
            if state.group(1) not in UNFINISHED:
                return state.group(1)
            assert time.monotonic() < deadline, "job %s still %s\n%s" % (job, state.group(1),
                                                                         self.log())
            time.sleep(0.2)

    def network_namespace(self, node):
        """The identity (inode) of a node's network namespace."""
        with open(os.path.join(self.directory, "namespaces")) as f:
            names = dict(line.split()[:2] for line in f)
        return os.stat(os.path.join("/run/netns", names[node])).st_ino

    def log(self):
        """The daemons' last words, for a failing test's message."""
        paths = [os.path.join(self.directory, "ctld", "slurmctld.log")] + [
            os.path.join(self.directory, "nodes", node, "slurmd.log") for node in self.nodes]
        words = []
        for path in paths:
            if os.path.exists(path):
                with open(path) as f:
                    words.append("== %s\n%s" % (path, "".join(f.readlines()[-15:])))
        return "\n".join(words)


def up(directory):
    """The cluster made in directory; skips the tests where none can be made
    here, fails them where one should have been and was not."""
    proc = subprocess.run([SLURM_CLUSTER, "up", str(directory)], capture_output=True, text=True)
    why = (proc.stderr.strip().splitlines() or ["exit status %d" % proc.returncode])
    if proc.returncode == CANNOT_HERE:
        pytest.skip("no Slurm cluster here: %s" % why[-1])
    if proc.returncode != 0:
        pytest.fail("scripts/slurm-cluster up failed:\n%s" % "\n".join(why))
    return Cluster(directory)


def down(directory):
    subprocess.run([SLURM_CLUSTER, "down", str(directory)], capture_output=True)
