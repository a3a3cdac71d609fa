/* SPDX-License-Identifier: MIT */
/* The library's settings: every SOCKBOOST_* variable, the values it takes,
 * its default, and the parser that reads them through a lookup function.
 * Pure: the library (preload/config.c), sb-config and sb-attach read the
 * variables with this one parser, each from its own environment.
 */
#ifndef SOCKBOOST_SETTINGS_H
#define SOCKBOOST_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

enum sb_force { SB_FORCE_AUTO, SB_FORCE_ON, SB_FORCE_OFF };
enum sb_scope { SB_SCOPE_ALL, SB_SCOPE_NBD };
/* SOCKBOOST_DEBUG: the log levels. */
enum sb_log_level { SB_LOG_SILENT, SB_LOG_WARN, SB_LOG_INFO, SB_LOG_TRACE };

/* Largest SOCKBOOST_SNDBUF, 1G (see SB_SNDBUF_REQUEST_MAX, tuning.h). */
#define SB_SNDBUF_MAX (UINT64_C (1) << 30)

struct sb_config {
  uint64_t sndbuf;              /* SNDBUF: bytes to request; 0 = leave alone */
  int force;                    /* FORCE: SB_FORCE_* */
  int nodelay;                  /* NODELAY: set TCP_NODELAY */
  int cork;                     /* CORK: NBD-aware MSG_MORE on TCP */
  int scope;                    /* SCOPE: SB_SCOPE_* */
  int stats;                    /* STATS: per-socket counters at close/exit */
  int debug;                    /* DEBUG: SB_LOG_* */
  const char *log_file;         /* LOG_FILE: NULL for stderr */
  long wmem_max;                /* net.core.wmem_max, -1 if unknown */
  int secure;                   /* secure execution: environment ignored */
  int watch_calls;              /* stats or trace: hooks on tuned sockets
                                   leave the fast path */
};

/* Room for what a variable's value must be, in words. */
#define SB_EXPECTED_SIZE 96

/* A malformed variable: its name, its value, what was expected. */
struct sb_config_warning {
  const char *name;
  const char *value;
  char expected[SB_EXPECTED_SIZE];
};

#define SB_CONFIG_MAX_WARNINGS 8

/* Fill C from LOOKUP (getenv in the library), defaults for what is unset
 * or malformed; record each malformed variable in W.  With SECURE (the
 * process runs in secure-execution mode: setuid, setgid, file
 * capabilities) LOOKUP is never called: the built-in defaults, with no
 * log output at all and no log file.  C->wmem_max is left -1 (unknown).
 * Returns the number of warnings recorded.
 */
extern int sb_config_parse (struct sb_config *c, int secure,
                            const char *(*lookup) (const char *name),
                            struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS]);

/* Set the variable NAME of C from VALUE, as sb_config_parse does: 0, or
 * -1 with EXPECTED (SB_EXPECTED_SIZE bytes) saying what VALUE must be.
 * For a program's option that stands for a variable (sb_config_option).
 */
extern int sb_config_set (struct sb_config *c, const char *name,
                          const char *value, char *expected);

/* A program's OPTION (e.g. "--sndbuf") that stands for the variable NAME:
 * set C from ARG as sb_config_set does, or end the program with a usage
 * error saying what ARG must be (rules/option.c; not for the library).
 */
extern void sb_config_option (struct sb_config *c, const char *option,
                              const char *name, const char *arg);

/* The warning line for W: the value escaped (one printable line), cut
 * short if long.  Returns BUF.
 */
extern const char *sb_config_warning_text (const struct sb_config_warning *w,
                                           char *buf, size_t size);

/* The effective settings of C as one line, for the load-time log line at
 * SOCKBOOST_DEBUG=2.  Returns BUF.
 */
extern const char *sb_config_describe (const struct sb_config *c, char *buf,
                                       size_t size);

/* Whether the library prints warnings with settings C. */
extern int sb_config_warns (const struct sb_config *c);

/* Variable I of the SOCKBOOST_* variables the parser reads (0, 1, ...):
 * its name, its default as written in the environment ("" for none), and
 * what its value must be (in EXPECTED, SB_EXPECTED_SIZE bytes).  Returns
 * the name, or NULL past the last.
 */
extern const char *sb_config_variable (size_t i, const char **default_text,
                                       char *expected);

#endif /* SOCKBOOST_SETTINGS_H */
