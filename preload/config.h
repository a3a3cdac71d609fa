/* SPDX-License-Identifier: MIT */
/* The library's settings, read from SOCKBOOST_* once per process. */
#ifndef SOCKBOOST_CONFIG_H
#define SOCKBOOST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

enum sb_force { SB_FORCE_AUTO, SB_FORCE_ON, SB_FORCE_OFF };
enum sb_scope { SB_SCOPE_ALL, SB_SCOPE_NBD };

/* Largest SOCKBOOST_SNDBUF, 1G.  The kernel doubles a request into an
 * int, so it grants at most twice SB_SNDBUF_REQUEST_MAX (1G - 1): a 1G
 * setting is requested as that, which is what the kernel makes of 1G too.
 */
#define SB_SNDBUF_MAX (UINT64_C (1) << 30)
#define SB_SNDBUF_REQUEST_MAX (0x7fffffff / 2)
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
  int secure;                   /* secure execution: environment ignored */
  int watch_calls;              /* stats or trace: hooks on tuned sockets
                                   leave the fast path */
};

/* A malformed variable: its name, its value, what was expected. */
struct sb_config_warning {
  const char *name;
  const char *value;
  const char *expected;
};

#define SB_CONFIG_MAX_WARNINGS 8

/* Fill C from LOOKUP (getenv in the library), defaults for what is unset
 * or malformed; record each malformed variable in W.  With SECURE (the
 * process runs in secure-execution mode: setuid, setgid, file
 * capabilities) LOOKUP is never called: the built-in defaults, with no
 * log output at all and no log file.  Pure.  Returns the number of
 * warnings recorded.
 */
extern int sb_config_parse (struct sb_config *c, int secure,
                            const char *(*lookup) (const char *name),
                            struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS]);

/* The warning line for W: the value escaped (one printable line), cut
 * short if long.  Pure; returns BUF.
 */
extern const char *sb_config_warning_text (const struct sb_config_warning *w,
                                           char *buf, size_t size);

/* The effective settings of C as one line, for the load-time log line at
 * SOCKBOOST_DEBUG=2.  Pure; returns BUF.
 */
extern const char *sb_config_describe (const struct sb_config *c, char *buf,
                                       size_t size);

/* net.core.wmem_max as the library reads it at load, -1 if unreadable. */
extern long sb_config_wmem_max (void);

/* The process's settings, read on first use (thread-safe, no malloc). */
extern const struct sb_config *sb_config (void);

#endif /* SOCKBOOST_CONFIG_H */
