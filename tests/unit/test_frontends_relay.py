"""The MI relay's gdb-free parts (gdb-python/mpipp/frontends/relay.py): the
commands it follows, the results it changes and how, and nothing else.
Real gdb behind it: tests/frontends (MI) and tests/vscode (cdt-gdb-adapter)."""

from mpipp.frontends import relay
from mpipp.text import mi


def result(line):
    return mi.parse(line.encode())


def test_commands_followed():
    assert relay.parse_command(b'12-var-create --thread 1 --frame 2 - * "a \\"b\\""\n') == \
        (12, "-var-create", {"thread": "1", "frame": "2"}, ["-", "*", 'a "b"'])
    assert relay.parse_command(b"13-var-list-children 1 var1.[0..9]\n")[3] == ["1", "var1.[0..9]"]
    assert relay.listed(["--all-values", "var2"]) == "var2" and relay.listed(["var3"]) == "var3"
    for other in (b"14-var-delete var1\n", b"-var-create - * x\n", b"15-exec-run\n"):
        assert relay.parse_command(other) is None
    assert relay.parse_command(b'16-var-create - * "unterminated\n') is None


def test_create_plans_a_summary_only_for_printers_shown_as_ellipsis():
    varobjs = {}
    created = result('7^done,name="var1",numchild="0",value="{...}",type="MPI_Datatype",'
                     'thread-id="1",dynamic="1",has_more="1"')
    queries = relay.plan(created, "-var-create", {"thread": "1", "frame": "0"},
                         ["-", "*", "local_cell"], varobjs)
    assert [q.edits[0][0] for q in queries] == ["var1"] and not queries[0].children
    assert varobjs["var1"].summary_command(99) == \
        '99-mpipp-summary --thread 1 --frame 0 "local_cell"\n'
    plain = result('8^done,name="var2",numchild="0",value="3",type="int"')
    assert relay.plan(plain, "-var-create", {}, ["-", "@", "n"], varobjs) == []
    assert varobjs["var2"].frame is None  # floating: the selected frame


def test_children_are_named_from_their_root():
    root = relay.VarObject("$mpipp(t, b, 4)", "1", "0")
    root.height = 3
    listed = result('9^done,numchild="2",children=[child={name="v.[0]",exp="[0]",numchild="0",'
                    'value="{...}",type="unsigned long long",dynamic="1"},child={name="v.x",'
                    'exp="x",numchild="0",value="2",type="int"}],has_more="0"')
    varobjs = {"v": root}
    (query,) = relay.plan(listed, "-var-list-children", {}, ["1", "v"], varobjs)
    assert query.children and query.edits[0][0] == "v.[0]"
    assert query.command(5) == \
        '5-mpipp-summary --thread 1 -height 3 -child "[0]" "$mpipp(t, b, 4)"\n'
    assert varobjs["v.x"].path_expression() == "$mpipp(t, b, 4).x"
    assert varobjs["v.[0]"].child("[2]").path_expression() == "$mpipp(t, b, 4)[0][2]"


def test_patch_changes_only_the_named_tuples():
    line = (b'9^done,children=[child={name="a",exp="a",numchild="0",value="{...}",dynamic="1"},'
            b'child={name="b",exp="b",numchild="0",value="{...}",dynamic="1"}],has_more="0"\n')
    out = relay.patch(line, [("b", {"value": ("{...}", 'x "\u00d7"'), "numchild": ("0", "1")})])
    assert out == line.replace(b'name="b",exp="b",numchild="0",value="{...}"',
                               b'name="b",exp="b",numchild="1",value="x \\"\\303\\227\\""')
    # a value whose text holds the pattern is a C-string: never matched
    tricky = b'9^done,name="c",numchild="0",value="value=\\"{...}\\""\n'
    assert relay.patch(tricky, [("c", {"value": ("{...}", "s")})]) == tricky


def test_cstring_round_trips_through_the_mi_parser():
    for text in ("plain", 'q"uote\\', "10 \u00d7 MPI_DOUBLE", "line\nbreak"):
        assert result("1^done,v=%s" % relay.cstring(text)).results["v"] == text


def test_assign_names_and_deletes_follow_the_known_variable_objects():
    r = relay.Relay.__new__(relay.Relay)
    r.varobjs = {name: relay.VarObject("x") for name in ("v", "v.[1]", "v.[1].[0]", "w")}
    # cdt-gdb-adapter: "[1]" sent as "1", a deeper "[0]" as "[[0]]"
    assert r.mend_assign(b"7-var-assign --thread 1 --frame 0 v.1 4\n") == \
        b"7-var-assign --thread 1 --frame 0 v.[1] 4\n"
    assert r.mend_assign(b"8-var-assign v.[1].[[0]] 4\n") == b"8-var-assign v.[1].[0] 4\n"
    assert r.mend_assign(b"9-var-assign w 4\n") == b"9-var-assign w 4\n"
    r.forget(b"10-var-delete -c v\n")
    assert sorted(r.varobjs) == ["v", "w"]
    r.forget(b"11-var-delete v\n")
    assert sorted(r.varobjs) == ["w"]
