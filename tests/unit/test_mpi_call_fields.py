"""One naming for an MPI call's buffers: comm.spec's parameter names (the
MPI standard's) are what libmpireg records a buffer under, what `mpipp
calls` and the job console's `calls` show, and the fields of $mpi_call
(struct mpireg_mpi_call, libmpireg/context/mpicall.c)."""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LIBMPIREG = os.path.join(ROOT, "libmpireg")
sys.path.insert(0, LIBMPIREG)
import genwrappers  # noqa: E402


def labels():
    """{function: [buffer label, ...]} of every comm.spec row."""
    rows = genwrappers.read_rows(os.path.join(LIBMPIREG, "context", "comm.spec"), set())
    return {name: [genwrappers.buffer_label(hook, args, params) for hook, args in recipe
                   if hook in genwrappers.BUFFER_HOOKS]
            for name, params, recipe, _ in rows}


def struct_fields():
    with open(os.path.join(LIBMPIREG, "context", "mpicall.c")) as f:
        body = re.search(r"struct mpireg_mpi_call \{(.*?)\n\};", f.read(), re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return {name for decl in body.split(";")
            for name in re.findall(r"\**\s*([A-Za-z_]\w*)\s*(?:,|$)", decl.strip())}


def test_buffers_are_recorded_under_the_standards_names():
    found = labels()
    assert found["MPI_Send"] == ["buf/count/datatype"]
    assert found["MPI_Bcast"] == ["buffer/count/datatype"]
    assert found["MPI_Sendrecv"] == ["sendbuf/sendcount/sendtype", "recvbuf/recvcount/recvtype"]
    assert found["MPI_Allreduce"] == ["sendbuf/count/datatype", "recvbuf/count/datatype"]
    assert found["MPI_Gatherv"] == ["sendbuf/sendcount/sendtype",
                                    "recvbuf/recvcounts/displs/recvtype"]
    assert found["MPI_Alltoallw"] == ["sendbuf/sendcounts/sdispls/sendtypes",
                                      "recvbuf/recvcounts/rdispls/recvtypes"]
    assert found["MPI_Get_accumulate"][:2] == ["origin_addr/origin_count/origin_datatype",
                                               "result_addr/result_count/result_datatype"]


def test_every_name_comm_spec_gives_a_buffer_is_a_field_of_mpi_call():
    fields = struct_fields()
    assert {"function", "peer", "comm", "target_datatype", "nrequests"} <= fields
    named = {name for found in labels().values() for label in found
             for name in label.split("/") if re.match(r"^[A-Za-z_]\w*$", name)}
    assert named - {"packed"} <= fields, sorted(named - fields)
    assert not {"buf2", "buf3", "count2", "datatype2"} & fields
