# SPDX-License-Identifier: MIT
# Throughput and speed-up against send buffer size, one line per case.
# tools/bench runs it as:
#   gnuplot -e "datafile='D'; outbase='B'; nseries=N" tools/benchlib/bench-throughput.gp
# D holds one block per case (separated by two blank lines): a quoted title,
# then rows "index buffer-label GiB/s speed-up".

set termoption noenhanced
set grid ytics
set xlabel "send buffer (SOCKBOOST_SNDBUF; default = no library)"
set xtics nomirror
set style data linespoints
set pointsize 0.8

do_plots = "set multiplot layout 1,2 title 'sockboost bench: NBD transfers by send buffer'; \
  unset key; set ylabel 'GiB/s'; set yrange [0:*]; \
  plot for [i=0:nseries-1] datafile index i using 1:3:xtic(2) title columnheader(1) lw 2; \
  set key outside right top box; set ylabel 'speed-up vs default'; set yrange [0:*]; \
  plot for [i=0:nseries-1] datafile index i using 1:4:xtic(2) title columnheader(1) lw 2, 1 notitle dt 2 lc 'black'; \
  unset multiplot"

# libgd png: a fifth the size of pngcairo, small enough to commit.
set terminal png size 1400,560 font ",9" noenhanced
set output outbase.".png"
eval do_plots

set terminal svg size 1400,560 font ",10" dynamic noenhanced
set output outbase.".svg"
eval do_plots
set output
