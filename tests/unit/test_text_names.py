"""text/names.py: C++ signatures shortened readably and predictably (the
names are Debian's LAMMPS and GROMACS, as gdb and `info symbol` give them)."""

import pytest

from mpipp.text.names import WIDTH, short_function, short_site

PME = ("gmx_pme_do(gmx_pme_t*, gmx::ArrayRef<gmx::BasicVector<float> const>, "
       "gmx::ArrayRef<gmx::BasicVector<float> >, gmx::ArrayRef<float const>, "
       "gmx::ArrayRef<float const>, gmx::ArrayRef<float const>, gmx::ArrayRef<float const>, "
       "gmx::ArrayRef<float const>, gmx::ArrayRef<float const>, float const (*) [3], "
       "t_commrec const*, int, int, t_nrnb*, gmx_wallcycle*, float (*) [3], float (*) [3], "
       "float*, float*, float, float, float*, float*, gmx::StepWorkload const&)")
SENDRECV = ("void ddSendrecv<gmx::BasicVector<float> >(gmx_domdec_t const*, int, int, "
            "gmx::ArrayRef<gmx::BasicVector<float> >, gmx::ArrayRef<gmx::BasicVector<float> >)")
RB_TREE = ("std::_Rb_tree<std::__cxx11::basic_string<char, std::char_traits<char>, "
           "std::allocator<char> >, std::pair<std::__cxx11::basic_string<char, "
           "std::char_traits<char>, std::allocator<char> > const, int>, "
           "std::_Select1st<std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, "
           "std::allocator<char> > const, int> >, std::less<std::__cxx11::basic_string<char, "
           "std::char_traits<char>, std::allocator<char> > >, "
           "std::allocator<std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, "
           "std::allocator<char> > const, int> > >::find(std::__cxx11::basic_string<char, "
           "std::char_traits<char>, std::allocator<char> > const&)")


@pytest.mark.parametrize("name", [
    "LAMMPS_NS::CommBrick::exchange()",
    "LAMMPS_NS::Run::command(int, char**)",
    "main", "??", "", None,
    "void convertInts<int>(warninp*, char const*, int*)",
])
def test_names_that_fit_are_kept(name):
    assert short_function(name) == name


def test_template_arguments_go_first():
    assert short_function(SENDRECV, width=90) == \
        "void ddSendrecv<…>(gmx_domdec_t const*, int, int, gmx::ArrayRef<…>, gmx::ArrayRef<…>)"
    assert short_function(RB_TREE) == \
        "std::_Rb_tree<…>::find(std::__cxx11::basic_string<…> const&)"


def test_then_the_parameters():
    assert short_function(PME) == "gmx_pme_do(…)"
    assert short_function(SENDRECV, width=40) == "void ddSendrecv<…>(…)"


def test_an_empty_list_anonymous_namespace_and_qualifiers_stay():
    name = "gmx::(anonymous namespace)::Run<int, long>::exchange() const"
    assert short_function(name, width=55) == "gmx::(anonymous namespace)::Run<…>::exchange() const"
    name = "gmx::(anonymous namespace)::reduce(t_commrec const*, float (*) [3], int) const"
    assert short_function(name, width=60) == "gmx::(anonymous namespace)::reduce(…) const"


def test_operators_keep_their_brackets():
    name = ("LAMMPS_NS::Writer<std::vector<int, std::allocator<int> > >::operator<<"
            "(std::vector<int, std::allocator<int> > const&)")
    assert short_function(name, width=60) == \
        "LAMMPS_NS::Writer<…>::operator<<(std::vector<…> const&)"
    name = "fmt::detail::write<char>(int)::{lambda(fmt::detail::buffer_appender<char>)#1}" \
           "::operator()(fmt::detail::buffer_appender<char>) const"
    assert short_function(name, width=60) == \
        "fmt::detail::write<…>(…)::{lambda(…)#1}::operator()(…) const"


def test_the_last_resort_keeps_the_end():
    name = "gmx::ModularSimulatorAlgorithmBuilderHelper::registerReferenceTemperatureUpdate" \
           "(std::function<void (gmx::ArrayRef<int const>, gmx::ReferenceTemperatureChangeAlgorithm)>)"
    short = short_function(name)
    assert short == "…" + "gmx::ModularSimulatorAlgorithmBuilderHelper::" \
        "registerReferenceTemperatureUpdate(…)"[-(WIDTH - 1):]
    assert len(short) == WIDTH


@pytest.mark.parametrize("name", ["f(((", "f<<<<" * 40, "a)b(" * 40, "operator<" * 30,
                                  "x" * 500, "f(" + "int, " * 100, "g>" * 100 + "(int)"])
def test_any_text_gives_a_bounded_answer(name):
    assert len(short_function(name)) <= WIDTH


def test_sites():
    assert short_site("job.c:42") == "job.c:42"
    assert short_site(PME + " in libgromacs_mpi.so.7") == "gmx_pme_do(…) in libgromacs_mpi.so.7"
    assert short_site("0x7ffff74b2bd8 in liblammps.so.0") == "0x7ffff74b2bd8 in liblammps.so.0"
    assert short_site(None) is None
