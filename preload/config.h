/* SPDX-License-Identifier: MIT */
/* The library's settings, read from SOCKBOOST_* once per process. */
#ifndef SOCKBOOST_CONFIG_H
#define SOCKBOOST_CONFIG_H

#include <stdint.h>

enum sb_force { SB_FORCE_AUTO, SB_FORCE_ON, SB_FORCE_OFF };
enum sb_scope { SB_SCOPE_ALL, SB_SCOPE_NBD };

/* Largest SOCKBOOST_SNDBUF: the kernel doubles the request into an int. */
#define SB_SNDBUF_MAX (UINT64_C (0x7fffffff) / 2)
#define SB_SNDBUF_DEFAULT (UINT64_C (2) << 20)

struct sb_config {
  uint64_t sndbuf;              /* bytes to request; 0 = leave alone */
  enum sb_force force;
  int nodelay;                  /* set TCP_NODELAY */
  int cork;                     /* NBD-aware MSG_MORE on TCP */
  enum sb_scope scope;
  int debug;                    /* SB_LOG_* level */
  int stats;                    /* per-socket counters at close/exit */
  const char *log_file;         /* NULL: stderr */
  long wmem_max;                /* net.core.wmem_max, -1 if unreadable */
};

/* A malformed variable: its name, its value, what was expected. */
struct sb_config_warning {
  const char *name;
  const char *value;
  const char *expected;
};

#define SB_CONFIG_MAX_WARNINGS 8

/* Fill C from LOOKUP (getenv in the library), defaults for what is unset
 * or malformed; record each malformed variable in W.  Pure.  Returns the
 * number of warnings recorded.
 */
extern int sb_config_parse (struct sb_config *c,
                            const char *(*lookup) (const char *name),
                            struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS]);

/* The process's settings, read on first use (thread-safe, no malloc). */
extern const struct sb_config *sb_config (void);

#endif /* SOCKBOOST_CONFIG_H */
