/* SPDX-License-Identifier: MIT */
/* Unit tests for host mode's filter: the lists of --programs and
 * --ports, the kernel's LPM keys they become, and their one-line text.
 */
#include <string.h>

#include "tap.h"
#include "escape.h"
#include "filter.h"
#include "nbd-programs.h"

/* The default programs as a --programs list (common/nbd-programs.c). */
static char default_list[1024];

static void
expect_programs (const char *list, const char *text)
{
  struct sb_host_filter_spec f;
  char why[256] = "", got[1024] = "";
  int r = sb_host_parse_programs (list, &f, why, sizeof why);

  if (r == 0) {
    sb_host_filter_sort (&f);
    sb_host_filter_text (&f, got, sizeof got);
  }
  TAP_OK (r == 0 && strcmp (got, text) == 0, "programs \"%s\": \"%s\" (got "
          "\"%s\"%s%s)", list, text, got, why[0] ? ", " : "", why);
}

static void
expect_bad (int ports, const char *list, const char *why_expected)
{
  struct sb_host_filter_spec f;
  char why[256] = "", shown[SB_ESCAPE_SIZE (64)];
  int r = ports ? sb_host_parse_ports (list, &f, why, sizeof why)
    : sb_host_parse_programs (list, &f, why, sizeof why);

  TAP_OK (r == -1 && strcmp (why, why_expected) == 0 && tap_printable (why),
          "%s \"%s\" refused: \"%s\" (got \"%s\")", ports ? "ports" : "programs",
          sb_escape_str (shown, sizeof shown, list), why_expected, why);
}

/* The kernel's LPM trie matches a key of the whole comm against the
 * stored prefixes; the same rule here, on bytes.
 */
static int
matches (const char *list, const char *comm)
{
  struct sb_host_filter_spec f;
  struct sb_host_name_key key;
  char why[256], name[SB_HOST_COMM_LEN] = "";

  strncpy (name, comm, sizeof name - 1);
  if (sb_host_parse_programs (list, &f, why, sizeof why) == -1)
    return -1;
  for (int i = 0; i < f.nprograms; i++) {
    sb_host_program_key (&f.programs[i], &key);
    if (memcmp (key.name, name, key.prefixlen / 8) == 0)
      return 1;
  }
  return 0;
}

static void
test_matching (void)
{
  TAP_OK (matches (default_list, "qemu-system-x86") == 1,
          "qemu-system-x86_64, as the kernel names it, is an NBD program");
  TAP_OK (matches (default_list, "qemu-storage-da") == 1,
          "qemu-storage-daemon, cut at 15 bytes, is an NBD program");
  TAP_OK (matches (default_list, "sbnbd-server") == 1,
          "sbnbd-* matches sbnbd-server");
  TAP_OK (matches (default_list, "qemu-nbd") == 1,
          "qemu-nbd is an NBD program");
  TAP_OK (matches (default_list, "qemu-nbdx") == 0,
          "an exact name does not match a longer one (qemu-nbdx)");
  TAP_OK (matches (default_list, "qemu-im") == 0,
          "an exact name does not match a shorter one (qemu-im)");
  TAP_OK (matches (default_list, "python3") == 0,
          "python3 is not an NBD program");
  TAP_OK (matches (default_list, "nbd") == 0,
          "a prefix of a name is not the name (nbd)");
}

static void
test_keys_round_trip (void)
{
  struct sb_host_filter_spec f;
  struct sb_host_program back;
  struct sb_host_name_key key;
  char why[256];
  int same = 1;

  char list[sizeof default_list + 32];

  snprintf (list, sizeof list, "%s,x,abcdefghijklmno*", default_list);
  sb_host_parse_programs (list, &f, why, sizeof why);
  for (int i = 0; i < f.nprograms; i++) {
    sb_host_program_key (&f.programs[i], &key);
    same &= sb_host_program_from_key (&key, &back) == 0 &&
            strcmp (back.name, f.programs[i].name) == 0 &&
            back.prefix == f.programs[i].prefix;
  }
  TAP_OK (same && f.nprograms == 13,
          "every program comes back from its kernel key (%d)", f.nprograms);
  key = (struct sb_host_name_key) { .prefixlen = 12 };
  TAP_OK (sb_host_program_from_key (&key, &back) == -1,
          "a key that is not whole bytes is refused");
}

