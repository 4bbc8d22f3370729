# libprocdesc: FreeBSD process descriptors for Linux.  Plain GNU make.
#
#   make               the libraries and the guardian
#   make demo          build and run examples/demo
#   make check         build everything and run the Kyua suite
#   make check-kernels the suite on Debian's 6.1 and 6.12 under QEMU too
#   make torture       the torture test for SECONDS (60), SEED= to replay
#   make bench         benchmarks
#   make install PREFIX=/usr/local DESTDIR=
#   make SANITIZE=address|thread  build with a sanitizer

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
# every pdfork child is the child of a multi-threaded fork (the watchdog
# runs), and TSan kills such a child at its first pthread_create unless
# told not to; the child may create threads (SPEC: as after fork()).
ifeq ($(SANITIZE),address)
SAN_CFLAGS=	-fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=undefined
SAN_ENV=	ASAN_OPTIONS="detect_leaks=0:$$ASAN_OPTIONS"
else ifeq ($(SANITIZE),thread)
SAN_CFLAGS=	-fsanitize=thread -fno-omit-frame-pointer
SAN_ENV=	TSAN_OPTIONS="die_after_fork=0:$$TSAN_OPTIONS"
endif

O=		obj
LIB_SRCS=	lib/procdesc.c lib/registry.c lib/watchdog.c \
		lib/guardian_client.c lib/descriptor.c lib/fork.c lib/kernel.c
LIB_OBJS=	$(LIB_SRCS:lib/%.c=$(O)/pic/%.o)
LIB_AOBJS=	$(LIB_SRCS:lib/%.c=$(O)/static/%.o)
SONAME=		libprocdesc.so.$(SOVERSION)
SHLIB=		$(O)/libprocdesc.so.$(VERSION)
STLIB=		$(O)/libprocdesc.a
GUARDIAN=	$(O)/procdesc-guardian
GUARDIAN_PATH=	$(LIBEXECDIR)/procdesc-guardian
MLINKS=		pdgetpid.3 pdkill.3 pdwait.3 pdrfork.3 pdopenpid.3 pddupfd.3

