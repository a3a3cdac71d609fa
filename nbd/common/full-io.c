/* SPDX-License-Identifier: MIT */
/* Whole-buffer I/O loops. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "full-io.h"

int
sb_read_full (int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t done = 0;

  while (done < len) {
    ssize_t r = read (fd, p + done, len - done);
    if (r == -1) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (r == 0) {
      errno = done == 0 ? ENODATA : ECONNRESET;
      return -1;
    }
    done += (size_t) r;
  }
  return 0;
}

int
sb_pread_full (int fd, void *buf, size_t len, off_t offset)
{
  char *p = buf;
  size_t done = 0;

  while (done < len) {
    ssize_t r = pread (fd, p + done, len - done, offset + (off_t) done);
    if (r == -1) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (r == 0) {
      errno = ENODATA;
      return -1;
    }
    done += (size_t) r;
  }
  return 0;
}

int
sb_pwrite_full (int fd, const void *buf, size_t len, off_t offset)
{
  const char *p = buf;
  size_t done = 0;

  while (done < len) {
    ssize_t r = pwrite (fd, p + done, len - done, offset + (off_t) done);
    if (r == -1) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    done += (size_t) r;
  }
  return 0;
}

int
sb_write_full (int fd, const void *buf, size_t len, int flags)
{
  /* iovec has no const member; the buffer is only read. */
  struct iovec iov = { .iov_base = (void *) (uintptr_t) buf, .iov_len = len };

  return sb_writev_full (fd, &iov, 1, flags);
}

/* One sendmsg, falling back to writev for fds that are not sockets. */
static ssize_t
send_some (int fd, struct iovec *iov, int iovcnt, int flags)
{
  struct msghdr msg = { .msg_iov = iov,
                        .msg_iovlen = (size_t) iovcnt };
  ssize_t r = sendmsg (fd, &msg, MSG_NOSIGNAL | flags);

  if (r == -1 && errno == ENOTSOCK)
    r = writev (fd, iov, iovcnt);
  return r;
}

int
sb_writev_full (int fd, struct iovec *iov, int iovcnt, int flags)
{
  while (iovcnt > 0) {
    ssize_t r = send_some (fd, iov, iovcnt, flags);
    if (r == -1) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    while (iovcnt > 0 && (size_t) r >= iov->iov_len) {
      r -= (ssize_t) iov->iov_len;
      iov++;
      iovcnt--;
    }
    if (iovcnt > 0) {
      iov->iov_base = (char *) iov->iov_base + r;
      iov->iov_len -= (size_t) r;
    }
  }
  return 0;
}
