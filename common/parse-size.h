/* SPDX-License-Identifier: MIT */
/* Sizes such as "2M" or "4096": read, written, and explained in one place
 * for the library and every program.
 */
#ifndef SOCKBOOST_PARSE_SIZE_H
#define SOCKBOOST_PARSE_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Parse STR as a decimal count of bytes with an optional binary suffix
 * K, M, G or T (case-insensitive, powers of 1024).  No sign, no spaces,
 * nothing after the suffix.  On success store the value in *SIZE and
 * return 0.  Return -1 with errno EINVAL for malformed text, ERANGE when
 * the value exceeds MAX.  Pure: no allocation, no locale, async-signal-safe.
 */
extern int sb_parse_size (const char *str, uint64_t max, uint64_t *size);

/* Room for sb_size_format's text. */
#define SB_SIZE_TEXT_SIZE 24

/* Write SIZE the way a user would type it: "32M" when a suffix fits it
 * exactly, else plain bytes.  Returns BUF.
 */
extern const char *sb_size_format (uint64_t size, char *buf, size_t len);

/* Room for sb_size_expected's text. */
#define SB_SIZE_EXPECTED_SIZE 96

/* What a size from MIN to MAX must look like, as the words after
 * "expected" in a message: "a size such as 2M or 4194304 (K, M or G; at
 * most 1G)", the suffixes listed being those that can fit under MAX.
 * The one wording of every size message.  Returns BUF.
 */
extern const char *sb_size_expected (uint64_t min, uint64_t max, char *buf,
                                     size_t len);

#endif /* SOCKBOOST_PARSE_SIZE_H */