# Every tests/*_test.c is an ATF-C program, every tests/*_test.sh atf-sh.
TEST_PROGS=	$(patsubst %.c,%,$(wildcard tests/*_test.c)) \
		$(patsubst %.sh,%,$(wildcard tests/*_test.sh))
TEST_CFLAGS=	$(shell pkg-config --cflags atf-c 2>/dev/null)
TEST_LIBS=	$(shell pkg-config --libs atf-c 2>/dev/null)

all: $(SHLIB) $(O)/libprocdesc.so $(STLIB) $(GUARDIAN) libprocdesc.pc

# Header dependencies come from the compiler (-MMD -MP), not by hand.
DEPFLAGS=	-MMD -MP

$(O)/pic/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fPIC -fvisibility=hidden \
	    -DPROCDESC_GUARDIAN_PATH='"$(GUARDIAN_PATH)"' -c -o $@ $<

$(O)/static/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -fvisibility=hidden \
	    -DPROCDESC_GUARDIAN_PATH='"$(GUARDIAN_PATH)"' -c -o $@ $<

$(SHLIB): $(LIB_OBJS) lib/libprocdesc.map
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) \
	    -Wl,--version-script,lib/libprocdesc.map -Wl,-z,defs \
	    -o $@ $(LIB_OBJS) -pthread

$(O)/libprocdesc.so: $(SHLIB)
	ln -sf libprocdesc.so.$(VERSION) $(O)/$(SONAME)
	ln -sf $(SONAME) $@

$(STLIB): $(LIB_AOBJS)
	rm -f $@
	ar rcs $@ $(LIB_AOBJS)

# The guardian program shares descriptor.c with the library.
GUARDIAN_OBJS=	$(O)/guardian/guardian.o $(O)/guardian/descriptor.o
$(O)/guardian/%.o: lib/guardian/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(O)/guardian/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(GUARDIAN): $(GUARDIAN_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(GUARDIAN_OBJS)

-include $(wildcard $(O)/*/*.d)

libprocdesc.pc: libprocdesc.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    libprocdesc.pc.in > $@

# Tests link the build tree's shared library and find its guardian
# through LIBPROCDESC_GUARDIAN, which testutil sets.
T_DEFS=		-DT_GUARDIAN='"$(abspath $(GUARDIAN))"'
tests/%_test: tests/%_test.c tests/testutil.c tests/testutil.h $(SHLIB) \
    $(O)/libprocdesc.so $(GUARDIAN)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(T_DEFS) -Icompat/include \
	    $(TEST_CFLAGS) -o $@ $< tests/testutil.c -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc $(TEST_LIBS) -pthread

# Run by api_test under seccomp: not a test program of its own.
tests/nokernel_helper: tests/nokernel_helper.c $(SHLIB) $(O)/libprocdesc.so
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc

tests/capsicum_test: tests/capsicum_test.c compat/include/sys/capsicum.h \
    compat/include/capsicum_helpers.h
	$(CC) -D_GNU_SOURCE $(ALL_CFLAGS) -Icompat/include $(TEST_CFLAGS) \
	    -o $@ $< $(TEST_LIBS)

tests/%_test: tests/%_test.sh
	cp $< $@
	chmod +x $@

# The torture test (tests/torture.c): a program of its own, run for 5 s
# by torture_test and for a minute by CI.  make torture [SECONDS=n]
# [SEED=n] runs it.
tests/torture: tests/torture.c $(SHLIB) $(O)/libprocdesc.so $(GUARDIAN)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(T_DEFS) -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc -pthread

# Under TSan: the torture's signal handler pdforks, and so mallocs, on
# purpose (only where its thread holds no lock), which TSan would report
# as a signal-unsafe call; a report stops the run at once.
SECONDS?=	60
ifeq ($(SANITIZE),thread)
TORTURE_TSAN=	die_after_fork=0:halt_on_error=1:report_signal_unsafe=0
TORTURE_ENV=	TSAN_OPTIONS="$(TORTURE_TSAN):$$TSAN_OPTIONS"
else
TORTURE_ENV=	$(SAN_ENV)
endif
torture: tests/torture
	$(TORTURE_ENV) ./tests/torture -s $(SECONDS) $(if $(SEED),-S $(SEED))

tests: $(TEST_PROGS) tests/nokernel_helper tests/torture

# The kernel matrix (tests/kernels/run): its feature probe, and the run.
tests/kernels/probe: tests/kernels/probe.c compat/syscall.h \
    compat/linux_pidfd.h
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

check-kernels:
	@bash tests/kernels/run

# Lint the man pages (run by make check).
lint-man:
	mandoc -Tlint -Wwarning man/pdfork.3 man/libprocdesc.7

examples/demo: examples/demo.c $(SHLIB) $(O)/libprocdesc.so $(GUARDIAN)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc

# The two commands of README.md: each installs what it lacks first.
deps-build:
	@sh tools/deps.sh build
deps-check:
	@sh tools/deps.sh check

demo: deps-build
	@$(MAKE) --no-print-directory examples/demo
	LIBPROCDESC_GUARDIAN=$(abspath $(GUARDIAN)) ./examples/demo

check: deps-check
	@$(MAKE) --no-print-directory all tests lint-man
	@$(SAN_ENV) sh tools/kyua-check.sh

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/sys \
	    $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 include/sys/procdesc.h $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libprocdesc.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprocdesc.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(GUARDIAN) $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 libprocdesc.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 644 compat/include/sys/capsicum.h $(DESTDIR)$(INCLUDEDIR)/sys/
	install -m 644 compat/include/capsicum_helpers.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 man/pdfork.3 $(DESTDIR)$(MANDIR)/man3/
	for l in $(MLINKS); do ln -sf pdfork.3 $(DESTDIR)$(MANDIR)/man3/$$l; done
	install -m 644 man/libprocdesc.7 $(DESTDIR)$(MANDIR)/man7/

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/sys/procdesc.h \
	    $(DESTDIR)$(LIBDIR)/libprocdesc.so.$(VERSION) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libprocdesc.so \
	    $(DESTDIR)$(LIBDIR)/libprocdesc.a \
	    $(DESTDIR)$(LIBEXECDIR)/procdesc-guardian \
	    $(DESTDIR)$(PKGCONFIGDIR)/libprocdesc.pc \
	    $(DESTDIR)$(INCLUDEDIR)/sys/capsicum.h \
	    $(DESTDIR)$(INCLUDEDIR)/capsicum_helpers.h \
	    $(DESTDIR)$(MANDIR)/man3/pdfork.3 \
	    $(MLINKS:%=$(DESTDIR)$(MANDIR)/man3/%) \
	    $(DESTDIR)$(MANDIR)/man7/libprocdesc.7

clean: clean-extra
	rm -rf $(O) $(TEST_PROGS) tests/nokernel_helper tests/torture \
	    tests/kernels/probe examples/demo libprocdesc.pc tests/results

# Fragments owned by bench/ and examples/ (targets bench, examples,
# clean-extra additions).
-include bench/bench.mk
-include examples/examples.mk
clean-extra::

.PHONY: all tests demo check check-kernels install uninstall clean clean-extra \
	deps-build deps-check lint-man torture
