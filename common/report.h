/* SPDX-License-Identifier: MIT */
/* How every sockboost program speaks on stderr: "PROGRAM: what failed:
 * why", one line, one write.  Usage errors add the one hint to --help and
 * exit 2.  (The library has its own log, preload/log.c: it never exits.)
 */
#ifndef SOCKBOOST_REPORT_H
#define SOCKBOOST_REPORT_H

#include <stdarg.h>
#include <stddef.h>

/* Longest message kept; a longer one is cut and ends in "...". */
#define SB_MESSAGE_MAX 1024

/* The name messages start with: NAME from now on (e.g. "sockboost
 * attach"), else the name the program was run by.
 */
extern void sb_set_program_name (const char *name);
extern const char *sb_program_name (void);

/* Print "PROGRAM: MESSAGE" on stderr.  Values that did not come from the
 * program itself go in escaped with sb_escape (common/escape.h); as a
 * last guard, any control character left in MESSAGE is escaped here too,
 * so that a message is always one line.  Keeps errno.
 */
extern void sb_error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void sb_verror (const char *fmt, va_list ap)
  __attribute__ ((format (printf, 1, 0)));

/* sb_error's line, then "Try 'PROGRAM --help' for more information.",
 * then exit status 2.
 */
extern void sb_usage_error (const char *fmt, ...)
  __attribute__ ((noreturn, format (printf, 1, 2)));

/* "PROGRAM: WHAT: " and errno's text, then exit status 1. */
extern void sb_die (const char *what) __attribute__ ((noreturn));

/* The text sb_verror prints after "PROGRAM: ", in BUF (SIZE bytes, at
 * least SB_MESSAGE_LINE_SIZE for a message that is never cut): pure, for
 * the unit test.
 */
#define SB_MESSAGE_LINE_SIZE (SB_MESSAGE_MAX * 4 + 1)
extern const char *sb_format_message (char *buf, size_t size,
                                      const char *fmt, va_list ap)
  __attribute__ ((format (printf, 3, 0)));

#endif /* SOCKBOOST_REPORT_H */
