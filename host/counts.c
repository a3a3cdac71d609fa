/* SPDX-License-Identifier: MIT */
/* Host mode's counts from user space (counts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "counts.h"

void
sb_host_entry_of (const struct sb_host_filter_spec *f, int i,
                  struct sb_host_name_key *entry)
{
  memset (entry, 0, sizeof *entry);
  if (f->kind == SB_HOST_FILTER_PROGRAMS)
    sb_host_program_key (&f->programs[i], entry);
}

const char *
sb_host_entry_text (const struct sb_host_name_key *entry, char *buf,
                    size_t size)
{
  struct sb_host_program p;

  if (entry->prefixlen == 0)
    snprintf (buf, size, "any");
  else if (sb_host_program_from_key (entry, &p) == 0)
    sb_host_program_text (&p, buf, size);
  else
    snprintf (buf, size, "?");
  return buf;
}

static int
make_row (int fd, const struct sb_host_name_key *entry, uint32_t uid)
{
  struct sb_host_count_key key = { .entry = *entry, .uid = uid };
  struct sb_host_counts zero;

  memset (&zero, 0, sizeof zero);
  if (bpf_map_update_elem (fd, &key, &zero, BPF_NOEXIST) == 0 || errno == EEXIST)
    return 0;
  return -1;
}

int
sb_host_counts_reserve (int fd, const struct sb_host_filter_spec *f)
{
  int entries = f->kind == SB_HOST_FILTER_PROGRAMS ? f->nprograms : 1;
  struct sb_host_name_key entry;

  for (int i = 0; i < entries; i++) {
    sb_host_entry_of (f, i, &entry);
    if (make_row (fd, &entry, 0) == -1 ||
        make_row (fd, &entry, SB_HOST_UID_OTHERS) == -1)
      return -1;
  }
  return 0;
}

static void
add (struct sb_host_counts *c, int which)
{
  if (which == SB_HOST_COUNT_TCP_BIND)
    c->tcp_bind++;
  else if (which == SB_HOST_COUNT_TCP_CONNECT)
    c->tcp_connect++;
  else
    c->unix_sndbuf++;
}

void
sb_host_count_add (int fd, const struct sb_host_name_key *entry, uint32_t uid,
                   int which)
{
  struct sb_host_count_key key = { .entry = *entry, .uid = uid };
  struct sb_host_counts c;

  if (bpf_map_lookup_elem (fd, &key, &c) != 0 &&
      (make_row (fd, entry, uid) == -1 || bpf_map_lookup_elem (fd, &key, &c) != 0)) {
    key.uid = SB_HOST_UID_OTHERS;
    if (bpf_map_lookup_elem (fd, &key, &c) != 0)
      return;
  }
  add (&c, which);
  bpf_map_update_elem (fd, &key, &c, BPF_EXIST);
}

static int
counted (const struct sb_host_counts *c)
{
  static const struct sb_host_counts zero;

  return memcmp (c, &zero, sizeof zero) != 0;
}

static int
compare_rows (const void *a, const void *b)
{
  const struct sb_host_count_row *x = a, *y = b;
  int c = memcmp (x->key.entry.name, y->key.entry.name, sizeof x->key.entry.name);

  if (c == 0)
    c = (x->key.entry.prefixlen > y->key.entry.prefixlen) -
        (x->key.entry.prefixlen < y->key.entry.prefixlen);
  if (c == 0)
    c = (x->key.uid > y->key.uid) - (x->key.uid < y->key.uid);
  return c;
}

int
sb_host_counts_read (int fd, struct sb_host_count_row *rows, int max)
{
  struct sb_host_count_key key, next;
  void *prev = NULL;
  int n = 0;

  for (int seen = 0; seen < SB_HOST_MAX_COUNT_ROWS && n < max &&
       bpf_map_get_next_key (fd, prev, &next) == 0; seen++) {
    if (bpf_map_lookup_elem (fd, &next, &rows[n].counts) == 0 &&
        counted (&rows[n].counts)) {
      rows[n].key = next;
      n++;
    }
    key = next;
    prev = &key;
  }
  qsort (rows, (size_t) n, sizeof rows[0], compare_rows);
  return n;
}
