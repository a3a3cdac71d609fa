/* SPDX-License-Identifier: MIT */
/* What libbpf's messages say of a program the kernel refused, read
 * from their text: pure functions, for bpf-log.c.
 */
#ifndef SOCKBOOST_HOST_VERIFIER_LOG_H
#define SOCKBOOST_HOST_VERIFIER_LOG_H

#include <stddef.h>

/* Why LOG (a verifier log, libbpf's frame around it or not) says the
 * program was refused: its last line that is not a statistic, a source
 * line or libbpf's frame, escaped into BUF.  0, or -1 (BUF "") when no
 * line says.
 */
extern int sb_host_verifier_reason (const char *log, char *buf, size_t size);

/* The program a libbpf MESSAGE is about ("prog 'NAME': ...", or
 * "... program 'NAME'"), escaped into BUF; 0, or -1 (BUF "") when it
 * names none.
 */
extern int sb_host_libbpf_program (const char *message, char *buf, size_t size);

#endif /* SOCKBOOST_HOST_VERIFIER_LOG_H */
