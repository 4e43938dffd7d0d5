"""`print` of MPI_Datatype values in real gdb on testprogs/types."""

import re

import pytest

import gdbrun

COMMANDS = [
    "frame function main",
    "print vector_type", "print/r vector_type", "print struct_type", "print predefined",
    "print null_type", "print bogus", "print holder", "print all_types[12]",
    "print markers_type", "print have_mpi1_names", "print freed_base", "print derived_of_freed",
    "print reuse_same_handle", "print reuse_second", "print uncommitted",
    "print all_types[15]", "info locals", "print all_types[0]@3",
]


@pytest.fixture(scope="module")
def out():
    return gdbrun.capture("types", COMMANDS)


def test_vector_shows_constructor_and_state(out):
    text = out["print vector_type"]
    assert 'vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "vector_t"' in text
    for field in ("combiner = MPI_COMBINER_VECTOR", "committed = true", "size = 48",
                  "lb = 0", "extent = 80", "true_lb = 0", "true_extent = 80",
                  "count = 3", "blocklength = 2", "stride = 4", "oldtype = MPI_DOUBLE"):
        assert field in text, field
    assert re.search(r"created_at = \S*types\.c:\d+", text)


def test_print_raw_shows_the_handle(out):
    # an integer (MPICH) or a pointer to an MPI object (Open MPI)
    assert re.fullmatch(r"\$\d+ = (-?\d+|\(MPI_Datatype\) 0x[0-9a-f]+)\n", out["print/r vector_type"])


def test_struct_lists_blocks_like_figure_5(out):
    """The markers struct of Protze et al. 2012 (docs/design.md), Figure 5,
    where the MPI still has MPI_LB and MPI_UB (removed in MPI-3.0; Open MPI
    4.1 lacks them)."""
    text = out["print markers_type"]
    if out["print have_mpi1_names"].endswith("= 0\n"):
        assert text.endswith("= MPI_DATATYPE_NULL\n")
        return
    assert "array_of_blocklengths = {1, 5, 7, 2, 1}" in text
    assert "array_of_displacements = {-4, 0, 47, 76, 100}" in text
    assert "array_of_types = {MPI_LB, MPI_INT, MPI_CHAR, MPI_DOUBLE, MPI_UB}" in text
    assert "lb = -4" in text and "extent = 104" in text


def test_predefined_null_and_unknown(out):
    assert out["print predefined"].endswith("= MPI_DOUBLE\n")
    assert out["print null_type"].endswith("= MPI_DATATYPE_NULL\n")
    assert "<unregistered MPI_Datatype" in out["print bogus"]
    assert str(0x7badbeef) in out["print bogus"] or "0x7badbeef" in out["print bogus"]


def test_field_and_array_elements(out):
    assert 'type = vector(count=3, blocklength=2, stride=4) of MPI_DOUBLE "vector_t"' in \
        out["print holder"]
    text = out["print all_types[0]@3"]
    assert text.count("combiner = MPI_COMBINER_") == 3


def test_nested_children_expand_three_levels(out):
    text = out["print all_types[12]"]
    assert text.count("combiner = MPI_COMBINER_") == 3  # struct > vector > contiguous
    assert "oldtype = contiguous(count=2) of MPI_INT" in text


def test_freed_base_stays_printable(out):
    text = out["print freed_base"]
    assert "contiguous(count=2) of MPI_DOUBLE" in text
    assert "freed by the program" in text and "freed = true" in text
    assert "oldtype = contiguous(count=2) of MPI_DOUBLE" in out["print derived_of_freed"]


def test_reused_handle_describes_the_new_type(out):
    assert out["print reuse_same_handle"].endswith("= 1\n")
    assert 'contiguous(count=6) of MPI_CHAR "reused_t"' in out["print reuse_second"]


def test_uncommitted_is_marked(out):
    assert "(uncommitted)" in out["print uncommitted"]
    assert "committed = false" in out["print uncommitted"]


def test_darray_parameters_are_symbolic(out):
    text = out["print all_types[15]"]
    assert "distribs = {BLOCK, BLOCK}" in text and "order = C" in text


def test_info_locals_uses_the_printer(out):
    text = out["info locals"]
    assert re.search(r"vector_type = vector\(count=3", text)
    assert re.search(r"predefined = MPI_DOUBLE", text)
