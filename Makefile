# mpipp: make builds everything, make check runs every test, make demo runs
# the demo, make install PREFIX=... installs, make dist makes the release
# tarball.  MPI=mpich (default) or MPI=openmpi picks the MPI; each builds into
# its own directory, build/$(MPI).  debian/ builds the Debian packages
# (dpkg-buildpackage -us -uc -b).

VERSION := 0.1
PREFIX ?= /usr/local
MPI    ?= mpich
BUILD  ?= build/$(MPI)
# Debian installs both MPIs side by side; the plain names (mpicc, mpiexec)
# follow update-alternatives, so name the MPI explicitly.
MPICC   ?= mpicc.$(MPI)
MPIF90  ?= mpif90.$(MPI)
MPICXX  ?= mpicxx.$(MPI)
MPIEXEC ?= mpiexec.$(MPI)
# What the tests, scripts/mpipp-gdb and scripts/demo read to find this build.
export MPIPP_MPI := $(MPI)
export MPIPP_BUILD := $(abspath $(BUILD))
export MPIPP_MPIEXEC := $(MPIEXEC)
# gdb embeds Debian's Python; pytest must run under the same interpreter.
PYTHON ?= /usr/bin/python3
CFLAGS ?= -O2 -g -Wall -Wextra -Werror=implicit-function-declaration
# The Debian packages name the library per MPI (libmpireg_mpich.so.0).
SONAME ?=
# make check TESTS="tests/unit tests/job" runs a part of the tests.
TESTS ?= tests
PYTEST_ARGS ?=
MANPAGES := man/mpipp-gdb.1 man/mpipp-job.1 man/mpipp.1 man/mpipp.7
# The npm packages of the VS Code test (tests/vscode), installed by npm ci.
NODE_MODULES := tests/vscode/node_modules/.package-lock.json

