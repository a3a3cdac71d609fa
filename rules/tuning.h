/* SPDX-License-Identifier: MIT */
/* What the tuning does, apart from any process's state: which sockets it
 * touches, how a send buffer is raised, and what the kernel clips it at.
 * The library applies these to a program's sockets at connect and
 * accept; sb-attach to another process's; sb-config and a dry run of
 * sb-attach to a model of the kernel (sndbuf-model.h).
 */
#ifndef SOCKBOOST_TUNING_H
#define SOCKBOOST_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "settings.h"

/* The kernel doubles a SO_SNDBUF request into an int, so the most it
 * grants is twice this (1G - 1); SB_SNDBUF_MAX (1G) is requested as this,
 * which is what the kernel would make of 1G too.
 */
#define SB_SNDBUF_REQUEST_MAX (0x7fffffff / 2)

/* The sockets the library tunes. */
enum sb_socket_kind { SB_SOCKET_OTHER, SB_SOCKET_UNIX, SB_SOCKET_TCP };

/* The kind of a socket of DOMAIN, TYPE, PROTOCOL (SOCK_NONBLOCK and
 * SOCK_CLOEXEC in TYPE are ignored): unix stream, TCP, or other.
 */
extern enum sb_socket_kind sb_socket_kind (int domain, int type,
                                           int protocol);

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

/* The warning printed once when net.core.wmem_max clips the request of
 * C, with the fix.  Returns BUF.
 */
extern const char *sb_sndbuf_clip_warning_text (const struct sb_config *c,
                                                char *buf, size_t size);

/* The file functions sb_wmem_max reads with: the library passes the real
 * read and close, which its own hooks would otherwise see.
 */
struct sb_file_calls {
  ssize_t (*read) (int fd, void *buf, size_t len);
  int (*close) (int fd);
};

/* net.core.wmem_max, the most SO_SNDBUF grants without forcing, read
 * through CALLS (NULL: libc's read and close); -1 if unreadable.
 */
extern long sb_wmem_max (const struct sb_file_calls *calls);

#endif /* SOCKBOOST_TUNING_H */