static void
test_first_bytes (void)
{
  struct sb_host_filter_spec f;
  uint64_t set[4];
  char why[256];
  int bits = 0;

  sb_host_parse_programs (default_list, &f, why, sizeof why);
  sb_host_first_bytes (&f, set);
  for (int b = 0; b < 256; b++)
    bits += (set[b >> 6] >> (b & 63)) & 1;
  TAP_OK (bits == 3 && (set['q' >> 6] >> ('q' & 63) & 1) &&
          (set['n' >> 6] >> ('n' & 63) & 1) && (set['s' >> 6] >> ('s' & 63) & 1),
          "the default programs start with q, n or s: %d bits", bits);
}

static void
test_equal (void)
{
  struct sb_host_filter_spec a, b;
  char why[256];

  sb_host_parse_programs ("qemu-nbd,nbdkit,qemu-img", &a, why, sizeof why);
  sb_host_parse_programs ("qemu-img,qemu-nbd,nbdkit,qemu-nbd", &b, why, sizeof why);
  sb_host_filter_sort (&a);
  sb_host_filter_sort (&b);
  TAP_OK (sb_host_filter_equal (&a, &b), "order and duplicates do not matter");
  sb_host_parse_programs ("qemu-nbd*,nbdkit,qemu-img", &b, why, sizeof why);
  sb_host_filter_sort (&b);
  TAP_OK (!sb_host_filter_equal (&a, &b), "a prefix is not the exact name");
  sb_host_parse_ports ("10809", &b, why, sizeof why);
  TAP_OK (!sb_host_filter_equal (&a, &b), "ports are not programs");
}

/* The default filter is the table's programs, and the table's list is
 * whole or not given at all.
 */
static void
test_default (void)
{
  struct sb_host_filter_spec listed, f;
  char why[256] = "", small[sizeof default_list];
  size_t len = strlen (default_list);

  TAP_OK (sb_host_default_filter (&f, why, sizeof why) == 0 &&
          sb_host_parse_programs (default_list, &listed, why, sizeof why) == 0 &&
          (sb_host_filter_sort (&f), sb_host_filter_sort (&listed),
           sb_host_filter_equal (&f, &listed)),
          "the default filter takes the NBD programs' list (%s)", why);
  TAP_OK (sb_nbd_program_list (small, len) == NULL &&
          sb_nbd_program_list (small, len + 1) == small &&
          strcmp (small, default_list) == 0 &&
          sb_nbd_program_list (small, 0) == NULL,
          "the list is given whole or not at all (%zu bytes)", len);
}

int
main (void)
{
  struct sb_host_filter_spec f;
  char why[256], text[256];

  TAP_OK (sb_nbd_program_list (default_list, sizeof default_list) != NULL,
          "the NBD programs as a list: %s", default_list);
  expect_programs ("qemu-nbd", "programs qemu-nbd");
  expect_programs ("qemu-system-*,qemu-nbd,qemu-system-*",
                   "programs qemu-nbd, qemu-system-*");
  expect_programs ("qemu-storage-daemon", "programs qemu-storage-da");
  test_default ();
  expect_programs (default_list, "programs nbd-client, "
                   "nbd-server, nbdcopy, nbdinfo, nbdkit, qemu-img, qemu-io, "
                   "qemu-nbd, qemu-storage-da, qemu-system-*, sbnbd-*");
  expect_bad (0, "", "an empty program name");
  expect_bad (0, "qemu-nbd,", "an empty program name");
  expect_bad (0, "*", "'*' alone names every program: use --all");
  expect_bad (0, "qemu*nbd", "'qemu*nbd' is not a program name (printable, "
              "no blanks, '*' only at the end)");
  expect_bad (0, "a b", "'a b' is not a program name (printable, no "
              "blanks, '*' only at the end)");
  expect_bad (0, "a\nb", "'a\\nb' is not a program name (printable, no "
              "blanks, '*' only at the end)");
  expect_bad (1, "0", "'0' is not a port (1 to 65535)");
  expect_bad (1, "65536", "'65536' is not a port (1 to 65535)");
  expect_bad (1, "10809,", "'' is not a port (1 to 65535)");
  expect_bad (1, "-1", "'-1' is not a port (1 to 65535)");
  expect_bad (1, "+1", "'+1' is not a port (1 to 65535)");
  expect_bad (1, "10809x", "'10809x' is not a port (1 to 65535)");
  expect_bad (1, "18446744073709561617", "'18446744073709561617' is not a "
              "port (1 to 65535)");
  TAP_OK (sb_host_parse_ports ("10810,10809,10810", &f, why, sizeof why) == 0 &&
          (sb_host_filter_sort (&f),
           strcmp (sb_host_filter_text (&f, text, sizeof text),
                   "ports 10809, 10810") == 0),
          "ports are sorted, duplicates dropped (%s)", text);
  test_matching ();
  test_keys_round_trip ();
  test_first_bytes ();
  test_equal ();
  return tap_done ();
}
