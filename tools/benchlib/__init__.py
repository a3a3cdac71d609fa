# SPDX-License-Identifier: MIT
"""The pieces of sockboost bench (tools/bench) and the demo (tools/demo):
the programs they run, the scratch data, the workloads, the report and
its plot scripts (*.gp).  How they measure (rounds, processes, the unix
ceiling) is sockboostlib.measure, which doctor shares."""
