"""mpipp-job across three hosts (network namespaces, hosts.py), launched
through the MPI's own remote launcher: the job scenarios of
test_job_launch.py with every rank's gdb next to it (the default when ranks
run on other hosts: answers merged in the tree, which must give what one
gdb per rank on the console's host gives), the check scenario with the
gdbs on the console's host, connected to gdbservers across the network, and
--until-hang with the gdbs next to the ranks (their back-ends read the
ranks' progress on the ranks' hosts)."""

import pytest

import hosts as hosts_
from test_job_launch import check_session, deadlock_session, deaths_session
from test_until_hang import busy_job_ended, hang_reported


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hosts")
    made, why = hosts_.make(directory)
    if made is None:
        pytest.skip(why)
    try:
        yield made
    finally:
        hosts_.remove(directory)


def rank_hosts(table):
    """{rank: host} of a `ranks` table."""
    return {int(line.split()[0]): line.split()[1] for line in table.splitlines()[1:]}


def test_deadlock_session_across_hosts(tmp_path, hosts):
    transcript = deadlock_session(tmp_path, hosts.launch(["--fanout", "1"]))
    assert "gdbs next to the ranks on 3 hosts; answers merged in a tree of fan-out 1" \
        in transcript


def test_check_across_hosts_with_gdbs_here(tmp_path, hosts):
    """--debuggers here: gdbserver beside each rank, the gdbs here."""
    out = check_session(tmp_path, hosts.launch(["--debuggers", "here"]))
    assert "gdbs next to the ranks" not in out


def test_deaths_across_hosts(tmp_path, hosts):
    table = deaths_session(tmp_path, hosts.launch())
    where = rank_hosts(table)
    assert set(where.values()) == set(hosts.names), table


def test_until_hang_across_hosts(tmp_path, hosts):
    """Two ranks on two hosts, neither the console's: the hang is found by
    reading each rank's progress on its host, down the tree (rank 1's
    through rank 0's back-end); a job that ends is not taken for a hung one,
    and mpipp-job exits with its status."""
    launch = hosts.launch(hosts=hosts.names[:2])
    text = hang_reported(tmp_path / "hang", launch)
    assert "mpipp-job: gdbs next to the ranks on 2 hosts; answers merged in a tree of " \
        "fan-out 8, depth 2" in text
    busy_job_ended(tmp_path / "busy", 2, launch)
