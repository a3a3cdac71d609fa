/* SPDX-License-Identifier: MIT */
/* Host mode's "counts" map from user space: the rows enable makes for
 * every filter entry, a count added as the programs add one, and the
 * rows read back for status, with an entry as a user reads it.  The
 * layout and the rule are host-abi.h's.
 */
#ifndef SOCKBOOST_HOST_COUNTS_H
#define SOCKBOOST_HOST_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "host-abi.h"

/* The entry of F's Ith program, or "any" when F does not filter by
 * program.
 */
extern void sb_host_entry_of (const struct sb_host_filter_spec *f, int i,
                              struct sb_host_name_key *entry);

/* ENTRY as the user writes it ("qemu-nbd", "qemu-system-*", "any"),
 * escaped.  Returns BUF.
 */
extern const char *sb_host_entry_text (const struct sb_host_name_key *entry,
                                       char *buf, size_t size);

/* Make the rows of root and of the others for every entry of F in the
 * counts map at FD (rows that exist are kept).  0, or -1 (errno).
 */
extern int sb_host_counts_reserve (int fd, const struct sb_host_filter_spec *f);

/* Add one to counter WHICH (enum sb_host_count) of the row of ENTRY and
 * UID, as the programs do: made when missing, the others' row when the
 * map is full.
 */
extern void sb_host_count_add (int fd, const struct sb_host_name_key *entry,
                               uint32_t uid, int which);

/* One row of the counts map. */
struct sb_host_count_row {
  struct sb_host_count_key key;
  struct sb_host_counts counts;
};

/* Read the rows of the map at FD that counted something into ROWS (room
 * for MAX, which SB_HOST_MAX_COUNT_ROWS always fits), sorted by entry,
 * then uid (the others last).  Returns how many.
 */
extern int sb_host_counts_read (int fd, struct sb_host_count_row *rows,
                                int max);

#endif /* SOCKBOOST_HOST_COUNTS_H */