comma := ,
# libmpireg's four parts (libmpireg/README.md): the datatype registry (with
# mpireg.h, the installed layout contract), the communication context,
# record/replay and the usage checks.  The generated wrappers.c includes
# headers of all four.
LIB_DIRS := libmpireg/registry libmpireg/context libmpireg/replay libmpireg/checks
LIB_INCLUDES := $(addprefix -I,$(LIB_DIRS))
LIB_SPECS := libmpireg/registry/wrappers.spec libmpireg/context/comm.spec
LIB_SRCS := $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
# An object per source, in a folder named as its source's (build/$(MPI)/obj/registry/root.o).
LIB_OBJS := $(patsubst libmpireg/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/wrappers.o
LIB_HDRS := $(wildcard $(addsuffix /*.h,$(LIB_DIRS)))
TESTPROGS := $(patsubst testprogs/%.c,$(BUILD)/testprogs/%,$(wildcard testprogs/*.c)) \
             $(patsubst testprogs/%.f90,$(BUILD)/testprogs/%,$(wildcard testprogs/*.f90)) \
             $(patsubst testprogs/%.cpp,$(BUILD)/testprogs/%,$(wildcard testprogs/*.cpp))
# Programs driving real libraries (tests/libs), built for the MPI under test
# only where Debian's package of the library is installed (scripts/install-deps
# installs them): ScaLAPACK/BLACS and parallel HDF5 for both MPIs, PETSc
# (Debian builds it for Open MPI only).
have = $(shell pkg-config --exists $(1) && echo yes)
LIBPROGS := $(if $(call have,scalapack-$(MPI)),$(BUILD)/testprogs/libs/blacs) \
            $(if $(call have,hdf5-$(MPI)),$(BUILD)/testprogs/libs/hdf5) \
            $(if $(and $(filter openmpi,$(MPI)),$(call have,petsc)),$(BUILD)/testprogs/libs/petsc_sf)
CTESTS := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(wildcard tests/c/*.c))
FTESTS := $(patsubst tests/c/%.f90,$(BUILD)/tests/%,$(wildcard tests/c/*.f90))
# tests/c programs that are also built as plain MPI programs (no -lmpireg), run with LD_PRELOAD
PTESTS := $(patsubst %,$(BUILD)/tests/%.preload,oracle badinput)

# A real registry of layout version 1 for the reader's tests: libmpireg as it
# was before layout 2 and the types test program, built with MPICH (the
# layout-1 library predates Open MPI support).  The sources are a file in the
# tree, so a release tarball builds without git history:
#   git archive 14b7eeec9174327e2702a09490b092a9e63dfd36 libmpireg | gzip -n -9
LAYOUT1_SOURCES := tests/integration/libmpireg-layout1.tar.gz
LAYOUT1 := $(BUILD)/layout1

.PHONY: all lib deps node-deps check demo install dist clean bench callkinds
LIB := $(BUILD)/libmpireg.so $(BUILD)/libmpireg.a $(BUILD)/mpireg.pc $(BUILD)/libmpireg.so-gdb.py
all: $(LIB) $(TESTPROGS) $(LIBPROGS) $(CTESTS) $(FTESTS) $(PTESTS) $(LAYOUT1)/libmpireg.so $(LAYOUT1)/types
lib: $(LIB)

# The Debian packages (scripts/install-deps does nothing when they are present).
deps:
	@scripts/install-deps

# mpi.h as the compiler sees it: the wrappers are generated only for the
# functions it declares (Open MPI 4.1 is an MPI-3.1 library).
$(BUILD)/mpi.i:
	@mkdir -p $(@D)
	echo '#include <mpi.h>' | $(MPICC) -E -x c - > $@.tmp && mv $@.tmp $@

$(BUILD)/wrappers.c: $(LIB_SPECS) libmpireg/genwrappers.py $(BUILD)/mpi.i
	@mkdir -p $(@D)
	$(PYTHON) libmpireg/genwrappers.py --declared $(BUILD)/mpi.i $(LIB_SPECS) > $@.tmp && mv $@.tmp $@

# The job console's MPI call kinds, generated from comm.spec and committed
# (tests/job/test_analysis_callkinds.py fails when the file differs from what
# comm.spec gives): make callkinds after changing comm.spec.
CALLKINDS := gdb-python/mpipp/job/analysis/callkinds.py
callkinds:
	$(PYTHON) libmpireg/genwrappers.py --call-kinds libmpireg/context/comm.spec > $(CALLKINDS).tmp \
	    && mv $(CALLKINDS).tmp $(CALLKINDS)

$(BUILD)/obj/%.o: libmpireg/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -fPIC -pthread $(LIB_INCLUDES) -c $< -o $@

# Without var-tracking assignments the debug information follows the
# wrappers' volatile parameters into their stack slots, where they outlive
# the PMPI call (with them, it says only "the value on entry", which gdb
# cannot recover inside a library built without debug information).
$(BUILD)/obj/wrappers.o: $(BUILD)/wrappers.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -fno-var-tracking-assignments -fPIC -pthread $(LIB_INCLUDES) -c $< -o $@

$(BUILD)/libmpireg.so: $(LIB_OBJS)
	$(MPICC) -shared -pthread $(if $(SONAME),-Wl$(comma)-soname$(comma)$(SONAME)) $(LDFLAGS) -o $@ $^

$(BUILD)/libmpireg.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/mpireg.pc: libmpireg/mpireg.pc.in
	sed -e '$(PC_SUBST)' $< > $@

# gdb auto-loads OBJFILE-gdb.py next to libmpireg.so (within 'auto-load safe-path').
$(BUILD)/libmpireg.so-gdb.py: scripts/libmpireg.so-gdb.py.in
	@mkdir -p $(@D)
	sed -e 's|@PYDIR@|$(abspath gdb-python)|g' $< > $@

# Test programs are plain MPI programs: libmpireg is preloaded by scripts/mpipp-gdb.
$(BUILD)/testprogs/%: testprogs/%.c testprogs/*.h
	@mkdir -p $(@D)
	$(MPICC) -O0 -g -o $@ $< -lm

# (-J: the modules a program defines go beside it, not into the tree)
$(BUILD)/testprogs/%: testprogs/%.f90
	@mkdir -p $(@D)
	$(MPIF90) -O0 -g -J $(@D) -o $@ $<

# C++ test programs are built as Debian builds C++ applications' libraries:
# without debug information (sites are function names, not lines).
$(BUILD)/testprogs/%: testprogs/%.cpp
	@mkdir -p $(@D)
	$(MPICXX) -O0 -o $@ $<

# (scalapack-mpich.pc names Open MPI's flags: link the library by its name)
$(BUILD)/testprogs/libs/blacs: testprogs/libs/blacs.c
	@mkdir -p $(@D)
	$(MPICC) -O0 -g -o $@ $< -lscalapack-$(MPI)

$(BUILD)/testprogs/libs/hdf5: testprogs/libs/hdf5.c
	@mkdir -p $(@D)
	$(MPICC) -O0 -g -o $@ $< $(shell pkg-config --cflags --libs hdf5-$(MPI))

$(BUILD)/testprogs/libs/petsc_sf: testprogs/libs/petsc_sf.c
	@mkdir -p $(@D)
	$(MPICC) -O0 -g -o $@ $< $(shell pkg-config --cflags --libs petsc)

# Registry tests link libmpireg directly (before -lmpi) to read it through mpireg.h.
$(BUILD)/tests/%: tests/c/%.c tests/c/*.h $(BUILD)/libmpireg.so
	@mkdir -p $(@D)
	$(MPICC) -O1 -g -pthread $(LIB_INCLUDES) -o $@ $< -L$(BUILD) -lmpireg -Wl,-rpath,$(abspath $(BUILD))

$(BUILD)/tests/%.preload: tests/c/%.c tests/c/*.h $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MPICC) -O1 -g -pthread $(LIB_INCLUDES) -DMPIREG_VIA_DLSYM -o $@ $< -ldl

$(BUILD)/tests/%: tests/c/%.f90 $(BUILD)/libmpireg.so
	@mkdir -p $(@D)
	$(MPIF90) -g -o $@ $<

$(LAYOUT1)/libmpireg.so: $(LAYOUT1_SOURCES)
	rm -rf $(LAYOUT1)/src && mkdir -p $(LAYOUT1)/src
	tar -xzf $(LAYOUT1_SOURCES) -C $(LAYOUT1)/src
	$(PYTHON) $(LAYOUT1)/src/libmpireg/genwrappers.py $(LAYOUT1)/src/libmpireg/wrappers.spec \
	    $(LAYOUT1)/src/libmpireg/comm.spec > $(LAYOUT1)/src/wrappers.c
	mpicc.mpich -O2 -g -shared -fPIC -pthread -I$(LAYOUT1)/src/libmpireg -o $@ \
	    $(LAYOUT1)/src/libmpireg/*.c $(LAYOUT1)/src/wrappers.c

$(LAYOUT1)/types: testprogs/types.c testprogs/*.h
	@mkdir -p $(@D)
	mpicc.mpich -O0 -g -o $@ $< -lm

# npm ci where npm is (tests/vscode skips, saying so, where node is absent).
node-deps:
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(NODE_MODULES); \
	else echo "mpipp: npm not found: the VS Code tests will be skipped" >&2; fi

$(NODE_MODULES): tests/vscode/package.json tests/vscode/package-lock.json
	cd tests/vscode && npm ci --ignore-scripts --no-audit --no-fund

check: deps node-deps
	$(MAKE) all
	$(PYTHON) -m pytest -q $(TESTS) $(PYTEST_ARGS)

demo: deps
	$(MAKE) all
	scripts/demo

bench: deps
	$(MAKE) all
	$(PYTHON) bench/run.py

# make install: libmpireg of one MPI and the tool.  The library's names and
# places are variables: the Debian packages install both MPIs side by side
# (debian/rules), as libmpireg_mpich.so.0 and libmpireg_openmpi.so.0.
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PYDIR      ?= $(PREFIX)/share/mpipp/python
LIBNAME    ?= libmpireg.so
LIBBASE     = $(firstword $(subst ., ,$(LIBNAME)))
PCNAME     ?= mpireg
# gdb auto-loads LIB-gdb.py from the library's directory (within its
# auto-load safe-path) or from its auto-load directory.
AUTOLOAD   ?= $(LIBDIR)/$(LIBNAME)-gdb.py
# Where mpipp-gdb and mpipp-job find libmpireg for an MPI (%s: mpich, openmpi).
LIB_PATTERN ?= $(LIBDIR)/$(LIBNAME)
PC_SUBST = s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|; \
    s|@LINK@|$(patsubst lib%,%,$(LIBBASE))|

.PHONY: install-lib install-tool
install: install-lib install-tool

install-lib: $(LIB)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(dir $(DESTDIR)$(AUTOLOAD))
	install -m 644 $(BUILD)/libmpireg.so $(DESTDIR)$(LIBDIR)/$(LIBNAME)
	$(if $(filter %.so,$(LIBNAME)),,ln -sf $(LIBNAME) $(DESTDIR)$(LIBDIR)/$(LIBBASE).so)
	install -m 644 $(BUILD)/libmpireg.a $(DESTDIR)$(LIBDIR)/$(LIBBASE).a
	sed -e '$(PC_SUBST)' libmpireg/mpireg.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/$(PCNAME).pc
	install -m 644 libmpireg/registry/mpireg.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PYDIR@|$(PYDIR)|g' scripts/libmpireg.so-gdb.py.in > $(DESTDIR)$(AUTOLOAD)

install-tool: $(MANPAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	cd gdb-python && find mpipp.py mpipp -name '*.py' -exec install -D -m 644 {} $(DESTDIR)$(PYDIR)/{} \;
	for s in mpipp mpipp-gdb mpipp-job; do \
	    sed -e 's|^MPIPP_PYTHON=.*|MPIPP_PYTHON=$${MPIPP_PYTHON:-$(PYDIR)}|' \
	        -e 's|^MPIPP_LIB_PATTERN=.*|MPIPP_LIB_PATTERN=$${MPIPP_LIB_PATTERN:-$(LIB_PATTERN)}|' \
	        -e 's|^MPIPP_GDB_SCRIPT=.*|MPIPP_GDB_SCRIPT=$${MPIPP_GDB_SCRIPT:-$(PREFIX)/bin/mpipp-gdb}|' \
	        -e 's|^MPIPP_BUILD=.*|MPIPP_BUILD=|' \
	        scripts/$$s > $(DESTDIR)$(PREFIX)/bin/$$s && chmod 755 $(DESTDIR)$(PREFIX)/bin/$$s || exit 1; \
	done
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.7 $(DESTDIR)$(MANDIR)/man7/

# The release tarball: the committed tree (HEAD), builds and tests without git.
dist:
	@mkdir -p build
	git archive --prefix=mpipp-$(VERSION)/ -o build/mpipp-$(VERSION).tar.gz HEAD
	@echo build/mpipp-$(VERSION).tar.gz

clean:
	rm -rf $(BUILD)
