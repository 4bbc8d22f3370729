# Plots for make bench (bench/bench.mk): gnuplot -e "dir='bench/results'"
set datafile separator ","
set terminal svg size 800,500 dynamic font "sans,11"

set output dir."/closekill.svg"
set title "Kill latency: time until the child is dead (CDF)"
set xlabel "latency (us, log scale)"
set ylabel "fraction of runs"
set logscale x
set key bottom right
set grid
plot dir."/closekill_direct.csv" using 1:2 skip 1 with lines lw 2 \
	title "direct SIGKILL (baseline)", \
     dir."/closekill_close.csv" using 1:2 skip 1 with lines lw 2 \
	title "close() of the last descriptor", \
     dir."/closekill_owner.csv" using 1:2 skip 1 with lines lw 2 \
	title "owner SIGKILLed"

set output dir."/scale.svg"
set title "Cost to create one more live child"
set xlabel "live children"
set ylabel "us per child"
unset logscale x
set yrange [0:*]
set key top left
plot dir."/scale.csv" using 1:2 skip 1 with linespoints lw 2 \
	title "pdfork", \
     dir."/scale.csv" using 1:4 skip 1 with linespoints lw 2 \
	title "clone3(CLONE_PIDFD), pidfds kept (baseline)", \
     dir."/scale.csv" using 1:3 skip 1 with linespoints lw 2 \
	title "fork"
