"""10^4 iterations of mixed nonblocking operations (Wait, Waitany, Waitsome,
Testsome, Testany, Testall, persistent Start/Startall, Request_free) leave no
stale request records: testprogs/ctx_stress checks the exported root
`mpireg_comm_root` after every iteration; gdb checks it at the end."""

import os
import subprocess

import gdbrun


def test_no_stale_requests_after_mixed_completion():
    env = dict(os.environ, LD_PRELOAD=os.path.join(gdbrun.BUILD, "libmpireg.so"))
    proc = subprocess.run([gdbrun.program("ctx_stress")], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK pending=0" in proc.stdout


def test_gdb_sees_no_requests_at_finalize():
    out = gdbrun.capture("ctx_stress", ["mpipp requests -json -all", "mpipp calls -brief"],
                         stop="PMPI_Finalize", setup=["set breakpoint pending on"])
    assert '"requests": []' in out["mpipp requests -json -all"]
    # after 10^4 iterations no thread's slot is left saying it is inside a
    # call: thread 1 is in MPI_Finalize (recorded, for the job console's
    # wait-for graph), every other thread outside MPI
    threads = [t for t in out["mpipp calls -brief"].splitlines() if t.startswith("thread ")]
    assert threads[0].startswith("thread 1 (LWP "), threads
    assert threads[0].endswith(": MPI_Finalize(comm=MPI_COMM_WORLD)"), threads
    assert all(t.endswith(": not inside an MPI call") for t in threads[1:]), threads
