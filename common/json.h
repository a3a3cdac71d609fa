/* SPDX-License-Identifier: MIT */
/* JSON values for the programs' --json output. */
#ifndef SOCKBOOST_JSON_H
#define SOCKBOOST_JSON_H

#include <stdio.h>

/* Print S to F as a JSON string, which must be UTF-8: quotes,
 * backslashes and controls escaped, well-formed UTF-8 kept as it is,
 * and any other byte (S may be whatever bytes a user or a peer chose:
 * a path, a process name, an export name) replaced by U+FFFD.
 */
extern void sb_json_string (FILE *f, const char *s);

/* Print "true" or "false" to F. */
extern void sb_json_bool (FILE *f, int b);

#endif /* SOCKBOOST_JSON_H */
