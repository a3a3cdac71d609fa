/* SPDX-License-Identifier: MIT */
/* Conformance checks of an NBD server through libnbd, printed as TAP.
 *
 *   libnbd-conformance URI          URI: a writable memory export of at
 *                                   least 64 MiB, CAN_MULTI_CONN, FAST_ZERO
 *   libnbd-conformance --read-only URI
 *
 * Exits 0 when every check passed, 1 otherwise, 2 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <libnbd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024 * 1024)
#define MAX_PAYLOAD (32 * MiB)

static int tests, failures;
static const char *uri;

static void __attribute__((format (printf, 2, 3)))
check (bool ok, const char *fmt, ...)
{
  va_list ap;

  printf ("%sok %d - ", ok ? "" : "not ", ++tests);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  putchar ('\n');
  if (!ok) {
    failures++;
    printf ("# libnbd: %s\n", nbd_get_error () ? nbd_get_error () : "-");
  }
  fflush (stdout);
}

static void __attribute__((noreturn))
die (const char *what)
{
  fprintf (stderr, "libnbd-conformance: %s: %s\n", what,
           nbd_get_error () ? nbd_get_error () : "unknown error");
  exit (1);
}

static struct nbd_handle *
handle (void)
{
  struct nbd_handle *h = nbd_create ();

  if (h == NULL)
    die ("nbd_create");
  return h;
}

static struct nbd_handle *
connect_with (bool structured)
{
  struct nbd_handle *h = handle ();

  if (nbd_set_request_structured_replies (h, structured) == -1
      || nbd_connect_uri (h, uri) == -1)
    die ("connecting");
  /* Let requests the server must refuse reach it.  Only the checks are
   * turned off: newer libnbd's other bits (adding PAYLOAD_LEN to writes
   * over extended headers, without which a write is a protocol error)
   * stay as they are.
   */
  if (nbd_set_strict_mode (h, nbd_get_strict_mode (h)
                           & ~(uint32_t) (LIBNBD_STRICT_COMMANDS
                                          | LIBNBD_STRICT_FLAGS
                                          | LIBNBD_STRICT_BOUNDS
                                          | LIBNBD_STRICT_ZERO_SIZE
                                          | LIBNBD_STRICT_ALIGN)) == -1)
    die ("nbd_set_strict_mode");
  return h;
}

static void
fill (uint8_t *buf, size_t len, uint8_t seed)
{
  size_t i;

  for (i = 0; i < len; i++)
    buf[i] = (uint8_t) (seed + i * 7 + (i >> 12));
}

static bool
all_zero (const uint8_t *buf, size_t len)
{
  return len == 0 || (buf[0] == 0 && memcmp (buf, buf + 1, len - 1) == 0);
}

/* The call failed with errno WANT, and the connection still works. */
static void
expect_errno (struct nbd_handle *h, int r, int want, const char *what)
{
  uint8_t b[512];
  int got = nbd_get_errno ();

  check (r == -1 && got == want, "%s fails with %s (got %s)", what,
         strerror (want), r == -1 ? strerror (got) : "success");
  check (nbd_pread (h, b, sizeof b, 0, 0) == 0,
         "connection still usable after: %s", what);
}

/* A write payload over the maximum: the server reads it and refuses it
 * (EINVAL), or libnbd 1.18 and later refuse it before sending (ERANGE,
 * even with the checks off: over extended headers a server would hang
 * up on it).
 */
static void
expect_oversized (struct nbd_handle *h, int r, const char *what)
{
  uint8_t b[512];
  int got = nbd_get_errno ();

  check (r == -1 && (got == EINVAL || got == ERANGE),
         "%s fails with EINVAL or ERANGE (got %s)", what,
         r == -1 ? strerror (got) : "success");
  check (nbd_pread (h, b, sizeof b, 0, 0) == 0,
         "connection still usable after: %s", what);
}

/* DF (one data chunk per read) exists only with structured replies. */
static void
check_flags (struct nbd_handle *h, const char *mode, bool structured)
{
  check (nbd_is_read_only (h) == 0, "%s: not read-only", mode);
  check (nbd_can_flush (h) == 1, "%s: can_flush", mode);
  check (nbd_can_fua (h) == 1, "%s: can_fua", mode);
  check (nbd_can_trim (h) == 1, "%s: can_trim", mode);
  check (nbd_can_zero (h) == 1, "%s: can_zero", mode);
  check (nbd_can_fast_zero (h) == 1, "%s: can_fast_zero", mode);
  check (nbd_can_multi_conn (h) == 1, "%s: can_multi_conn", mode);
  check (nbd_can_cache (h) == 0, "%s: no cache", mode);
  check (nbd_can_df (h) == structured, "%s: df %s", mode,
         structured ? "offered" : "not offered");
  check (nbd_get_block_size (h, LIBNBD_SIZE_MINIMUM) == 1
         && nbd_get_block_size (h, LIBNBD_SIZE_PREFERRED) == 4096
         && nbd_get_block_size (h, LIBNBD_SIZE_MAXIMUM) == MAX_PAYLOAD,
         "%s: block sizes 1/4096/32M", mode);
}

