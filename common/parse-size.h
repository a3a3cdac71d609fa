/* SPDX-License-Identifier: MIT */
/* Parse sizes such as "2M" or "4096", shared by the library and the programs. */
#ifndef SOCKBOOST_PARSE_SIZE_H
#define SOCKBOOST_PARSE_SIZE_H

#include <stdint.h>

/* Parse STR as a decimal count of bytes with an optional binary suffix
 * K, M, G or T (case-insensitive, powers of 1024).  No sign, no spaces,
 * nothing after the suffix.  On success store the value in *SIZE and
 * return 0.  Return -1 with errno EINVAL for malformed text, ERANGE when
 * the value exceeds MAX.  Pure: no allocation, no locale, async-signal-safe.
 */
extern int sb_parse_size (const char *str, uint64_t max, uint64_t *size);

#endif /* SOCKBOOST_PARSE_SIZE_H */
