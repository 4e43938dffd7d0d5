"""mpipp-job across three hosts (network namespaces, hosts.py), launched
through the MPI's own remote launcher: the job scenarios of
test_job_launch.py with every rank's gdb next to it (the default when ranks
run on other hosts: answers merged in the tree, which must give what one
gdb per rank on the console's host gives), and the check scenario with the
gdbs on the console's host, connected to gdbservers across the network."""

import pytest

import hosts as hosts_
from test_job_launch import check_session, deadlock_session, deaths_session


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
