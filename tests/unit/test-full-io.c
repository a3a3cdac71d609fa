/* SPDX-License-Identifier: MIT */
/* Unit tests for the whole-buffer I/O loops, with partial transfers forced
 * by a peer that writes a few bytes at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "full-io.h"

#define MESSAGE_SIZE 100000

static uint8_t message[MESSAGE_SIZE];

/* Send MESSAGE in 7-byte write()s, then close: every read is partial. */
static void *
trickle (void *arg)
{
  int fd = *(int *) arg;
  size_t done;

  for (done = 0; done < MESSAGE_SIZE; done += 7)
    if (write (fd, message + done,
               MESSAGE_SIZE - done < 7 ? MESSAGE_SIZE - done : 7) == -1)
      break;
  close (fd);
  return NULL;
}

static void
test_read_full_partial (void)
{
  uint8_t *got = malloc (MESSAGE_SIZE);
  int sv[2], r, eof_errno, short_errno;
  pthread_t writer;

  TAP_OK (got && socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == 0,
          "set up a socketpair");
  pthread_create (&writer, NULL, trickle, &sv[1]);
  r = sb_read_full (sv[0], got, MESSAGE_SIZE);
  TAP_OK (r == 0 && memcmp (got, message, MESSAGE_SIZE) == 0,
          "sb_read_full assembles a message sent 7 bytes at a time");
  pthread_join (writer, NULL);
  r = sb_read_full (sv[0], got, 16);
  eof_errno = errno;
  TAP_OK (r == -1 && eof_errno == ENODATA,
          "EOF before any byte sets ENODATA");
  close (sv[0]);

  TAP_OK (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) == 0, "a second socketpair");
  TAP_OK (write (sv[1], message, 10) == 10, "peer sends 10 bytes, then closes");
  close (sv[1]);
  r = sb_read_full (sv[0], got, 16);
  short_errno = errno;
  TAP_OK (r == -1 && short_errno == ECONNRESET,
          "EOF inside a message sets ECONNRESET");
  close (sv[0]);
  free (got);
}

static void
test_pread_pwrite (void)
{
  char path[] = "/tmp/sockboost-test-full-io-XXXXXX";
  uint8_t *got = malloc (MESSAGE_SIZE);
  int fd = mkstemp (path), r;

  TAP_OK (fd >= 0 && got, "create a temporary file");
  unlink (path);
  TAP_OK (sb_pwrite_full (fd, message, MESSAGE_SIZE, 4096) == 0,
          "sb_pwrite_full writes at an offset");
  TAP_OK (sb_pread_full (fd, got, MESSAGE_SIZE, 4096) == 0
          && memcmp (got, message, MESSAGE_SIZE) == 0,
          "sb_pread_full reads it back");
  r = sb_pread_full (fd, got, 100, 4096 + MESSAGE_SIZE - 50);
  TAP_OK (r == -1 && errno == ENODATA,
          "sb_pread_full past the end of the file sets ENODATA");
  TAP_OK (sb_pwrite_full (-1, message, 1, 0) == -1 && errno == EBADF,
          "sb_pwrite_full reports the write's errno");
  close (fd);
  free (got);
}

int
main (void)
{
  size_t i;

  for (i = 0; i < MESSAGE_SIZE; i++)
    message[i] = (uint8_t) (i * 131 + 7);
  test_read_full_partial ();
  test_pread_pwrite ();
  return tap_done ();
}