static void
check_data (struct nbd_handle *h, uint8_t *w, uint8_t *r, const char *mode)
{
  fill (w, MiB, 0x11);
  check (nbd_pwrite (h, w, MiB, 3 * MiB + 5, 0) == 0
         && nbd_pread (h, r, MiB, 3 * MiB + 5, 0) == 0
         && memcmp (w, r, MiB) == 0, "%s: write then read 1 MiB back", mode);
  fill (w, 4096, 0x22);
  check (nbd_pwrite (h, w, 4096, 0, LIBNBD_CMD_FLAG_FUA) == 0
         && nbd_flush (h, 0) == 0 && nbd_pread (h, r, 4096, 0, 0) == 0
         && memcmp (w, r, 4096) == 0, "%s: FUA write, flush, read back", mode);
  check (nbd_trim (h, MiB, 3 * MiB + 5, 0) == 0
         && nbd_pread (h, r, MiB, 3 * MiB + 5, 0) == 0
         && all_zero (r, MiB),
         "%s: trim of a memory export reads back as zero", mode);
  fill (w, MiB, 0x33);
  check (nbd_pwrite (h, w, MiB, 8 * MiB, 0) == 0
         && nbd_zero (h, 1000, 8 * MiB + 100, 0) == 0
         && nbd_pread (h, r, MiB, 8 * MiB, 0) == 0
         && memcmp (r, w, 100) == 0 && all_zero (r + 100, 1000)
         && memcmp (r + 1100, w + 1100, MiB - 1100) == 0,
         "%s: write_zeroes zeroes exactly its range", mode);
  check (nbd_zero (h, 12345, 9 * MiB, LIBNBD_CMD_FLAG_FAST_ZERO) == 0,
         "%s: FAST_ZERO succeeds on memory", mode);
  check (nbd_zero (h, 4096, 9 * MiB, LIBNBD_CMD_FLAG_NO_HOLE
                   | LIBNBD_CMD_FLAG_FUA) == 0,
         "%s: write_zeroes with NO_HOLE and FUA", mode);
}

static void
check_limits (struct nbd_handle *h, uint8_t *w, uint8_t *r, const char *mode,
              bool structured)
{
  int64_t size = nbd_get_size (h);
  char what[128];

  fill (w, MAX_PAYLOAD, 0x44);
  check (nbd_pwrite (h, w, MAX_PAYLOAD, 0, 0) == 0
         && nbd_pread (h, r, MAX_PAYLOAD, 0, 0) == 0
         && memcmp (w, r, MAX_PAYLOAD) == 0,
         "%s: 32 MiB write and read (the maximum)", mode);
  check (nbd_pread (h, r, 1, (uint64_t) size - 1, 0) == 0,
         "%s: read of the last byte", mode);
#define EXPECT(call, err, text) \
  (snprintf (what, sizeof what, "%s: %s", mode, text), \
   expect_errno (h, call, err, what))
  EXPECT (nbd_pread (h, r, 512, (uint64_t) size - 511, 0), EINVAL,
          "read crossing the end");
  EXPECT (nbd_pread (h, r, 512, UINT64_MAX - 100, 0), EINVAL,
          "read at an offset that overflows");
  EXPECT (nbd_pwrite (h, w, 512, (uint64_t) size, 0), ENOSPC,
          "write past the end");
  EXPECT (nbd_zero (h, 512, (uint64_t) size - 1, 0), ENOSPC,
          "write_zeroes past the end");
  EXPECT (nbd_trim (h, 512, (uint64_t) size, 0), EINVAL, "trim past the end");
  EXPECT (nbd_pread (h, r, MAX_PAYLOAD + 1, 0, 0), EINVAL,
          "read of 32 MiB + 1");
  snprintf (what, sizeof what, "%s: write of 32 MiB + 1", mode);
  expect_oversized (h, nbd_pwrite (h, w, MAX_PAYLOAD + 1, 0, 0), what);
  if (structured)
    check (nbd_pread (h, r, 512, 0, LIBNBD_CMD_FLAG_DF) == 0
           && memcmp (r, w, 512) == 0, "%s: read with DF", mode);
  else
    EXPECT (nbd_pread (h, r, 512, 0, LIBNBD_CMD_FLAG_DF), EINVAL,
            "read with the unadvertised DF flag");
  EXPECT (nbd_pwrite (h, w, 512, 0, LIBNBD_CMD_FLAG_NO_HOLE), EINVAL,
          "write with a flag that is not a write's");
#undef EXPECT
}

