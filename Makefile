# libprocdesc: FreeBSD process descriptors for Linux.  Plain GNU make.
#
#   make               the libraries and the guardian
#   make demo          build and run examples/demo
#   make check         build everything and run the Kyua suite (CHECK: only
#                      these programs or cases, e.g. tests/pdwait_test)
#   make check-kernels the suite on Debian's 6.1, 6.12 and 7.2 (once per
#                      close-kill path) under QEMU
#   make check-kernels ARCH=arm64  the same for aarch64, cross-built
#   make cross-aarch64 the library cross-built for aarch64 (no tests)
#   make check-musl    built with musl, a static smoke test (tests/smoke.c)
#   make check-musl-atf the ATF-C suite against the musl build
#   make check-notrap  make check with pdfork's fork trap refused (seccomp),
#                      as on an architecture that has none
#   make torture       the torture test for SECONDS (60), SEED= to replay
#   make bench         benchmarks
#   make bench-kernel  section 7 of them in Debian's 7.2 under QEMU, per path
#   make install PREFIX=/usr/local DESTDIR=
#   make SANITIZE=address|thread  build with a sanitizer
#   make DEBUG=1       lock assertions; the tests count registry entries
#   make deb           Debian packages into obj/deb (tools/deb.sh)
#
# A changed PREFIX, LIBDIR, LIBEXECDIR, CC, CFLAGS... rebuilds everything
# (obj/config.mk); a changed header what includes it (-MMD -MP).

VERSION=	0.1.0
SOVERSION=	0

PREFIX?=	/usr/local
LIBDIR?=	$(PREFIX)/lib
INCLUDEDIR?=	$(PREFIX)/include
LIBEXECDIR?=	$(PREFIX)/libexec
MANDIR?=	$(PREFIX)/share/man
PKGCONFIGDIR?=	$(LIBDIR)/pkgconfig
DESTDIR?=

CC?=		cc
CFLAGS?=	-O2 -g
WERROR?=
WARNS=		-Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes $(WERROR)
CPPFLAGS+=	-D_GNU_SOURCE -Iinclude -Icompat -Ilib
ALL_CFLAGS=	-std=c11 $(WARNS) $(CFLAGS) $(SAN_CFLAGS)

# The sanitizer's run-time options for make check; the caller's own come
# last and win.  ASan: libatf-c itself leaks (atf_tc_get_md_vars).  TSan:
# every pdfork child is the child of a multi-threaded fork (the reaper
# runs), and TSan kills such a child at its first pthread_create unless
# told not to; the child may create threads (as after fork()).
ifeq ($(SANITIZE),address)
SAN_CFLAGS=	-fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=undefined
SAN_ENV=	ASAN_OPTIONS="detect_leaks=0:$$ASAN_OPTIONS"
else ifeq ($(SANITIZE),thread)
SAN_CFLAGS=	-fsanitize=thread -fno-omit-frame-pointer
SAN_ENV=	TSAN_OPTIONS="die_after_fork=0:$$TSAN_OPTIONS"
endif

# DEBUG=1: every "procdesc_mtx held" rule asserted, and the registry's
# count of live entries exported for the tests' leak check.
LIB_MAPS=	lib/libprocdesc.map
ifeq ($(DEBUG),1)
CPPFLAGS+=	-DPROCDESC_DEBUG
LIB_MAPS+=	lib/libprocdesc-debug.map
endif

O=		obj
LIB_SRCS=	lib/procdesc.c lib/create.c lib/wait.c lib/child.c \
		lib/registry.c lib/hash.c lib/lock.c lib/reaper.c \
		lib/guardian_client.c lib/guardian_table.c lib/guardian_start.c \
		lib/desc.c lib/pidfd.c lib/wire.c lib/fork.c lib/atfork.c \
		lib/kernel.c lib/spawn.c lib/appwait.c lib/autokill.c \
		lib/arena.c
LIB_OBJS=	$(LIB_SRCS:lib/%.c=$(O)/pic/%.o)
LIB_AOBJS=	$(LIB_SRCS:lib/%.c=$(O)/static/%.o)
SONAME=		libprocdesc.so.$(SOVERSION)
SHLIB=		$(O)/libprocdesc.so.$(VERSION)
STLIB=		$(O)/libprocdesc.a
GUARDIAN=	$(O)/procdesc-guardian
# The waits for LD_PRELOAD into programs not linked with the library
# (lib/preload.c): no symbol versions, in LIBEXECDIR beside the guardian.
PRELOAD=	$(O)/libprocdesc-preload.so
GUARDIAN_PATH=	$(LIBEXECDIR)/procdesc-guardian
# The shared library looks for the guardian first at LIBEXECDIR as seen
# from LIBDIR, from wherever it was loaded (lib/guardian_start.c), then at
# GUARDIAN_PATH.
GUARDIAN_RELDIR:= $(shell realpath -m -s --relative-to='$(LIBDIR)' \
		    '$(LIBEXECDIR)' 2>/dev/null)
