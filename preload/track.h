/* SPDX-License-Identifier: MIT */
/* The life of a table entry: set when a hooked call hands out a descriptor,
 * cleared when one is closed or replaced, releasing what it held.
 */
#ifndef SOCKBOOST_TRACK_H
#define SOCKBOOST_TRACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The tables belong to the process that loaded the library (or forked
 * from it): record it.  From the constructor and the fork handler.
 */
extern void sb_track_adopt (void);

/* True in a process that shares the tables but not the descriptors: a
 * vfork child (or one made by clone or _Fork, which skip fork handlers).
 * Its descriptors are its own, so what it closes or creates must leave
 * the tables alone.  Costs a getpid system call.
 */
extern bool sb_track_foreign (void);

/* The process the tables belong to.  A vfork child shares its memory,
 * so reading the program's memory through this id is right there too.
 */
extern pid_t sb_track_owner (void);

/* FD now holds a new object described by ENTRY (nothing in a foreign
 * process).
 */
extern void sb_track_set (int fd, uint32_t entry);

/* The host is about to close or replace descriptors LO..HI by the hook
 * CALL (nothing in a foreign process).
 */
extern void sb_track_forget (unsigned lo, unsigned hi, const char *call);

/* Print the counters of every socket still tuned (at exit). */
extern void sb_track_report_all (void);

#endif /* SOCKBOOST_TRACK_H */
