/* SPDX-License-Identifier: MIT */
/* Host mode's filter: parsing, comparing and printing (filter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "escape.h"
#include "filter.h"
#include "nbd-programs.h"

/* Longest item of a list worth reading: a name the kernel cuts at 15
 * bytes may be given whole (qemu-storage-daemon), but not a page of it.
 */
#define ITEM_MAX 64

/* Copy the next comma-separated item of *LIST into ITEM (ITEM_MAX + 1
 * bytes) and advance *LIST past it; *MORE tells whether a comma ended
 * it.  Return its length, or -1 when it is longer than ITEM_MAX.
 */
static int
next_item (const char **list, char item[ITEM_MAX + 1], int *more)
{
  const char *end = strchr (*list, ',');
  size_t len = end ? (size_t) (end - *list) : strlen (*list);

  *more = end != NULL;
  if (len > ITEM_MAX)
    return -1;
  memcpy (item, *list, len);
  item[len] = '\0';
  *list += len + (size_t) *more;
  return (int) len;
}

/* Whether NAME may name a program: printable, no blank, no '*' but a
 * final one.
 */
static int
valid_name (const char *name, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char) name[i];
    if (c <= 0x20 || c >= 0x7f || (c == '*' && i != len - 1))
      return 0;
  }
  return 1;
}

static int
program_listed (const struct sb_host_filter_spec *f,
                const struct sb_host_program *p)
{
  for (int i = 0; i < f->nprograms; i++)
    if (f->programs[i].prefix == p->prefix &&
        strcmp (f->programs[i].name, p->name) == 0)
      return 1;
  return 0;
}

/* ITEM (LEN bytes) as a program, cut to what the kernel keeps. */
static int
parse_program (const char *item, size_t len, struct sb_host_program *p,
               char *why, size_t why_len)
{
  char shown[SB_ESCAPE_SIZE (ITEM_MAX)];

  if (len == 0) {
    snprintf (why, why_len, "an empty program name");
    return -1;
  }
  if (!valid_name (item, len)) {
    snprintf (why, why_len, "'%s' is not a program name (printable, no "
              "blanks, '*' only at the end)",
              sb_escape (shown, sizeof shown, item, len));
    return -1;
  }
  p->prefix = item[len - 1] == '*';
  len -= (size_t) p->prefix;
  if (len == 0) {
    snprintf (why, why_len, "'*' alone names every program: use --all");
    return -1;
  }
  if (len > SB_HOST_COMM_LEN - 1)
    len = SB_HOST_COMM_LEN - 1;
  memset (p->name, 0, sizeof p->name);
  memcpy (p->name, item, len);
  return 0;
}

int
sb_host_parse_programs (const char *list, struct sb_host_filter_spec *f,
                        char *why, size_t why_len)
{
  char item[ITEM_MAX + 1];
  struct sb_host_program p;
  int more;

  *f = (struct sb_host_filter_spec) { .kind = SB_HOST_FILTER_PROGRAMS };
  do {
    int len = next_item (&list, item, &more);
    if (len < 0) {
      snprintf (why, why_len, "a program name longer than %d bytes",
                ITEM_MAX);
      return -1;
    }
    if (parse_program (item, (size_t) len, &p, why, why_len) == -1)
      return -1;
    if (program_listed (f, &p))
      continue;
    if (f->nprograms == SB_HOST_MAX_PROGRAMS) {
      snprintf (why, why_len, "more than %d programs", SB_HOST_MAX_PROGRAMS);
      return -1;
    }
    f->programs[f->nprograms++] = p;
  } while (more);
  return 0;
}

int
sb_host_default_filter (struct sb_host_filter_spec *f, char *why,
                        size_t why_len)
{
  char list[SB_HOST_MAX_PROGRAMS * (ITEM_MAX + 1)];

  if (sb_nbd_program_list (list, sizeof list) == NULL) {
    snprintf (why, why_len, "the NBD programs do not fit in a filter");
    return -1;
  }
  return sb_host_parse_programs (list, f, why, why_len);
}

/* ITEM as a port: digits only, 1 to 65535, as any count is read. */
static int
parse_port (const char *item, uint16_t *port)
{
  char why[SB_ARG_WHY_SIZE];
  unsigned long v;

  if (sb_arg_count (item, 10, 1, 65535, &v, why, sizeof why) == -1)
    return -1;
  *port = (uint16_t) v;
  return 0;
}