GUARDIAN_DEFS=	-DPROCDESC_GUARDIAN_PATH='"$(GUARDIAN_PATH)"'
PIC_DEFS=	$(GUARDIAN_DEFS) $(if $(GUARDIAN_RELDIR), \
		-DPROCDESC_GUARDIAN_REL='"$(GUARDIAN_RELDIR)/procdesc-guardian"')
PC=		$(O)/libprocdesc.pc
MLINKS=		pdgetpid.3 pdkill.3 pdwait.3 pdrfork.3 pdopenpid.3 pddupfd.3

# Every tests/*_test.c is an ATF-C program, every tests/*_test.sh atf-sh.
TEST_PROGS=	$(patsubst %.c,%,$(wildcard tests/*_test.c)) \
		$(patsubst %.sh,%,$(wildcard tests/*_test.sh))
TEST_CFLAGS=	$(shell pkg-config --cflags atf-c 2>/dev/null)
TEST_LIBS=	$(shell pkg-config --libs atf-c 2>/dev/null)

# Where the ATF-C programs, their helper, the kernel probe and the demo
# are written: in the tree, except for a cross build, which writes them
# under its O so that the host's stay (cross-aarch64-tests).
TESTS_O=	tests
EXAMPLES_O=	examples

all: $(SHLIB) $(O)/libprocdesc.so $(STLIB) $(GUARDIAN) $(PRELOAD) $(PC)

# Header dependencies come from the compiler (-MMD -MP), not by hand.
DEPFLAGS=	-MMD -MP

# The configuration stamp: everything built depends on it, and it is
# rewritten only when one of these values changed since the last build.
CONFIG=		$(O)/config.mk
CONFIG_VARS=	CC CPPFLAGS ALL_CFLAGS LDFLAGS LIB_MAPS PREFIX LIBDIR INCLUDEDIR \
		LIBEXECDIR VERSION
$(CONFIG): FORCE
	$(shell mkdir -p $(@D))$(file >$@.new) \
	    $(foreach v,$(CONFIG_VARS),$(file >>$@.new,$(v)=$($(v))))
	@if cmp -s $@.new $@; then rm -f $@.new; else \
	    [ ! -f $@ ] || echo "$@: configuration changed, rebuilding"; \
	    mv -f $@.new $@; fi
FORCE:

$(O)/pic/%.o: lib/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden \
	    $(PIC_DEFS) -c -o $@ $<

$(O)/static/%.o: lib/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fvisibility=hidden \
	    $(GUARDIAN_DEFS) -c -o $@ $<

$(SHLIB): $(LIB_OBJS) $(LIB_MAPS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
	    $(LIB_MAPS:%=-Wl,--version-script,%) -Wl,-z,defs -Wl,-z,nodelete \
	    -o $@ $(LIB_OBJS) -pthread

$(O)/libprocdesc.so: $(SHLIB)
	ln -sf libprocdesc.so.$(VERSION) $(O)/$(SONAME)
	ln -sf $(SONAME) $@

$(PRELOAD): $(O)/pic/preload.o $(O)/libprocdesc.so
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ \
	    $(O)/pic/preload.o -L$(O) -Wl,--no-as-needed -lprocdesc -ldl

$(STLIB): $(LIB_AOBJS)
	rm -f $@
	ar rcs $@ $(LIB_AOBJS)

# The guardian program shares pidfd.c, hash.c (with arena.c) and wire.c
# with the library.
GUARDIAN_OBJS=	$(O)/guardian/guardian.o $(O)/guardian/guard.o \
		$(O)/guardian/query.o $(O)/guardian/pidfd.o $(O)/guardian/hash.o \
		$(O)/guardian/arena.o $(O)/guardian/wire.o
$(O)/guardian/%.o: lib/guardian/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(O)/guardian/%.o: lib/%.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(GUARDIAN): $(GUARDIAN_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(GUARDIAN_OBJS)

-include $(wildcard $(O)/*/*.d)

# Directories under PREFIX are written as ${prefix}/..., so that
# pkg-config --define-prefix works in a moved tree.  The <spawn.h>
# overlay (include/procdesc-overlay) has a .pc of its own, as
# libbsd-overlay has, since its header replaces the system's.
pc_rel=		$(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
PC_OVERLAY=	$(O)/libprocdesc-overlay.pc
all: $(PC_OVERLAY)
$(PC) $(PC_OVERLAY): $(O)/%.pc: %.pc.in Makefile $(CONFIG)
	sed -e 's|@PREFIX@|$(PREFIX)|g' \
	    -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|g' \
	    -e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|g' \
	    -e 's|@LIBEXECDIR@|$(call pc_rel,$(LIBEXECDIR))|g' \
	    -e 's|@VERSION@|$(VERSION)|g' $< > $@

# Tests link the build tree's shared library and find its guardian
# through LIBPROCDESC_GUARDIAN, which testutil sets.
T_DEFS=		-DT_GUARDIAN='"$(abspath $(GUARDIAN))"'
$(TESTS_O)/%_test: tests/%_test.c tests/testutil.c tests/testutil.h \
    $(SHLIB) $(O)/libprocdesc.so $(GUARDIAN) $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(T_DEFS) -Icompat/include \
	    $(TEST_CFLAGS) -o $@ $< tests/testutil.c -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc $(TEST_LIBS) -pthread

# Run by kernel_test under seccomp: not a test program of its own.
$(TESTS_O)/nokernel_helper: tests/nokernel_helper.c $(SHLIB) \
    $(O)/libprocdesc.so $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc

# dlopen_test's host, not linked with the library, and its plugin, which
# is (NOTES 2.17).
$(TESTS_O)/dlopen_helper: tests/dlopen_helper.c $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -ldl
$(TESTS_O)/dlopen_plugin.so: tests/dlopen_plugin.c $(SHLIB) \
    $(O)/libprocdesc.so $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc

# spawn_test includes <spawn.h> through the overlay, as ported code does.
$(TESTS_O)/spawn_test: tests/spawn_test.c tests/testutil.c tests/testutil.h \
    include/procdesc-overlay/spawn.h $(SHLIB) $(O)/libprocdesc.so $(GUARDIAN)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Iinclude/procdesc-overlay $(ALL_CFLAGS) $(T_DEFS) \
	    -Icompat/include $(TEST_CFLAGS) -o $@ $< tests/testutil.c -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc $(TEST_LIBS) -pthread

$(TESTS_O)/capsicum_test: tests/capsicum_test.c \
    compat/include/sys/capsicum.h compat/include/sys/caprights.h \
    compat/include/capsicum_helpers.h $(CONFIG)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(ALL_CFLAGS) -Icompat/include $(TEST_CFLAGS) \
	    -o $@ $< $(TEST_LIBS)

tests/%_test: tests/%_test.sh
	cp $< $@
	chmod +x $@

# The torture test (tests/torture_src/, one file per job; torture.h says
# which): a program of its own, run for 5 s by torture_test and for a
# minute by CI.  make torture [SECONDS=n] [SEED=n] runs it.  The folder
# is not tests/torture/: that is the binary, which the suite and CI run.
TORTURE_SRCS=	$(wildcard tests/torture_src/*.c)
TORTURE_HDRS=	tests/torture_src/torture.h lib/guardian/protocol.h \
		compat/linux_pidfd.h include/sys/procdesc.h
tests/torture: $(TORTURE_SRCS) $(TORTURE_HDRS) $(SHLIB) \
    $(O)/libprocdesc.so $(GUARDIAN) $(CONFIG)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(T_DEFS) -o $@ $(TORTURE_SRCS) \
	    -L$(O) -Wl,-rpath,$(abspath $(O)) -lprocdesc -pthread

# Under TSan: the torture's signal handler pdforks, and so mallocs, on
# purpose (where its thread holds nothing, or inside a call of the
# library), which TSan would report as a signal-unsafe call; a report
# stops the run at once.
SECONDS?=	60
ifeq ($(SANITIZE),thread)
TORTURE_TSAN=	die_after_fork=0:halt_on_error=1:report_signal_unsafe=0
TORTURE_ENV=	TSAN_OPTIONS="$(TORTURE_TSAN):$$TSAN_OPTIONS"
else
TORTURE_ENV=	$(SAN_ENV)
endif
torture: tests/torture
	$(TORTURE_ENV) ./tests/torture -s $(SECONDS) $(if $(SEED),-S $(SEED))

DLOPEN_PROGS=	$(TESTS_O)/dlopen_helper $(TESTS_O)/dlopen_plugin.so
tests: $(TEST_PROGS) tests/nokernel_helper tests/torture $(DLOPEN_PROGS)

# The kernel matrix (tests/kernels/run): its feature probe, and the run.
$(TESTS_O)/kernels/probe: tests/kernels/probe.c compat/syscall.h \
    compat/linux_pidfd.h $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

# What tests/kernels/run boots with: the ATF-C programs (the atf-sh ones
# test the install tree and the compilers, not the kernel), the helper
# api_test runs, the probe and the demo.
KERNEL_PROGS=	$(patsubst tests/%.c,$(TESTS_O)/%,$(wildcard tests/*_test.c)) \
		$(TESTS_O)/nokernel_helper $(DLOPEN_PROGS) \
		$(TESTS_O)/kernels/probe $(EXAMPLES_O)/demo
kernel-progs: all $(KERNEL_PROGS)

# ARCH (amd64 or arm64): the guests' architecture, the host's by default.
check-kernels:
	@ARCH='$(ARCH)' bash tests/kernels/run

# The library and the guardian cross-built for aarch64, which has no fork
# trap yet (lib/arch/arch.h): a check that other architectures build.
cross-aarch64:
	@sh tools/deps.sh cross
	@$(MAKE) --no-print-directory CC=aarch64-linux-gnu-gcc \
	    O=$(O)/aarch64 WERROR=-Werror all
	@file $(O)/aarch64/libprocdesc.so.$(VERSION) $(O)/aarch64/procdesc-guardian

# The library built with musl-gcc, and tests/smoke.c (no ATF, which
# Debian builds for glibc only) linked statically against it.
MUSL_SMOKE=	$(O)/musl/smoke
check-musl:
	@sh tools/deps.sh musl
	@$(MAKE) --no-print-directory CC=musl-gcc O=$(O)/musl \
	    WERROR=$(WERROR) all
	musl-gcc -D_GNU_SOURCE -Iinclude $(ALL_CFLAGS) -static \
	    -o $(MUSL_SMOKE) tests/smoke.c $(O)/musl/libprocdesc.a -lpthread
	@file $(MUSL_SMOKE)
	LIBPROCDESC_GUARDIAN=$(abspath $(O))/musl/procdesc-guardian \
	    timeout 600 $(MUSL_SMOKE)

# The ATF-C suite against the musl build (tools/musl-atf.sh): Debian's
# atf source, its libatf-c built with musl-gcc, the programs under
# $(O)/musl/tests.
check-musl-atf: deps-check
	@sh tools/deps.sh musl
	@$(MAKE) --no-print-directory CC=musl-gcc O=$(O)/musl \
	    WERROR=$(WERROR) all
	@WERROR=$(WERROR) sh tools/musl-atf.sh $(O)/musl

# The same with what make check-kernels ARCH=arm64 boots (kernel-progs),
# under $(O)/aarch64/tests and $(O)/aarch64/examples.  ATF-C comes from
# ARM64_SYSROOT, Debian's arm64 packages extracted by tests/kernels/run:
# libatf-c-1:arm64 cannot be installed next to the host's (it is not
# Multi-Arch: same).
cross-aarch64-tests:
	@[ -n '$(ARM64_SYSROOT)' ] || \
	    { echo 'ARM64_SYSROOT: not set (tests/kernels/run sets it)'; exit 1; }
	@sh tools/deps.sh cross
	@$(MAKE) --no-print-directory CC=aarch64-linux-gnu-gcc \
	    O=$(O)/aarch64 TESTS_O=$(O)/aarch64/tests \
	    EXAMPLES_O=$(O)/aarch64/examples WERROR=-Werror \
	    TEST_CFLAGS='-I$(ARM64_SYSROOT)/usr/include' \
	    TEST_LIBS='-L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu -latf-c' \
	    kernel-progs

# Lint the man pages (run by make check).
lint-man:
	mandoc -Tlint -Wwarning man/pdfork.3 man/libprocdesc.7
	mandoc -Tlint -Wwarning man/posix_spawnattr_setprocdescp_np.3

$(EXAMPLES_O)/demo: examples/demo.c $(SHLIB) $(O)/libprocdesc.so \
    $(GUARDIAN) $(CONFIG)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc

# The kernel matrix's report kept in the tree (NOTES 4.2 points to it):
# the standard output of tests/kernels/run (its feature table and one
# summary line per kernel) under a line saying when and where it ran.
# make kernels-results [KERNELS="6.1 6.12 7.2:guardian 7.2:autokill host"];
# one file per ARCH.
KERNELS_RESULTS= tests/kernels/results/$(or $(ARCH),$(shell uname -m)).txt
kernels-results:
	@mkdir -p $(dir $(KERNELS_RESULTS))
	@{ echo "make kernels-results, $$(date -u '+%F %T UTC'), host" \
	    "$$(uname -sr), $$(nproc) CPUs"; ARCH='$(ARCH)' bash tests/kernels/run \
	    $(KERNELS); \
	    } >$(KERNELS_RESULTS).new; rc=$$?; mv -f $(KERNELS_RESULTS).new \
	    $(KERNELS_RESULTS); cat $(KERNELS_RESULTS); exit $$rc
.PHONY: kernels-results

# The two commands of README.md: each installs what it lacks first.
deps-build:
	@sh tools/deps.sh build
deps-check:
	@sh tools/deps.sh check

deps-deb:
	@sh tools/deps.sh deb

demo: deps-build
	@$(MAKE) --no-print-directory examples/demo
	LIBPROCDESC_GUARDIAN=$(abspath $(GUARDIAN)) ./examples/demo

check: deps-check
	@$(MAKE) --no-print-directory all tests lint-man
	@$(SAN_ENV) sh tools/kyua-check.sh $(CHECK)

# The header and install programs build programs of their own: left out.
check-notrap: deps-check
	@$(MAKE) --no-print-directory all tests
	@PROCDESC_TEST_NOTRAP=1 sh tools/kyua-check.sh $${CHECK:-$$(ls \
	    tests/*_test | grep -v -e headers_test -e install_test)}

# Debian packages (debian/), built in a copy of the tree, into obj/deb.
deb: deps-deb
	@sh tools/deb.sh $(O)/deb

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/sys \
	    $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 include/sys/procdesc.h $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprocdesc.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprocdesc.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(GUARDIAN) $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 $(PRELOAD) $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 644 compat/include/sys/capsicum.h \
	    compat/include/sys/caprights.h $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 644 compat/include/capsicum_helpers.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 man/pdfork.3 $(DESTDIR)$(MANDIR)/man3/
	for l in $(MLINKS); do ln -sf pdfork.3 $(DESTDIR)$(MANDIR)/man3/$$l; done
	install -m 644 man/libprocdesc.7 $(DESTDIR)$(MANDIR)/man7/
	install -d $(DESTDIR)$(INCLUDEDIR)/procdesc-overlay
	install -m 644 include/procdesc-overlay/spawn.h \
	    $(DESTDIR)$(INCLUDEDIR)/procdesc-overlay/
	install -m 644 $(PC_OVERLAY) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 man/posix_spawnattr_setprocdescp_np.3 \
	    $(DESTDIR)$(MANDIR)/man3/
	ln -sf posix_spawnattr_setprocdescp_np.3 \
	    $(DESTDIR)$(MANDIR)/man3/posix_spawnattr_getprocdescp_np.3

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/sys/procdesc.h \
	    $(DESTDIR)$(LIBDIR)/libprocdesc.so.$(VERSION) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libprocdesc.so \
	    $(DESTDIR)$(LIBDIR)/libprocdesc.a \
	    $(DESTDIR)$(LIBEXECDIR)/procdesc-guardian \
	    $(DESTDIR)$(LIBEXECDIR)/libprocdesc-preload.so \
	    $(DESTDIR)$(PKGCONFIGDIR)/libprocdesc.pc \
	    $(DESTDIR)$(INCLUDEDIR)/sys/capsicum.h \
	    $(DESTDIR)$(INCLUDEDIR)/sys/caprights.h \
	    $(DESTDIR)$(INCLUDEDIR)/capsicum_helpers.h \
	    $(DESTDIR)$(MANDIR)/man3/pdfork.3 \
	    $(MLINKS:%=$(DESTDIR)$(MANDIR)/man3/%) \
	    $(DESTDIR)$(MANDIR)/man7/libprocdesc.7
	rm -f $(DESTDIR)$(INCLUDEDIR)/procdesc-overlay/spawn.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/libprocdesc-overlay.pc \
	    $(DESTDIR)$(MANDIR)/man3/posix_spawnattr_setprocdescp_np.3 \
	    $(DESTDIR)$(MANDIR)/man3/posix_spawnattr_getprocdescp_np.3
	rmdir $(DESTDIR)$(INCLUDEDIR)/procdesc-overlay 2>/dev/null || :

clean: clean-extra
	rm -rf $(O) $(TEST_PROGS) tests/nokernel_helper tests/torture \
	    $(DLOPEN_PROGS) \
	    tests/kernels/probe examples/demo tests/results

# Fragments owned by bench/ and examples/ (targets bench, examples,
# clean-extra additions).
-include bench/bench.mk
-include examples/examples.mk
clean-extra::

.PHONY: all tests demo check check-notrap check-kernels cross-aarch64 \
	cross-aarch64-tests kernel-progs check-musl check-musl-atf torture \
	install uninstall \
	clean clean-extra deps-build deps-check deps-deb deb lint-man FORCE
