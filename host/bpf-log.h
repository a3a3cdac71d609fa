/* SPDX-License-Identifier: MIT */
/* libbpf's messages: shown with -v, and what the kernel said when it
 * refused a program kept, for a reason in one line (the verifier's own
 * words, not libbpf's -22).
 */
#ifndef SOCKBOOST_HOST_BPF_LOG_H
#define SOCKBOOST_HOST_BPF_LOG_H

#include <stddef.h>

/* Take libbpf's messages from now on: to stderr with VERBOSE (twice:
 * its debug messages too), kept either way.
 */
extern void sb_host_libbpf_messages (int verbose);

/* Forget what was kept, before a load. */
extern void sb_host_bpf_log_reset (void);

/* Why the kernel refused the last program refused since the reset, in
 * one line, into BUF: the verifier's last word when it gave a log, else
 * libbpf's last warning, else "".  Returns BUF.
 */
extern const char *sb_host_bpf_log_reason (char *buf, size_t size);

/* The program libbpf's last warning since the reset named, or "". */
extern const char *sb_host_bpf_log_program (void);

#endif /* SOCKBOOST_HOST_BPF_LOG_H */
