# mpipp: make builds everything, make check runs every test, make demo runs
# the demo, make install PREFIX=... installs.  MPI=mpich (default) or
# MPI=openmpi picks the MPI; each builds into its own directory, build/$(MPI).

PREFIX ?= /usr/local
MPI    ?= mpich
BUILD  ?= build/$(MPI)
# Debian installs both MPIs side by side; the plain names (mpicc, mpiexec)
# follow update-alternatives, so name the MPI explicitly.
MPICC   ?= mpicc.$(MPI)
MPIF90  ?= mpif90.$(MPI)
MPIEXEC ?= mpiexec.$(MPI)
# What the tests, scripts/mpipp-gdb and scripts/demo read to find this build.
export MPIPP_MPI := $(MPI)
export MPIPP_BUILD := $(abspath $(BUILD))
export MPIPP_MPIEXEC := $(MPIEXEC)
# gdb embeds Debian's Python; pytest must run under the same interpreter.
PYTHON ?= /usr/bin/python3
CFLAGS ?= -O2 -g -Wall -Wextra -Werror=implicit-function-declaration
PYTEST_ARGS ?=

LIB_SRCS := $(wildcard libmpireg/*.c) $(BUILD)/wrappers.c
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(notdir $(LIB_SRCS)))
LIB_HDRS := $(wildcard libmpireg/*.h)
TESTPROGS := $(patsubst testprogs/%.c,$(BUILD)/testprogs/%,$(wildcard testprogs/*.c)) \
             $(patsubst testprogs/%.f90,$(BUILD)/testprogs/%,$(wildcard testprogs/*.f90))
CTESTS := $(patsubst tests/c/%.c,$(BUILD)/tests/%,$(wildcard tests/c/*.c))
FTESTS := $(patsubst tests/c/%.f90,$(BUILD)/tests/%,$(wildcard tests/c/*.f90))
# tests/c programs that are also built as plain MPI programs (no -lmpireg), run with LD_PRELOAD
PTESTS := $(patsubst %,$(BUILD)/tests/%.preload,oracle badinput)

# A real registry of layout version 1 for the reader's tests: libmpireg as it
# was before layout 2 (from git history) and the types test program, built
# with MPICH (the layout-1 library predates Open MPI support).
LAYOUT1_COMMIT := 14b7eeec9174327e2702a09490b092a9e63dfd36
LAYOUT1 := $(BUILD)/layout1

.PHONY: all deps check demo install clean bench
all: $(BUILD)/libmpireg.so $(BUILD)/libmpireg.a $(BUILD)/mpireg.pc $(BUILD)/libmpireg.so-gdb.py $(TESTPROGS) $(CTESTS) $(FTESTS) $(PTESTS) $(LAYOUT1)/libmpireg.so $(LAYOUT1)/types

# The Debian packages (scripts/install-deps does nothing when they are present).
deps:
	@scripts/install-deps

# mpi.h as the compiler sees it: the wrappers are generated only for the
# functions it declares (Open MPI 4.1 is an MPI-3.1 library).
$(BUILD)/mpi.i:
	@mkdir -p $(@D)
	echo '#include <mpi.h>' | $(MPICC) -E -x c - > $@.tmp && mv $@.tmp $@

$(BUILD)/wrappers.c: libmpireg/wrappers.spec libmpireg/comm.spec libmpireg/genwrappers.py $(BUILD)/mpi.i
	@mkdir -p $(@D)
	$(PYTHON) libmpireg/genwrappers.py --declared $(BUILD)/mpi.i libmpireg/wrappers.spec libmpireg/comm.spec > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: libmpireg/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -fPIC -pthread -Ilibmpireg -c $< -o $@

$(BUILD)/obj/wrappers.o: $(BUILD)/wrappers.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) -fPIC -pthread -Ilibmpireg -c $< -o $@

$(BUILD)/libmpireg.so: $(LIB_OBJS)
	$(MPICC) -shared -pthread -o $@ $^

$(BUILD)/libmpireg.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/mpireg.pc: libmpireg/mpireg.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|g' $< > $@

# gdb auto-loads OBJFILE-gdb.py next to libmpireg.so (within 'auto-load safe-path').
$(BUILD)/libmpireg.so-gdb.py: scripts/libmpireg.so-gdb.py.in
	@mkdir -p $(@D)
	sed -e 's|@PYDIR@|$(abspath gdb-python)|g' $< > $@

# Test programs are plain MPI programs: libmpireg is preloaded by scripts/mpipp-gdb.
$(BUILD)/testprogs/%: testprogs/%.c testprogs/*.h
	@mkdir -p $(@D)
	$(MPICC) -O0 -g -o $@ $< -lm

$(BUILD)/testprogs/%: testprogs/%.f90
	@mkdir -p $(@D)
	$(MPIF90) -O0 -g -o $@ $<

# Registry tests link libmpireg directly (before -lmpi) to read it through mpireg.h.
$(BUILD)/tests/%: tests/c/%.c tests/c/*.h $(BUILD)/libmpireg.so
	@mkdir -p $(@D)
	$(MPICC) -O1 -g -pthread -Ilibmpireg -o $@ $< -L$(BUILD) -lmpireg -Wl,-rpath,$(abspath $(BUILD))

$(BUILD)/tests/%.preload: tests/c/%.c tests/c/*.h libmpireg/mpireg.h
	@mkdir -p $(@D)
	$(MPICC) -O1 -g -pthread -Ilibmpireg -DMPIREG_VIA_DLSYM -o $@ $< -ldl

$(BUILD)/tests/%: tests/c/%.f90 $(BUILD)/libmpireg.so
	@mkdir -p $(@D)
	$(MPIF90) -g -o $@ $<

$(LAYOUT1)/libmpireg.so:
	rm -rf $(LAYOUT1)/src && mkdir -p $(LAYOUT1)/src
	git archive $(LAYOUT1_COMMIT) libmpireg | tar -x -C $(LAYOUT1)/src
	$(PYTHON) $(LAYOUT1)/src/libmpireg/genwrappers.py $(LAYOUT1)/src/libmpireg/wrappers.spec \
	    $(LAYOUT1)/src/libmpireg/comm.spec > $(LAYOUT1)/src/wrappers.c
	mpicc.mpich -O2 -g -shared -fPIC -pthread -I$(LAYOUT1)/src/libmpireg -o $@ \
	    $(LAYOUT1)/src/libmpireg/*.c $(LAYOUT1)/src/wrappers.c

$(LAYOUT1)/types: testprogs/types.c testprogs/*.h
	@mkdir -p $(@D)
	mpicc.mpich -O0 -g -o $@ $< -lm

check: deps
	$(MAKE) all
	$(PYTHON) -m pytest -q tests $(PYTEST_ARGS)

demo: deps
	$(MAKE) all
	scripts/demo

bench: deps
	$(MAKE) all
	$(PYTHON) bench/run.py

install: $(BUILD)/libmpireg.so $(BUILD)/libmpireg.a $(BUILD)/mpireg.pc $(BUILD)/libmpireg.so-gdb.py
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/mpipp/python
	install -m 755 $(BUILD)/libmpireg.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(BUILD)/libmpireg.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(BUILD)/mpireg.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 libmpireg/mpireg.h $(DESTDIR)$(PREFIX)/include/
	cp -r gdb-python/mpipp.py gdb-python/mpipp $(DESTDIR)$(PREFIX)/share/mpipp/python/
	sed -e 's|@PYDIR@|$(PREFIX)/share/mpipp/python|g' scripts/libmpireg.so-gdb.py.in \
	    > $(DESTDIR)$(PREFIX)/lib/libmpireg.so-gdb.py
	sed -e 's|$$here/gdb-python|$(PREFIX)/share/mpipp/python|' \
	    -e 's|^MPIPP_LIB=.*|MPIPP_LIB=$${MPIPP_LIB:-$(PREFIX)/lib/libmpireg.so}|' \
	    scripts/mpipp-gdb > $(DESTDIR)$(PREFIX)/bin/mpipp-gdb
	chmod 755 $(DESTDIR)$(PREFIX)/bin/mpipp-gdb
	sed -e 's|$$here/gdb-python|$(PREFIX)/share/mpipp/python|' \
	    -e 's|^export MPIPP_HOME=.*|export MPIPP_LIB=$${MPIPP_LIB:-$(PREFIX)/lib/libmpireg.so}|' \
	    scripts/mpipp-job > $(DESTDIR)$(PREFIX)/bin/mpipp-job
	chmod 755 $(DESTDIR)$(PREFIX)/bin/mpipp-job
	sed -e 's|$$here/gdb-python|$(PREFIX)/share/mpipp/python|' scripts/mpipp > $(DESTDIR)$(PREFIX)/bin/mpipp
	chmod 755 $(DESTDIR)$(PREFIX)/bin/mpipp

clean:
	rm -rf $(BUILD)
