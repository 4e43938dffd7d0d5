"""Sites in C++ code without debug information (testprogs/cxxsite.cpp, built
as Debian builds GROMACS and LAMMPS): the text names the function shortened
past 80 characters -- template arguments first, then parameter lists --
and -json keeps the whole signature."""

import json
import re

import gdbrun

COMMANDS = ["mpipp list", "mpipp list -json", "mpipp calls -brief", "mpipp calls -json"]
CLASS = ("mpipp_test::Exchange<std::__cxx11::basic_string<char, std::char_traits<char>, "
         "std::allocator<char> >, std::vector<double, std::allocator<double> > >")


def test_long_cxx_sites_are_shortened_in_text_and_whole_in_json():
    out = gdbrun.capture("cxxsite", COMMANDS, stop="PMPI_Barrier",
                         setup=["set breakpoint pending on"])
    created = "mpipp_test::Exchange<…>::make_row_type(std::map<…> const&, int, double) in cxxsite"
    assert re.search(r"^0x\w+ +#1 +- +CONTIGUOUS +24 +24 +%s$" % re.escape(created),
                     out["mpipp list"], re.M), out["mpipp list"]
    whole = json.loads(out["mpipp list -json"])["types"][0]["created_at"]
    assert whole.startswith(CLASS + "::make_row_type(std::map<std::__cxx11::basic_string<char, ")
    assert whole.endswith(" const&, int, double) in cxxsite") and len(whole) > 500
    calls = out["mpipp calls -brief"]
    # share(std::map<…> const&, int, MPI_Comm): MPICH's MPI_Comm is an int (the
    # name fits once the templates go), Open MPI's a pointer to a struct
    # whose long name takes the parameters too
    short = {"mpich": r"std::map<…> const&, int, int", "openmpi": r"…"}[gdbrun.MPI]
    assert re.search(r"^    at mpipp_test::Exchange<…>::share\(%s\) in cxxsite$" % short,
                     calls, re.M), calls
    site = json.loads(out["mpipp calls -json"])["threads"][0]["site"]
    assert site.startswith(CLASS + "::share(std::map<") and site.endswith(" in cxxsite"), site
