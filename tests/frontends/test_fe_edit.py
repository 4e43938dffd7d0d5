"""Editing a buffer from an MI front end: -var-assign on the element
children of a $mpipp varobj (and on a pair's members) writes the program's
memory, as Emacs gdb-mi and VS Code do when the user edits a value."""

import pytest

from midriver import Mi


@pytest.fixture(scope="module")
def mi():
    with Mi("exchange") as session:
        session.cmd("-enable-pretty-printing")
        session.run_to("stop_here")
        session.cmd("-stack-select-frame 1")
        yield session


def child(mi, var, *exps):
    """The varobj reached from var through children named exps ('[1]', ...)."""
    for exp in exps:
        kids, _ = mi.children(var)
        var = next(k for k in kids if k["exp"] == exp)["name"]
    return var


def value_of(mi, expression):
    return mi.cmd('-data-evaluate-expression "%s"' % expression)["value"]


def test_var_assign_on_an_element_child(mi):
    root = mi.cmd('-var-create - * "$mpipp(particle_t, out_particles, 2)"')["name"]
    ident = child(mi, root, "[1]", "[0]", "[0]", "[0]")        # [1][0][0][0]: particle 1's id
    assert mi.cmd("-var-evaluate-expression " + ident)["value"] == "1"
    assert mi.cmd("-var-assign %s 4242" % ident)["value"] == "4242"
    assert value_of(mi, "out_particles[1].id") == "4242"
    pos = child(mi, root, "[0]", "[0]", "[1]", "[1]")          # particle 0's pos[1]
    mi.cmd("-var-assign %s -7.5" % pos)
    assert value_of(mi, "out_particles[0].pos[1]") == "-7.5"
    text = mi.console("mpipp particle_t out_particles 2 [1][0][0]")
    assert text.strip() == "[1][0][0][0] = 4242"
    mi.cmd("-var-delete " + root)


def test_var_assign_on_a_pair_member_and_a_path_root(mi):
    root = mi.cmd('-var-create - * "$mpipp(pair_type, &out_pair, 1)"')["name"]
    index = child(mi, root, "[0]", "index")
    mi.cmd("-var-assign %s 31" % index)
    assert value_of(mi, "out_pair.index") == "31"
    mi.cmd("-var-delete " + root)
    element = mi.cmd('-var-create - * "$mpipp(column_t, &out_grid[0][1], 1, 0, 2, 0)"')["name"]
    mi.cmd("-var-assign %s 8.5" % element)
    assert value_of(mi, "out_grid[2][1]") == "8.5"
    mi.cmd("-var-delete " + element)
