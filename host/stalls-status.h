/* SPDX-License-Identifier: MIT */
/* What status says of the counting (stalls-abi.h): per program and user
 * (host mode's "counts" rows), per live process; as text and as JSON.
 */
#ifndef SOCKBOOST_HOST_STALLS_STATUS_H
#define SOCKBOOST_HOST_STALLS_STATUS_H

#include "counts.h"
#include "state.h"

/* Remove the rows of the processes gone from the process rows of ST
 * (their counts stay in their program's row): a pid that no process
 * has, or one whose process started after the row's first count.
 */
extern void sb_stalls_prune (const struct sb_host_state *st);

/* The counting's part of status as text: per program row of ST's counts
 * map, and per live process.
 */
extern void sb_stalls_text (const struct sb_host_state *st);

/* The counting's fields of row C, each after ", ". */
extern void sb_stalls_json_fields (const struct sb_host_counts *c);

/* The live processes' rows as a JSON array. */
extern void sb_stalls_json_processes (const struct sb_host_state *st);

#endif /* SOCKBOOST_HOST_STALLS_STATUS_H */
