"""libmpireg's channel counters (tests/c/channels.c, 2 ranks): every kind of
point-to-point call, wildcard receives whose statuses the program ignores,
probes and matched probes, collectives, a freed communicator, polling; and
exact counts when 4 threads per rank send and receive at once under
MPI_THREAD_MULTIPLE.  Also built with AddressSanitizer."""

import pytest

from mpireg_testutil import check_ok, prog, run
from test_registry_stress import asan_build, asan_reports_about_us


@pytest.mark.parametrize("mode", ["", "threads"])
def test_channels(mode):
    res = run([prog("channels")] + ([mode] if mode else []), nprocs=2)
    check_ok(res, "channels")


def test_channels_asan(tmp_path):
    exe = asan_build(tmp_path, "channels")
    env = {"ASAN_OPTIONS": "detect_leaks=1:exitcode=0:halt_on_error=1"}
    res = run([exe], nprocs=2, env=env)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-6000:]
    assert out.count("channels: OK (0 failures)") == 2, out[-6000:]
    assert asan_reports_about_us(out) == []
