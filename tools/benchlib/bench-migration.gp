# SPDX-License-Identifier: MIT
# Seconds per transfer of the migration workload: one group of bars per
# case, one bar per configuration, on a log scale (plain and boosted QEMU
# 7.2 are 10-100x apart).  tools/bench runs it as:
#   gnuplot -e "datafile='D'; outbase='B'; nconfigs=N" tools/benchlib/bench-migration.gp
# D: a header line "case" and the N quoted configuration names, then one
# line per case: its quoted name and each configuration's median seconds
# ("-" when it has none).

set termoption noenhanced
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set grid ytics
set ylabel "seconds per transfer (median, log scale)"
set xtics rotate by 45 right nomirror
set key outside right top box
set bmargin 22
set lmargin 30
set title "sockboost bench: disk transfers between QEMU system emulators over NBD"

do_plot = "plot for [i=2:nconfigs+1] datafile using i:xtic(1) title columnheader(i)"

# libgd png: a fifth the size of pngcairo, small enough to commit.
set terminal png size 1400,800 font ",9" noenhanced
set output outbase.".png"
eval do_plot

set terminal svg size 1400,800 font ",10" dynamic noenhanced
set output outbase.".svg"
eval do_plot
set output
