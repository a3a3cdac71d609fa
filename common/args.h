/* SPDX-License-Identifier: MIT */
/* Command-line argument checks shared by sbnbd-server and sbnbd-client:
 * each says in words what was wrong, so that a usage error is one line
 * that names what would have been accepted.
 */
#ifndef SOCKBOOST_ARGS_H
#define SOCKBOOST_ARGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any complaint below.  Complaints about a value do not quote
 * it: the caller says which option and value they are about.
 */
#define SB_ARG_WHY_SIZE 320

/* TEXT as a size from MIN to MAX (common/parse-size.h).  Returns 0, or
 * -1 with WHY describing the problem.
 */
extern int sb_arg_size (const char *text, uint64_t min, uint64_t max,
                        uint64_t *value, char *why, size_t why_len);

/* TEXT as a count from MIN to MAX in BASE (10, or 8 for a mode): digits
 * only.  Returns 0, or -1 with WHY describing the problem.
 */
extern int sb_arg_count (const char *text, int base, unsigned long min,
                         unsigned long max, unsigned long *value,
                         char *why, size_t why_len);

/* TEXT, the value of OPTION, as a count from MIN to MAX (base 10), or
 * a usage error "OPTION TEXT: why" (exit 2): for the programs' option
 * parsers.
 */
extern unsigned long sb_option_count (const char *option, const char *text,
                                      unsigned long min, unsigned long max);

/* TEXT, the value of OPTION, as a size from 1 to MAX, or a usage error
 * "OPTION: invalid size 'TEXT': expected ..." (exit 2), in the words
 * the Python tools pass on as theirs (sockboostlib/options.py).
 */
extern uint64_t sb_option_size (const char *option, const char *text,
                                uint64_t max);

/* What getopt_long (called with opterr = 0 and an OPTSTRING that starts
 * with ':') found wrong when it returned C ('?' or ':'), from optind,
 * optopt and ARGV.  Our own words, because getopt's message would print
 * the argument unescaped; here it is escaped (sb_escape).
 */
extern void sb_arg_getopt_complaint (int c, char *const *argv,
                                     const char *optstring,
                                     char *why, size_t why_len);

#endif /* SOCKBOOST_ARGS_H */