/* Many requests in flight on one connection, answered in order. */
static void
check_pipelining (struct nbd_handle *h, uint8_t *r, const char *mode)
{
  enum { N = 16, LEN = 65536 };
  int64_t cookies[N];
  bool finished[N] = { false }, ok = true;
  int i, done = 0;

  for (i = 0; i < N; i++)
    cookies[i] = nbd_aio_pread (h, r + i * LEN, LEN, (uint64_t) i * LEN,
                                NBD_NULL_COMPLETION, 0);
  while (done < N) {
    /* A command is retired by the first call that reports it. */
    for (i = 0; i < N; i++) {
      int c = finished[i] ? 0 : nbd_aio_command_completed (h, (uint64_t) cookies[i]);
      if (c != 0) {
        ok = ok && c == 1;
        finished[i] = true;
        done++;
      }
    }
    if (done < N && nbd_poll (h, -1) == -1)
      die ("nbd_poll");
  }
  check (ok, "%s: %d pipelined reads complete", mode, N);
}

static void
run_mode (bool structured, uint8_t *w, uint8_t *r)
{
  const char *mode = structured ? "structured" : "simple";
  struct nbd_handle *h = connect_with (structured);

  check (nbd_get_structured_replies_negotiated (h) == structured,
         "%s: structured replies negotiated: %s", mode,
         structured ? "yes" : "no");
  check (nbd_get_size (h) >= 64 * MiB, "%s: size at least 64 MiB", mode);
  check_flags (h, mode, structured);
  check_data (h, w, r, mode);
  check_limits (h, w, r, mode, structured);
  check_pipelining (h, r, mode);
  check (nbd_shutdown (h, 0) == 0, "%s: clean disconnect", mode);
  nbd_close (h);
}

static int
count_export (void *opaque, const char *name, const char *desc)
{
  (void) desc;
  *(int *) opaque += 1;
  printf ("# listed export '%s'\n", name);
  return 0;
}

static void
check_options (void)
{
  struct nbd_handle *h = handle ();
  int listed = 0;

  if (nbd_set_opt_mode (h, true) == -1 || nbd_connect_uri (h, uri) == -1)
    die ("connecting in option mode");
  check (nbd_opt_list (h, (nbd_list_callback) { .callback = count_export,
                                                .user_data = &listed }) == 1
         && listed == 1, "NBD_OPT_LIST lists one export");
  check (nbd_set_export_name (h, "no-such-export") == 0
         && nbd_opt_info (h) == -1, "NBD_OPT_INFO of an unknown export fails");
  check (nbd_set_export_name (h, "") == 0 && nbd_opt_info (h) == 0
         && nbd_get_size (h) >= 64 * MiB,
         "NBD_OPT_INFO of the default export (empty name)");
  check (nbd_opt_go (h) == 0 && nbd_aio_is_ready (h),
         "NBD_OPT_GO after INFO and a failed INFO");
  nbd_close (h);

  h = handle ();
  if (nbd_set_opt_mode (h, true) == -1 || nbd_connect_uri (h, uri) == -1)
    die ("connecting in option mode");
  check (nbd_opt_abort (h) == 0, "NBD_OPT_ABORT");
  nbd_close (h);
}

/* Without fixed newstyle libnbd can only use NBD_OPT_EXPORT_NAME; without
 * NO_ZEROES the server must send its 124 zero bytes.
 */
static void
check_export_name_option (uint8_t *r)
{
  struct nbd_handle *h = handle ();

  if (nbd_set_handshake_flags (h, 0) == -1)
    die ("nbd_set_handshake_flags");
  check (nbd_connect_uri (h, uri) == 0 && nbd_get_size (h) >= 64 * MiB
         && nbd_pread (h, r, 4096, 0, 0) == 0,
         "NBD_OPT_EXPORT_NAME with the 124 zero bytes, then a read");
  nbd_close (h);
}

static void
check_read_only (void)
{
  struct nbd_handle *h = connect_with (true);
  uint8_t b[4096] = { 1 };

  check (nbd_is_read_only (h) == 1, "read-only flag set");
  check (nbd_can_multi_conn (h) == 1, "read-only export: can_multi_conn");
  expect_errno (h, nbd_pwrite (h, b, sizeof b, 0, 0), EPERM, "write");
  expect_errno (h, nbd_trim (h, 4096, 0, 0), EPERM, "trim");
  expect_errno (h, nbd_zero (h, 4096, 0, 0), EPERM, "write_zeroes");
  check (nbd_flush (h, 0) == 0, "flush of a read-only export succeeds");
  nbd_close (h);
}

int
main (int argc, char **argv)
{
  bool read_only = argc == 3 && strcmp (argv[1], "--read-only") == 0;
  uint8_t *w, *r;

  if (argc != 2 && !read_only) {
    fprintf (stderr, "usage: libnbd-conformance [--read-only] URI\n");
    return 2;
  }
  uri = argv[argc - 1];
  if (read_only) {
    check_read_only ();
  } else {
    w = malloc (MAX_PAYLOAD + 1);
    r = malloc (MAX_PAYLOAD + 1);
    if (w == NULL || r == NULL) {
      fprintf (stderr, "libnbd-conformance: malloc: %s\n", strerror (errno));
      return 1;
    }
    run_mode (true, w, r);
    run_mode (false, w, r);
    check_options ();
    check_export_name_option (r);
    free (w);
    free (r);
  }
  printf ("1..%d\n", tests);
  return failures > 0;
}
