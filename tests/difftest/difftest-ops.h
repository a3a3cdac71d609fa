/* SPDX-License-Identifier: MIT */
/* The differential tester's operations (ops-send.c, ops-recv.c,
 * ops-fds.c, procs.c), drawn by run.c.
 */
#ifndef SOCKBOOST_DIFFTEST_OPS_H
#define SOCKBOOST_DIFFTEST_OPS_H

#include "difftest.h"

/* A wait this long for bytes already sent is a held segment: the
 * kernel's cork timer is 200 ms, a busy machine's delays mostly far
 * shorter (main.c runs a seed again before it blames the library).
 */
#define DT_LATE_MS 180

/* Room for more iovecs than the kernel takes (IOV_MAX, 1024). */
#define DT_IOV_MANY 1026

/* Descriptor numbers the model looks at, and where aliases go. */
#define DT_FD_LIMIT 128
#define DT_FD_ALIASES 64
/* Descriptors listed: the library's log file goes at 900 and above. */
#define DT_FD_SCAN 1024

/* End E of H's descriptor, or now and then its alias. */
extern int dt_end_fd (struct dt_world *w, const struct dt_handle *h, int e);

/* ops-recv.c */
extern bool dt_wait_readable (struct dt_world *w, int fd, size_t want);
/* ops-send.c: before the other end of H reads or goes away, end E
 * lets go of what it may hold (design.c, rules 3 and 4).
 */
extern void dt_settle_sender (struct dt_world *w, struct dt_handle *h, int e);

extern void dt_op_send (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_send_bad (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_sendfile (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_send_nothing (struct dt_world *w, struct dt_handle *h,
                                int e);
extern void dt_op_drain (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_recv (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_sockopt (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_peer_gone (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_close (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_dup (struct dt_world *w, struct dt_handle *h, int e);
extern void dt_op_fds (struct dt_world *w);

/* procs.c */
extern void dt_op_fork (struct dt_world *w);
extern void dt_op_vfork_exec (struct dt_world *w);
extern void dt_op_thread (struct dt_world *w);

/* One operation on a handle, as the sequence (or a child) draws it. */
extern void dt_op_on_handle (struct dt_world *w, bool in_child);

/* Count SIGPIPEs from now on, for W's records. */
extern void dt_ops_init (struct dt_world *w);

#endif /* SOCKBOOST_DIFFTEST_OPS_H */
