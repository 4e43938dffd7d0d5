"""Legal extreme datatypes (testprogs/extremes) through every printer and
command: one CLI session over pipes (as DDD drives gdb) and one MI session
(as Emacs and VS Code do), each command with a time limit that only catches
a hang.  Whatever the type -- 10**6 or 9,000 blocks, 1000 levels, 32
dimensions, no data, bounds MPI defines its own way, extents beyond
MPI_Aint, arrays of 2**60 bytes --, gdb never crashes, hangs or shows a
traceback or an "internal error": each command answers, or refuses in one
line that names the limit and the setting that lifts it."""

import ast
import re

import pytest

import gdbrun
from clidriver import Cli
from midriver import Mi, MiError

# -as with a COUNT of 10**12: refused at once on any type (it used to list
# the runs of 10**12 repetitions first, and never answered)
AS_HUGE = "mpipp -as double {t} {b} 1000000000000"
# Commands on every type: {t} is the type, {b} a buffer for it (small_buf
# when no buffer can hold it: then reading its elements fails, in one line).
COMMANDS = (
    "print {t}", "print/r {t}", "output {t}", "print $mpipp_type({t})", "mpipp info {t}",
    "mpipp info -json {t}", "mpipp signature {t}", "mpipp typemap {t}",
    "mpipp typemap -json {t}", "mpipp {t} {b}", "mpipp -json {t} {b} 2",
    "mpipp -offsets {t} {b} 2", "mpipp where {t} {b} {b}",
    "mpipp where -json {t} {b} (char*){b}+5 3", "mpipp layout {t}", "mpipp layout {t} 3",
    "mpipp layout -svg {dir}/t.svg {t}", "mpipp dump -raw {t} {b} {dir}/t.raw",
    "mpipp dump -json {t} {b} {dir}/t.json", "mpipp diff {t} {b} {b}",
    "mpipp diff {t} {b} {dir}/t.raw", "mpipp export {t}", "mpipp match {t} 1 {t} 1",
    "mpipp -as double {t} {b}", AS_HUGE,
    "print $mpipp({t}, {b})", "print $mpipp({t}, {b}, 2, 1)",
    "print -max-depth 100 -- $mpipp({t}, {b})", "display $mpipp({t}, {b})", "undisplay",
)
# The 10**6-block type: the commands whose cost must not grow with the
# type (the others, answers of 10**6 entries, are the benchmarks' business).
BIG = "idx_big"
BIG_COMMANDS = ("print {t}", "output {t}", "print $mpipp_type({t})", "mpipp info {t}",
                "mpipp where {t} {b} {b}", "mpipp layout {t}", "print $mpipp({t}, {b})",
                "print $mpipp({t}, {b}, 1, 0)", "mpipp -as int {t} {b}", AS_HUGE)
# One-line refusals, each naming its limit and what lifts it.
REFUSALS = {
    ("chain_2000", "mpipp info {t}"): "too deep to show: more than 1000 levels (set mpipp "
                                      "max-depth, up to 2000)",
    ("chars_1g", "mpipp typemap -json {t}"): "holds 1073741824 elements, more than 16777216; "
                                             "pass -all",
    ("cont_2g", "mpipp dump -raw {t} {b} {dir}/t.raw"): "bytes of data, more than 1073741824; "
                                                        "pass -all",
}
# Bounds MPI defines its own way (MPICH: vector(3, 0, 4) has extent 32):
# accepted, and said so when they differ from the standard's formula.
MPI_OWN_BOUNDS = {"vec_bl0": ("0", "for a type without data"),
                  "hidx_overflow": ("9223372036854775809", "beyond MPI_Aint")}
