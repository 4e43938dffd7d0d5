"""Three hosts on this machine for the multi-host tests: network namespaces
joined by a bridge (scripts/netns-hosts), the MPI's own remote launcher with
the stand-in for ssh that enters them.  The console runs here, in the root
namespace; everything at the ranks runs on the hosts, so every connection
between the console and a rank, and between ranks on different hosts,
crosses a real network interface."""

import os
import subprocess

import gdbrun
from jobrun import Launch

NETNS_HOSTS = os.path.join(gdbrun.REPO, "scripts", "netns-hosts")
# What the stand-in for ssh passes on (as an ssh configured with SendEnv
# would): the tests' marker, to find leftovers on every host, and where the
# test program writes its pids.
KEEP = "MPIPP_TEST_JOB JOB_PIDDIR"


class Hosts:
    def __init__(self, directory):
        self.directory = str(directory)
        with open(os.path.join(self.directory, "env")) as f:
            values = dict(line.strip().split("=", 1) for line in f if "=" in line)
        self.names = values["HOSTS"].split(",")
        self.subnet, self.interface = values["SUBNET"], values["IFACE_HOSTS"]
        self.ssh = os.path.join(self.directory, "ssh")
        self.run = os.path.join(self.directory, "run")

    def launch(self, options=(), mpi=gdbrun.MPI, hosts=None):
        """A Launch of the MPI under test through its remote launcher."""
        names = ",".join(hosts or self.names)
        if mpi == "openmpi":
            mpiexec = ["--mca", "plm_rsh_agent", self.ssh, "--host", names,
                       "--mca", "btl", "tcp,self,vader", "--mca", "btl_tcp_if_include", self.subnet,
                       "--mca", "oob_tcp_if_include", self.subnet]
        else:
            mpiexec = ["-launcher", "ssh", "-launcher-exec", self.ssh, "-hosts", names]
        # UCX (MPICH's ch4:ucx) across hosts: their one interface.
        env = {"UCX_NET_DEVICES": self.interface, "NETNS_HOSTS_KEEP": KEEP}
        return Launch([self.run], list(options), mpiexec, env, name="hosts")


def make(directory):
    """Hosts made in directory, or the reason they cannot be made here."""
    if os.geteuid() != 0:
        return None, "network namespaces need root"
    proc = subprocess.run([NETNS_HOSTS, "up", str(directory), "3"], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        remove(directory)
        return None, "cannot make network namespaces here: %s" % (
            proc.stderr.strip().splitlines() or ["exit status %d" % proc.returncode])[-1]
    return Hosts(directory), None


def remove(directory):
    subprocess.run([NETNS_HOSTS, "down", str(directory)], capture_output=True)
