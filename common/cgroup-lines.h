/* SPDX-License-Identifier: MIT */
/* The kernel's text about cgroup v1 hierarchies, read in place: a line
 * of /proc/PID/cgroup and a line of /proc/PID/mountinfo.  Pure (no I/O,
 * no allocation), for common/net-class.c and its unit tests.
 */
#ifndef SOCKBOOST_CGROUP_LINES_H
#define SOCKBOOST_CGROUP_LINES_H

#include <stdbool.h>

/* "ID:CONTROLLERS:PATH", one hierarchy's cgroup of a process. */
struct sb_cgroup_line {
  unsigned id;                  /* the hierarchy's number; 0: cgroup v2 */
  const char *controllers;      /* comma-separated; "" for cgroup v2 */
  const char *path;             /* the cgroup, from the hierarchy's root */
};

/* Split LINE (NUL-terminated, without its newline) into L, in place.
 * Returns 0, or -1 when LINE is not of that form.
 */
extern int sb_cgroup_line_parse (char *line, struct sb_cgroup_line *l);

/* Whether the comma-separated LIST has NAME as one of its elements. */
extern bool sb_list_has (const char *list, const char *name);

/* Whether every element of the comma-separated LIST is one of ALLOWED's
 * (both comma-separated); an empty LIST has none to miss.
 */
extern bool sb_list_within (const char *list, const char *allowed);

/* A mount, as /proc/PID/mountinfo says (proc(5)): "ID PARENT MAJ:MIN
 * ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS".
 */
struct sb_mount_line {
  unsigned major, minor;        /* the file system's device */
  const char *root;             /* what of the file system is mounted */
  const char *mount_point;
  const char *type;
  const char *super_options;    /* a cgroup v1 mount's controllers, etc. */
};

/* Split LINE (NUL-terminated, without its newline) into M, in place;
 * ROOT and MOUNT-POINT lose the kernel's octal escapes (\040 for a
 * space...).  Returns 0, or -1 when LINE is not of that form.
 */
extern int sb_mount_line_parse (char *line, struct sb_mount_line *m);

#endif /* SOCKBOOST_CGROUP_LINES_H */
