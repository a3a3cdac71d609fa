/* SPDX-License-Identifier: MIT */
/* Escape untrusted text for one-line log and error messages. */
#ifndef SOCKBOOST_ESCAPE_H
#define SOCKBOOST_ESCAPE_H

#include <stddef.h>

/* Bytes of buffer that hold the escape of LEN input bytes without
 * truncation: at most 4 output bytes per input byte, plus the NUL.
 */
#define SB_ESCAPE_SIZE(len) ((len) * 4 + 1)

/* Copy the LEN bytes at DATA into BUF (SIZE bytes) so that the result is
 * one line of printable ASCII that says exactly what the bytes were:
 * bytes 0x20-0x7e are copied, except that a backslash and both quote
 * characters get a backslash before them; tab, newline and carriage
 * return become \t, \n and \r; every other byte (controls, DEL, and
 * everything from 0x80, UTF-8 included) becomes \xHH with lowercase hex.
 * NUL bytes inside DATA are escaped too, so network data may be passed
 * as it is.  If the escape does not fit, it is cut after a whole
 * escaped byte and ends in "..." (a literal "..." in DATA is copied as
 * is: use SB_ESCAPE_SIZE for a buffer that never truncates).  BUF is
 * always NUL-terminated when SIZE > 0.  DATA may be NULL when LEN is 0.
 * Returns BUF, or "" when SIZE is 0, so the call can be a printf
 * argument.  Pure: no allocation, no locale, no errno change,
 * async-signal-safe.  Not JSON string escaping.
 */
extern const char *sb_escape (char *buf, size_t size,
                              const void *data, size_t len);

/* sb_escape of the NUL-terminated STR; a NULL STR gives "(null)". */
extern const char *sb_escape_str (char *buf, size_t size, const char *str);

#endif /* SOCKBOOST_ESCAPE_H */
