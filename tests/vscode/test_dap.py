"""mpipp in VS Code for real: the Eclipse CDT debug adapter (cdt-gdb-adapter,
what cdt-gdb-vscode and Theia run), from npm, driven over the Debug Adapter
Protocol by @vscode/debugadapter-testsupport's DebugClient (session.js),
with the launch.json configurations of docs/vscode.md as they are written
there.  One launched session answers most tests; one rank of a deadlocked
job is attached to."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

import gdbrun

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(gdbrun.REPO, "docs", "vscode.md")
SOURCE = os.path.join(gdbrun.REPO, "testprogs", "frontend.c")

if shutil.which("node") is None:
    pytest.skip("node is not installed: the VS Code adapter (cdt-gdb-adapter) runs on Node.js",
                allow_module_level=True)


def doc_configurations():
    """{(type, request): configuration} of the launch.json blocks in the doc."""
    blocks = re.findall(r"```json\n(.*?)```", open(DOC).read(), re.S)
    configs = [json.loads(block) for block in blocks]
    return {(c["type"], c["request"]): c for c in configs}


def configuration(kind, request, program, **values):
    """A configuration of the doc, with this checkout's mpipp-gdb and program."""
    text = json.dumps(doc_configurations()[kind, request])
    text = text.replace("/usr/bin/mpipp-gdb", gdbrun.MPIPP_GDB)
    text = text.replace("${workspaceFolder}/app", program)
    for name, value in values.items():
        text = text.replace("${%s}" % name, value)
    assert "${" not in text, text
    return text


def session(*args, timeout=300):
    if not os.path.isdir(os.path.join(HERE, "node_modules", "cdt-gdb-adapter")):
        pytest.fail("tests/vscode/node_modules is missing: make check installs it (npm ci)")
    proc = subprocess.run(["node", os.path.join(HERE, "session.js")] + list(args),
                          capture_output=True, text=True, timeout=timeout, cwd=HERE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def launched():
    line = next(k for k, text in enumerate(open(SOURCE), 1) if text.strip() == "stop_here();")
    config = configuration("gdb", "launch", gdbrun.program("frontend"))
    return session("launch", config, SOURCE, str(line))


def by_name(variables):
    return {v["name"]: v for v in variables}


CELL_T = 'struct(count=2) of {halo_t, MPI_INT} "cell_t"'


def test_datatype_local_shows_its_description_and_expands(launched):
    cell = by_name(launched["locals"])["local_cell"]
    assert cell["type"] == "MPI_Datatype"
    # Open MPI's handles point to a struct gdb 13 cannot give children
    # safely (datatypes/printers.py): the value is the whole description,
    # and the type is browsed as $mpipp_type(...)
    if gdbrun.handles_are_pointers("frontend"):
        assert cell["value"].startswith(CELL_T + " = {combiner = MPI_COMBINER_STRUCT")
        assert cell["variablesReference"] == 0 and launched["cellChildren"] is None
    else:
        assert cell["value"] == CELL_T and cell["variablesReference"] > 0
        fields = by_name(launched["cellChildren"])
        assert fields["combiner"]["value"] == "MPI_COMBINER_STRUCT"
        assert fields["count"]["value"] == "2" and fields["extent"]["value"] == "56"
    browsed = launched["typeWatch"]
    assert browsed["value"]["result"] == CELL_T and browsed["value"]["variablesReference"] > 0
    assert by_name(browsed["page"])["combiner"]["value"] == "MPI_COMBINER_STRUCT"
    halo, mpi_int = launched["typeChildren"]
    # a child datatype: its own description, expandable further
    assert halo["value"] == ('vector(count=3, blocklength=1, stride=2) of MPI_DOUBLE "halo_t" '
                             '(uncommitted) (freed by the program)'), halo
    assert halo["variablesReference"] > 0
    assert mpi_int["value"] == "MPI_INT" and mpi_int["variablesReference"] == 0


def test_buffer_children_are_fetched_lazily(launched):
    small, big = launched["small"], launched["big"]
    assert small["value"]["result"].startswith("1000 × MPI_DOUBLE at 0x")
    assert [v["value"] for v in small["page"][:3]] == ["0", "0.5", "1"]
    assert len(small["page"]) == 1000
    # 10^7 elements: the first page is 10 groups, each 1000 groups of 1000
    assert big["value"]["result"].startswith("10000000 × MPI_DOUBLE at 0x")
    assert [v["name"] for v in big["page"][:2]] == ["[0..999999]", "[1000000..1999999]"]
    assert len(big["page"]) == 10 and all(v["variablesReference"] for v in big["page"])
    group = launched["bigGroup"]
    assert len(group) == 1000 and group[0]["name"].endswith("[1000000..1000999]]")


def test_set_variable_writes_a_buffer_element(launched):
    assert launched["cells"]["result"].startswith('4 × struct(count=2) of {halo_t, MPI_INT} '
                                                  '"cell_t" at 0x')
    element = launched["element"]
    assert element["value"] == "14" and element["type"] == "double", element
    assert launched["set"]["value"] == "-2.5"
    assert launched["afterSet"]["result"] == "-2.5"


def test_debug_console_runs_mpipp_calls(launched):
    output = launched["calls"]["output"]
    assert re.search(r"thread 1 \(LWP \d+\): MPI_Finalize\(comm=MPI_COMM_WORLD\)", output), output


def test_attach_to_one_rank_of_a_job():
    piddir = tempfile.mkdtemp()
    lib = os.path.join(gdbrun.BUILD, "libmpireg.so")
    job = subprocess.Popen(gdbrun.mpiexec(2, env={"LD_PRELOAD": lib})
                           + [gdbrun.program("job"), "deadlock"],
                           env=dict(os.environ, JOB_PIDDIR=piddir), start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        blocking = os.path.join(piddir, "blocking.1")
        deadline = time.monotonic() + 120
        while not os.path.exists(blocking) and time.monotonic() < deadline:
            time.sleep(0.1)
        pid = open(blocking).read().strip()
        time.sleep(0.5)  # from the file to MPI_Recv
        config = configuration("gdb", "attach", gdbrun.program("job"),
                               **{"command:cdt.debug.askProcessId": pid})
        report = session("attach", config)
        output = report["calls"]["output"]
        assert re.search(r"MPI_Recv\(buf=0x[0-9a-f]+, count=\d+, datatype=\w+, source=0, "
                         r"tag=10, comm=MPI_COMM_WORLD", output), output
        assert job.poll() is None, "the rank must run on after the detach"
    finally:
        gdbrun.stop_job(job)
        shutil.rmtree(piddir, ignore_errors=True)


def test_cpptools_configurations_set_up_mpipp_gdb():
    """Microsoft's adapter (not on npm) sends its setupCommands over MI:
    each must be accepted by mpipp-gdb."""
    configs = doc_configurations()
    for request in ("launch", "attach"):
        config = configs["cppdbg", request]
        assert config["miDebuggerPath"] == "/usr/bin/mpipp-gdb" and config["MIMode"] == "gdb"
        commands = "".join("%d%s\n" % (k, c["text"])
                           for k, c in enumerate(config["setupCommands"], 1))
        proc = subprocess.run([gdbrun.MPIPP_GDB, "-nx", "--interpreter=mi2"],
                              input=commands + "-gdb-exit\n", capture_output=True, text=True,
                              timeout=60)
        for k in range(1, len(config["setupCommands"]) + 1):
            assert re.search(r"^%d\^done" % k, proc.stdout, re.M), proc.stdout
