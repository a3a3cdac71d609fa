# SPDX-License-Identifier: MIT
"""The pieces of sockboost bench (tools/bench): the programs it runs,
processes and servers, the scratch data, the workloads and the report."""