int
sb_host_parse_ports (const char *list, struct sb_host_filter_spec *f,
                     char *why, size_t why_len)
{
  char item[ITEM_MAX + 1], shown[SB_ESCAPE_SIZE (ITEM_MAX)];
  uint16_t port;
  int more;

  *f = (struct sb_host_filter_spec) { .kind = SB_HOST_FILTER_PORTS };
  do {
    int len = next_item (&list, item, &more), seen = 0;
    if (len < 0 || parse_port (item, &port) == -1) {
      snprintf (why, why_len, "'%s' is not a port (1 to 65535)",
                len < 0 ? "..." : sb_escape_str (shown, sizeof shown, item));
      return -1;
    }
    for (int i = 0; i < f->nports; i++)
      seen |= f->ports[i] == port;
    if (seen)
      continue;
    if (f->nports == SB_HOST_MAX_PORTS) {
      snprintf (why, why_len, "more than %d ports", SB_HOST_MAX_PORTS);
      return -1;
    }
    f->ports[f->nports++] = port;
  } while (more);
  return 0;
}

void
sb_host_first_bytes (const struct sb_host_filter_spec *f, uint64_t set[4])
{
  memset (set, 0, 4 * sizeof set[0]);
  for (int i = 0; i < f->nprograms; i++) {
    unsigned char first = (unsigned char) f->programs[i].name[0];
    set[first >> 6] |= UINT64_C (1) << (first & 63);
  }
}

void
sb_host_program_key (const struct sb_host_program *p,
                     struct sb_host_name_key *key)
{
  size_t len = strnlen (p->name, SB_HOST_COMM_LEN - 1);

  memset (key, 0, sizeof *key);
  memcpy (key->name, p->name, len);
  /* An exact name matches through its NUL; a prefix does not need one. */
  key->prefixlen = (uint32_t) (len + !p->prefix) * 8;
}

int
sb_host_program_from_key (const struct sb_host_name_key *key,
                          struct sb_host_program *p)
{
  size_t bytes = key->prefixlen / 8, len;

  if (key->prefixlen % 8 != 0 || bytes == 0 || bytes > SB_HOST_COMM_LEN)
    return -1;
  len = strnlen (key->name, bytes);
  memset (p->name, 0, sizeof p->name);
  memcpy (p->name, key->name, len < SB_HOST_COMM_LEN ? len : SB_HOST_COMM_LEN - 1);
  p->prefix = len == bytes;
  return 0;
}

static int
compare_programs (const void *a, const void *b)
{
  const struct sb_host_program *x = a, *y = b;
  int c = strcmp (x->name, y->name);

  return c != 0 ? c : x->prefix - y->prefix;
}

static int
compare_ports (const void *a, const void *b)
{
  return (int) *(const uint16_t *) a - (int) *(const uint16_t *) b;
}

void
sb_host_filter_sort (struct sb_host_filter_spec *f)
{
  qsort (f->programs, (size_t) f->nprograms, sizeof f->programs[0],
         compare_programs);
  qsort (f->ports, (size_t) f->nports, sizeof f->ports[0], compare_ports);
}

int
sb_host_filter_equal (const struct sb_host_filter_spec *a,
                      const struct sb_host_filter_spec *b)
{
  if (a->kind != b->kind || a->nprograms != b->nprograms ||
      a->nports != b->nports)
    return 0;
  for (int i = 0; i < a->nprograms; i++)
    if (compare_programs (&a->programs[i], &b->programs[i]) != 0)
      return 0;
  return memcmp (a->ports, b->ports, (size_t) a->nports * sizeof a->ports[0]) == 0;
}

const char *
sb_host_program_text (const struct sb_host_program *p, char *buf, size_t size)
{
  char name[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN)];

  snprintf (buf, size, "%s%s", sb_escape_str (name, sizeof name, p->name),
            p->prefix ? "*" : "");
  return buf;
}

/* Append SEPARATOR and ITEM to BUF at *USED, cutting at SIZE. */
static void
append (char *buf, size_t size, size_t *used, const char *separator,
        const char *item)
{
  int n;

  if (*used >= size)
    return;
  n = snprintf (buf + *used, size - *used, "%s%s", separator, item);
  *used += n < 0 ? 0 : (size_t) n;
}

const char *
sb_host_filter_text (const struct sb_host_filter_spec *f, char *buf,
                     size_t size)
{
  char item[SB_ESCAPE_SIZE (SB_HOST_COMM_LEN) + 8];
  size_t used = 0;

  if (size == 0)
    return "";
  buf[0] = '\0';
  switch (f->kind) {
  case SB_HOST_FILTER_PROGRAMS:
    append (buf, size, &used, "", "programs");
    for (int i = 0; i < f->nprograms; i++)
      append (buf, size, &used, i == 0 ? " " : ", ",
              sb_host_program_text (&f->programs[i], item, sizeof item));
    break;
  case SB_HOST_FILTER_PORTS:
    append (buf, size, &used, "", "ports");
    for (int i = 0; i < f->nports; i++) {
      snprintf (item, sizeof item, "%u", f->ports[i]);
      append (buf, size, &used, i == 0 ? " " : ", ", item);
    }
    break;
  default:
    append (buf, size, &used, "", "all");
  }
  return buf;
}
