/* SPDX-License-Identifier: MIT */
/* Whole-buffer I/O loops: the place partial reads and writes are handled. */
#ifndef SOCKBOOST_FULL_IO_H
#define SOCKBOOST_FULL_IO_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Read exactly LEN bytes.  Returns 0 on success; -1 with errno set on
 * error; -1 with errno ECONNRESET if the peer closed first (a clean EOF
 * before any byte of this buffer sets errno ENODATA instead, so callers
 * can tell a disconnect between messages from one inside a message).
 * EINTR is retried.
 */
extern int sb_read_full (int fd, void *buf, size_t len);

/* pread/pwrite exactly LEN bytes at OFFSET.  Return 0, or -1 with errno
 * set; pread reaching end of file first sets errno ENODATA.  EINTR is
 * retried.
 */
extern int sb_pread_full (int fd, void *buf, size_t len, off_t offset);
extern int sb_pwrite_full (int fd, const void *buf, size_t len, off_t offset);

/* Write exactly LEN bytes with send(MSG_NOSIGNAL | FLAGS) on sockets, or
 * write(2) when FD is not a socket.  Returns 0 or -1 with errno set.
 */
extern int sb_write_full (int fd, const void *buf, size_t len, int flags);

/* Write all of IOV (modified in place as it is consumed). */
extern int sb_writev_full (int fd, struct iovec *iov, int iovcnt, int flags);

#endif /* SOCKBOOST_FULL_IO_H */