# MPI-4 large counts past 64 bits (MPICH only: Open MPI 4.1 has no _c
# constructors, so there these rows are not built and not run): legal
# types whose values overflow inside MPI.  hvec_c_2_64, hvector_c(2**62+2,
# 2, 24, MPI_FLOAT): 2**65+16 bytes, a true extent past 2**64 (print used
# to stop at it, OverflowError); hvec_c_wrap, hvector_c(2**62, 1, 2**40,
# MPI_DOUBLE): 2**65 bytes, MPICH's size wraps to 0 and it reports extent 0
# (every command but one used to call the record corrupted).  Every command
# answers; what is true is shown beside what MPI reports.
LARGE_COUNTS = {
    "hvec_c_2_64": ("true_extent = 110680464442257309728",
                    "size and extent as MPI reports them (the standard's formula gives size "
                    "36893488147419103248, extent 110680464442257309728, beyond MPI_Aint)",
                    "is [0][0][0] (MPI_FLOAT) +0", "[0][1][1] = "),
    "hvec_c_wrap": ("true_extent = 5070602400912917604887301193736",
                    "size and extent as MPI reports them (the standard's formula gives size "
                    "36893488147419103232, extent 5070602400912917604887301193736, beyond "
                    "MPI_Count: MPI's size wrapped to 0, and MPI bounds a type without data "
                    "its own way)", "is [0][0][0] (MPI_DOUBLE) +0", "[0][0][0] = "),
}
BROKEN = re.compile(r"Traceback|Python Exception|Error occurred in Python|internal error|"
                    r"corrupted")
TYPES_PY = ("python print([(gdb.parse_and_eval('extremes[%d]' % k)['name'].string(), "
            "int(gdb.parse_and_eval('extremes[%d]' % k)['built'])) "
            "for k in range(int(gdb.parse_and_eval('n_extremes')))])")


def check(command, out):
    """No crash sign in out; an mpipp refusal is one line."""
    assert not BROKEN.search(out), "%s:\n%s" % (command, out)
    if out.startswith("mpipp:"):
        assert out.count("\n") == 1, "%s: a refusal of more than one line:\n%s" % (command, out)


def types_of(text):
    """[(index, name)] of the types this MPI built, from TYPES_PY's output."""
    table = ast.literal_eval(re.search(r"\[\(.*\)\]", text).group(0))
    return [(k, name) for k, (name, built) in enumerate(table) if built]


@pytest.fixture(scope="module")
def cli():
    with Cli("extremes") as session:
        session.cmd("break stop_here")
        session.cmd("run", timeout=300)
        session.cmd("up")
        yield session


def test_every_command_on_every_legal_extreme_type(cli, tmp_path):
    types = types_of(cli.cmd(TYPES_PY))
    assert len(types) >= 35, types
    outputs = {}
    for k, name in types:
        cli.cmd("set $t = extremes[%d].type" % k)
        cli.cmd("set $b = extremes[%d].buf ? extremes[%d].buf : (void *)small_buf" % (k, k))
        for command in BIG_COMMANDS if name == BIG else COMMANDS:
            text = command.format(t="$t", b="$b", dir=tmp_path)
            outputs[name, command] = out = cli.cmd(text, timeout=120)
            check("%s: %s" % (name, text), out)
    for (name, command), refusal in REFUSALS.items():
        if (name, command) in outputs:
            assert outputs[name, command].startswith("mpipp:"), outputs[name, command]
            assert refusal in outputs[name, command], outputs[name, command]
    for name, (formula, why) in MPI_OWN_BOUNDS.items():
        info = outputs[name, "mpipp info {t}"]
        if ", extent %s," % formula not in info:
            assert "extent as MPI reports it (the standard's formula gives extent %s, %s)" % (
                formula, why) in info, info
    for name, (field, note, where, first) in LARGE_COUNTS.items():
        if gdbrun.MPI != "mpich":       # MPI-4 constructors: not in Open MPI 4.1
            assert (name, "print {t}") not in outputs, name
            continue
        assert field in outputs[name, "print {t}"] and note in outputs[name, "print {t}"]
        assert note in outputs[name, "mpipp info {t}"]
        assert where in outputs[name, "mpipp where {t} {b} {b}"]
        # 2**65 bytes of data: a decode needs -all, as any type of more than 1 GiB does
        refused = outputs[name, "mpipp {t} {b}"]
        assert refused.startswith("mpipp: COUNT 1 holds 36893488147419103"), refused
        decoded = cli.cmd("mpipp -all %s small_buf" % name, timeout=120)
        check(name, decoded)
        assert decoded.startswith("[0][0][0] = ") and first in decoded, decoded
        # an element written through the type (at small_buf's first byte)
        # reads back, then the buffer is as it was
        for value in ("3", "0"):
            check(name, cli.cmd("mpipp set %s small_buf [0][0][0] = %s" % (name, value)))
            assert cli.cmd("mpipp -all %s small_buf 1 [0][0][0]" % name) == \
                "[0][0][0] = %s\n" % value
    for (name, command), out in outputs.items():
        if command == AS_HUGE:
            assert out.startswith("mpipp: "), (name, out)
    # costs that grow with the answer: 10**6 blocks print like a few
    assert re.match(r'\$\d+ = indexed\(count=1000000\) of MPI_INT "idx_big" = \{combiner',
                    outputs[BIG, "print {t}"])
    assert "(buffer offset +0) is [0][0][0] (MPI_INT) +0" in outputs[BIG, "mpipp where {t} {b} {b}"]
    # a tree of 2**32 elements prints 'print elements' of them, then "..."
    assert re.search(r", \.\.\.\}+$", outputs["darr_32", "print $mpipp({t}, {b})"].rstrip())
    # nested stride-0 loops: every holder counted, in one walk per loop
    dups = outputs["dups_100", "mpipp where {t} {b} {b}"]
    assert "is [0]" + "[0]" * 100 + " (MPI_INT) +0" in dups
    assert "is in no element (the buffer has none)" in outputs["cont_0", "mpipp where {t} {b} {b}"]
    assert "1073741824×1073741824 array" in outputs["sub_2_30", "mpipp layout {t}"]


