/* SPDX-License-Identifier: MIT */
/* The life of a table entry: set when a hooked call hands out a descriptor,
 * cleared when one is closed or replaced, releasing what it held.
 */
#ifndef SOCKBOOST_TRACK_H
#define SOCKBOOST_TRACK_H

#include <stdint.h>

/* FD now holds a new object described by ENTRY. */
extern void sb_track_set (int fd, uint32_t entry);

/* The host is about to close or replace descriptors LO..HI by the hook
 * CALL.
 */
extern void sb_track_forget (unsigned lo, unsigned hi, const char *call);

/* Print the counters of every socket still tuned (at exit). */
extern void sb_track_report_all (void);

#endif /* SOCKBOOST_TRACK_H */
