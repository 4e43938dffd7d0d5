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