def test_frames_values_and_settings_with_extreme_types(cli):
    """Where gdb prints values by itself: locals, arguments, backtraces,
    displays, with frame-arguments all and a max-value-size of 16 bytes
    (3 struct members make a 24-byte array); the depth limit is a setting,
    and every walk works at its highest value."""
    deepest = dict((name, k) for k, name in types_of(cli.cmd(TYPES_PY)))["chain_2000"]
    for command in ("info locals", "info args", "bt full", "set print frame-arguments all",
                    "frame 1", "bt", "display extremes[5].type", "undisplay",
                    "set max-value-size 16", "print extremes[7].type",
                    "print $mpipp_type(extremes[7].type)", "print extremes[2].type",
                    "info locals", "bt full", "set max-value-size 65536",
                    "set mpipp max-depth 2000", "set $t = extremes[%d].type" % deepest) + tuple(
                        command.format(t="$t", b="small_buf", dir="/dev/null")
                        for command in COMMANDS if "dir" not in command) + (
                    "print -max-depth unlimited -- $t",
                    "print -max-depth unlimited -- $mpipp_type($t)",
                    "print -max-depth unlimited -- $mpipp($t, small_buf)",
                    "set mpipp max-depth 1000"):
        out = cli.cmd(command, timeout=120)
        check(command, out)
        if command == "info locals":
            assert re.search(r"local_struct3 = struct\(count=3\) of \{MPI_INT, MPI_DOUBLE\} "
                             r'"struct3" = \{combiner = MPI_COMBINER_STRUCT', out), out
            assert "local_many = hindexed(count=9000)" in out
    assert "serial" in cli.cmd("mpipp info chain_1000")
    out = cli.cmd("set mpipp max-depth 2001")
    assert out.startswith("mpipp: max-depth must be 1..2000"), out
    # abbreviations of subcommands are TYPE expressions, not subcommands
    # ('mpipp v' is not 'mpipp view'), and 'help' lists subcommands alone
    out = cli.cmd("mpipp v small_buf")
    assert out.startswith("mpipp: cannot evaluate datatype 'v'"), out
    listing = cli.cmd("help mpipp")
    assert "\nmpipp view -- " in listing and not re.search(r"^mpipp (v|vi|vie)\b", listing,
                                                         re.M)
    # one bad record never hides the others: every type is listed
    listing = cli.cmd("mpipp list")
    check("mpipp list", listing)
    assert "hidx_overflow" in listing and "chain_2000" in listing and "idx_big" in listing


