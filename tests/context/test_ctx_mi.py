"""MPI_Request, MPI_Comm and MPI_Op printers through MI varobjs (Emacs gdb-mi,
VS Code), and a buffer of a pending request as an expandable varobj."""

from midriver import Mi


def test_handle_printers_in_mi():
    with Mi("ctx_requests") as mi:
        mi.cmd("-enable-pretty-printing")
        mi.run_to("stop_pending")
        values = {}
        for expr in ("reqs[0]", "dup_comm", "world", "my_op", "sum_op", "persist_req"):
            r = mi.cmd('-var-create - * "%s"' % expr)
            values[expr] = r["value"]
        assert values["reqs[0]"].startswith("0x") and "MPI_Irecv(" in values["reqs[0]"]
        assert "datatype=row_t" in values["reqs[0]"] and values["reqs[0]"].endswith("pending>")
        assert values["dup_comm"] == "dup_comm [dup of MPI_COMM_WORLD, rank 0 of 1]"
        assert values["world"] == "MPI_COMM_WORLD [rank 0 of 1]"
        assert values["my_op"] == "user op my_sum (commutative)"
        assert values["sum_op"] == "MPI_SUM"
        assert "persistent, inactive" in values["persist_req"]
        r = mi.cmd('-var-create - * "rints"')  # the pending Irecv the Isend of ints matched
        assert r.get("dynamic") == "1"  # children come from the printer
        kids, _ = mi.children(r["name"])
        names = [k["exp"] for k in kids]
        assert names == ["[0][0][0]", "[0][1][0]", "[1][0][0]", "[1][1][0]"]
        assert [k["value"] for k in kids] == ["100", "102", "103", "105"]
        r = mi.cmd('-var-create - * "row_ptr"')
        assert "points at [1][2] (MPI_DOUBLE) +0 of buf of pending MPI_Irecv" in r["value"]


def test_frame_decorator_and_current_call_over_mi():
    """Inside MPI, with frame filters on (Emacs and VS Code enable them), the
    frames of the MPI call list the call's own arguments, and $mpi_call has
    them with their types."""
    with Mi("ctx_requests") as mi:
        mi.cmd("-enable-pretty-printing")
        mi.cmd("-enable-frame-filters")
        mi.cmd("-break-insert -f PMPI_Allreduce")
        mi.cmd("-exec-run")
        mi.wait_stopped()
        frames = mi.cmd("-stack-list-frames")["stack"]
        wrapper = next(k for k, f in enumerate(frames) if f.get("func") == "MPI_Allreduce")
        args = mi.cmd("-stack-list-arguments 1 %d %d" % (wrapper, wrapper))["stack-args"][0]
        values = {a["name"]: a["value"] for a in args["args"]}
        # MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm): the
        # standard's names, in the frame and in $mpi_call alike
        names = [a["name"] for a in args["args"]]
        assert names[:4] == ["sendbuf", "count", "datatype", "recvbuf"], names
        assert values["count"] == "1" and values["datatype"] == "MPI_INT"
        assert values["op"] == "user op my_sum" and values["comm"] == "MPI_COMM_WORLD"
        assert values["sendbuf"].startswith("0x")
        assert mi.cmd("-data-evaluate-expression $mpi_call.count")["value"] == "1"
        assert mi.cmd("-data-evaluate-expression $mpi_call.datatype")["value"] == "MPI_INT"
        for role in ("sendbuf", "recvbuf"):
            assert mi.cmd("-data-evaluate-expression (long)$mpi_call.%s" % role)["value"] == \
                str(int(values[role].split()[0], 16))
