/* SPDX-License-Identifier: MIT */
/* sb-host's commands: `sockboost host enable|disable|status`. */
#ifndef SOCKBOOST_HOST_H
#define SOCKBOOST_HOST_H

#include <stdint.h>
#include <sys/types.h>

#include "filter.h"

struct sb_host_options {
  struct sb_host_filter_spec filter;
  uint32_t sndbuf;              /* SO_SNDBUF request for unix streams; 0 off */
  const char *cgroup;           /* --cgroup, or NULL: the whole host */
  const char *pin_dir;          /* --pin-dir, or the default */
  int verbose;
  int json;
  int watcher;                  /* --watcher: TCP by the watcher anyway */
  int observe;                  /* --observe: the counting only */
  pid_t pid;                    /* status PID, or 0 */
};

/* Each returns the program's exit status: 0 done, 1 failed (said why). */
extern int sb_host_enable (const struct sb_host_options *o);
extern int sb_host_disable (const struct sb_host_options *o);
extern int sb_host_status (const struct sb_host_options *o);
extern int sb_host_status_pid (const struct sb_host_options *o);
extern int sb_host_check (const struct sb_host_options *o);
/* The watcher's process (watch-main.c): enable starts it. */
extern int sb_host_watch (const struct sb_host_options *o);

#endif /* SOCKBOOST_HOST_H */
