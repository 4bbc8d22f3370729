# bench/bench.mk: `make bench` (issue #7), included by the top Makefile.
#
#   make bench            full run, 5 to 25 minutes on 2 cores (23.5 on
#                         a machine whose fork takes 1 ms)
#   make bench QUICK=1    fewer iterations, 1,000 children in sections 5
#                         and 6, smaller heaps in 1b, 20 s to 1.5 min
#   make bench SCALE=n    n children in section 6, the limit run
#                         (default 19000, QUICK 1000); SCALE=0 skips it
#   make bench SECTION=5  section 5 (or 6) alone, to study it: the table
#                         in latest-s5.txt, the data under s5/
#   make bench-kernel     section 7 alone in Debian's 7.2 under QEMU,
#                         once per close-kill path (NOTES 1.12), about
#                         2 min under TCG; the guest's table on stderr
#
# The table goes to stdout and to bench/results/latest.txt; every row to
# bench/results/bench.csv, the distributions and the scale curve to *.csv
# there, and the plots to bench/results/*.svg when gnuplot is installed.
# QUICK: latest-quick.txt, and the data and plots under bench/results/quick/.

BENCH=		bench/bench
BENCH_SRCS=	bench/bench.c bench/kernel.c bench/proc.c bench/scale.c \
		bench/spawn.c bench/stats.c
BENCH_DIR=	bench/results
BENCH_QUICK=	$(filter-out 0,$(QUICK))
BENCH_TXT=	$(BENCH_DIR)/latest$(if $(BENCH_QUICK),-quick)$(if $(SECTION),-s$(SECTION)).txt
BENCH_DATA=	$(BENCH_DIR)$(if $(BENCH_QUICK),/quick)$(if $(SECTION),/s$(SECTION))

$(BENCH): $(BENCH_SRCS) bench/bench.h $(SHLIB) $(O)/libprocdesc.so \
    $(GUARDIAN)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $(BENCH_SRCS) -L$(O) \
	    -Wl,-rpath,$(abspath $(O)) -lprocdesc -pthread -lm

bench: $(BENCH)
	@mkdir -p $(BENCH_DATA)
	LIBPROCDESC_GUARDIAN=$(abspath $(GUARDIAN)) ./$(BENCH) \
	    $(if $(BENCH_QUICK),-q) $(if $(SCALE),-l $(SCALE)) \
	    $(if $(SECTION),-S $(SECTION)) \
	    -o $(BENCH_DATA) -t $(BENCH_TXT)
	@if command -v gnuplot >/dev/null 2>&1; then \
	    gnuplot -e "dir='$(BENCH_DATA)'" bench/plot.gp && \
	    echo "Plots: $(BENCH_DATA)/{closekill,scale}.svg"; \
	else \
	    echo "No gnuplot: no plots (apt-get install -y gnuplot-nox)"; \
	fi

bench-kernel: $(BENCH)
	KERNEL_EXTRA=bench/bench KERNEL_FILTER=tests/autokill_test \
	    KERNEL_CMD='env LIBPROCDESC_GUARDIAN=$(abspath $(GUARDIAN)) sh -c \
	    "bench/bench -k -o /tmp -t /tmp/bench-kernel.txt && echo 1 passed, 0 failed, 0 skipped"' \
	    bash tests/kernels/run 7.2:autokill 7.2:guardian

clean-extra::
	rm -f $(BENCH)

.PHONY: bench bench-kernel