def test_finish_shows_the_returned_datatype(cli):
    """finish prints the handle a function returns as the datatype it is;
    the stops on the way, one inside MPI (where $mpi_call describes the
    call), with a max-value-size of 16 bytes."""
    cli.cmd("set max-value-size 16")
    cli.cmd("break make_type")
    check("continue", cli.cmd("continue", timeout=120))
    out = cli.cmd("finish", timeout=120)
    check("finish", out)
    assert re.search(r'Value returned is \$\d+ = struct\(count=9000\) of \{MPI_INT, MPI_DOUBLE\} '
                     r'"struct_many"', out), out
    check("info locals", cli.cmd("info locals"))
    cli.cmd("delete")
    cli.cmd("break PMPI_Finalize")
    check("continue", cli.cmd("continue", timeout=120))
    assert cli.cmd("print $mpi_call").endswith(" = void\n")   # 160 bytes: none made
    cli.cmd("set max-value-size 65536")


@pytest.fixture(scope="module")
def mi():
    with Mi("extremes", timeout=120) as session:
        session.cmd("-enable-pretty-printing")
        session.run_to("stop_here")
        yield session


def _unreadable(err):
    """Elements of a buffer beyond small_buf cannot be read: gdb answers a
    varobj command that shows their values with this error, and goes on."""
    assert str(err).startswith("Cannot access memory at address"), err


def _expand(mi, var, depth=2):
    """Lists a varobj's children (the first 20), and theirs, depth levels."""
    try:
        kids, _ = mi.children(var, 0, 20)
    except MiError as err:
        _unreadable(err)
        return
    if depth > 1:
        for kid in kids:
            if kid.get("numchild", "0") != "0" or kid.get("dynamic") == "1":
                _expand(mi, kid["name"], depth - 1)


def test_mi_variables_and_varobjs_of_extreme_types(mi):
    """What Emacs and VS Code send at every stop and to expand a value."""
    mi.cmd("-stack-select-frame 1")
    for command in ("-stack-list-variables --all-values", "-stack-list-locals --all-values",
                    "-stack-list-arguments --all-values", "-stack-list-variables --simple-values"):
        mi.cmd(command)
    types = types_of(mi.console(TYPES_PY))
    for k, name in types:
        for expression in ("extremes[%d].type" % k, "$mpipp_type(extremes[%d].type)" % k,
                           "$mpipp(extremes[%d].type, small_buf)" % k):
            try:
                var = mi.cmd('-var-create - * "%s"' % expression)["name"]
            except MiError as err:
                _unreadable(err)
                continue
            _expand(mi, var)
            mi.cmd("-var-update --all-values *")
            mi.cmd("-var-delete " + var)
        value = mi.cmd("-data-evaluate-expression extremes[%d].type" % k)["value"]
        assert "internal error" not in value and "corrupted" not in value, (name, value)
    for command in ("mpipp info idx_big", "mpipp where idx_big extremes[0].buf "
                    "extremes[0].buf", "mpipp layout sub_2_30", "mpipp list"):
        check(command, mi.console(command))
    mi.cmd("-gdb-set max-value-size 16")
    mi.cmd("-stack-list-variables --all-values")
    var = mi.cmd('-var-create - * "extremes[7].type"')["name"]
    _expand(mi, var)
    assert mi.cmd("-data-evaluate-expression 1+1")["value"] == "2"  # gdb is whole


def test_tui_window_with_extreme_types():
    from terminal import Tmux
    command = "%s -nx -q -ex 'set pagination off' -ex 'break stop_here' -ex run -ex up %s" % (
        gdbrun.MPIPP_GDB, gdbrun.program("extremes"))
    tmux = Tmux(command)
    try:
        tmux.wait_for("(gdb)", timeout=120)
        tmux.keys("layout mpipp", "Enter")
        tmux.wait_for("nothing shown yet")
        for shown, text in (("mpipp info struct_many", "struct_many: struct(count=9000)"),
                            ("mpipp info idx_big", "idx_big: indexed(count=1000000)"),
                            ("mpipp hidx_many extremes[2].buf", "buffer: 1 × hidx_many")):
            tmux.keys(shown, "Enter")
            screen = tmux.wait_for(text, timeout=60)
            assert not BROKEN.search(screen), screen
    finally:
        tmux.close()
