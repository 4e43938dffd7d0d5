"""$mpi_call with a libmpireg stripped of its debug information, as a
distribution's strip would leave it: $mpi_call takes its type from that
information, so it stays void, the first stop inside an MPI call says why
in one line, an mpipp command naming it fails with that line, and the rest
of mpipp (the call, the frame decorator) works as before."""

import os
import subprocess

import gdbrun

NOTICE = ("mpipp: $mpi_call needs libmpireg's debug information (struct mpireg_mpi_call), "
          "which this libmpireg lacks; 'mpipp calls' shows the call")


def test_mpi_call_without_debug_information(tmp_path):
    stripped = str(tmp_path / "libmpireg.so")
    subprocess.run(["strip", "--strip-debug", "-o", stripped,
                    os.path.join(gdbrun.BUILD, "libmpireg.so")], check=True)
    out = gdbrun.capture("demo", ["break PMPI_Sendrecv", "break PMPI_Sendrecv_replace",
                                  "continue", "print $mpi_call",
                                  "mpipp $mpi_call.datatype $mpi_call.buf", "mpipp calls -brief",
                                  "bt 2", "continue ", "mpipp  calls -brief"],
                         env={"MPIPP_LIB": stripped})
    assert NOTICE in out["continue"], out["continue"]
    assert out["print $mpi_call"].strip() == "$1 = void", out
    assert out["mpipp $mpi_call.datatype $mpi_call.buf"] == gdbrun.GdbFailure(NOTICE)
    assert "MPI_Sendrecv(sendbuf=0x" in out["mpipp calls -brief"], out
    assert "in MPI_Sendrecv (sendbuf=0x" in out["bt 2"], out["bt 2"]
    # said once a session, not at every stop
    assert "MPI_Sendrecv_replace(" in out["mpipp  calls -brief"], out
    assert NOTICE not in out["continue "], out["continue "]
