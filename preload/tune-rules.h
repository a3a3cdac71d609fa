/* SPDX-License-Identifier: MIT */
/* What the tuning does, apart from the library's state: which sockets it
 * touches and how a send buffer is raised.  Shared with sockboost attach,
 * which applies the same rules to another process's sockets.
 */
#ifndef SOCKBOOST_TUNE_RULES_H
#define SOCKBOOST_TUNE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* SB_FD_UNIX, SB_FD_TCP or 0 for a socket of DOMAIN, TYPE, PROTOCOL
 * (SOCK_NONBLOCK and SOCK_CLOEXEC in TYPE are ignored).
 */
extern uint32_t sb_tune_kind (int domain, int type, int protocol);

/* Reads the int socket option LEVEL/NAME of FD into *VALUE; 0 or -1
 * (errno).
 */
extern int sb_get_int (int fd, int level, int name, int *value);

/* Sets the int socket option LEVEL/NAME of FD to VALUE; 0 or -1 (errno). */
typedef int sb_set_int_fn (int fd, int level, int name, int value);

/* The request for C->sndbuf (not 0): the setting itself, or for 1G
 * SB_SNDBUF_REQUEST_MAX, the most the kernel can double into an int.
 */
extern long long sb_sndbuf_request (const struct sb_config *c);

/* Raise the send buffer of FD, which getsockopt reports as BEFORE, to
 * sb_sndbuf_request (C) (a request the kernel doubles), never lowering it:
 * SO_SNDBUFFORCE first when C->force asks for it (always with "on", with
 * "auto" when net.core.wmem_max would clip the request), SO_SNDBUF when
 * that is not tried or is refused.  Options are set through SET.  Returns
 * the option that was set, or -1 when the buffer is left alone or SET
 * failed.  *CLIPPED tells whether wmem_max is below the request and
 * forcing did not lift it.
 */
extern int sb_sndbuf_raise (int fd, int before, const struct sb_config *c,
                            sb_set_int_fn *set, bool *clipped);

/* The warning the library prints once when net.core.wmem_max clips the
 * request of C, with the fix.  Pure; returns BUF.
 */
extern const char *sb_sndbuf_clip_warning_text (const struct sb_config *c,
                                                char *buf, size_t size);

#endif /* SOCKBOOST_TUNE_RULES_H */
