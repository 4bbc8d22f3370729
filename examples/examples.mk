# Ported-style programs using libprocdesc, built with the libbsd overlay
# and the in-tree library (included by the top Makefile).
#
#   make examples      examples/pdiff3, examples/pdpager, examples/pdtimeout
#
# They find the guardian through LIBPROCDESC_GUARDIAN, as the tests do.

EXAMPLES=	examples/pdiff3 examples/pdpager examples/pdtimeout
BSD_CFLAGS=	$(shell pkg-config --cflags libbsd-overlay 2>/dev/null)
BSD_LIBS=	$(shell pkg-config --libs libbsd-overlay 2>/dev/null)

examples: $(EXAMPLES)

$(EXAMPLES): examples/%: examples/%.c include/sys/procdesc.h \
    compat/include/sys/capsicum.h compat/include/capsicum_helpers.h \
    $(SHLIB) $(O)/libprocdesc.so $(GUARDIAN)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -Icompat/include $(BSD_CFLAGS) \
	    -o $@ $< -L$(O) -Wl,-rpath,$(abspath $(O)) -lprocdesc $(BSD_LIBS)

tests: examples

clean-extra::
	rm -f $(EXAMPLES)

.PHONY: examples
