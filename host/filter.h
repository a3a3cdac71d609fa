/* SPDX-License-Identifier: MIT */
/* Which sockets host mode tunes: the programs, ports or everything of
 * `sockboost host enable --programs|--ports|--all`, as the kernel
 * programs' maps hold them.  Pure: parsing, comparing, printing.
 */
#ifndef SOCKBOOST_HOST_FILTER_H
#define SOCKBOOST_HOST_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "host-abi.h"

/* A program name as the kernel matches it: at most 15 bytes (longer
 * names are cut, as the kernel cuts a process's name), or a prefix of
 * every name that starts with it (written "NAME*").
 */
struct sb_host_program {
  char name[SB_HOST_COMM_LEN];
  int prefix;
};

struct sb_host_filter_spec {
  enum sb_host_filter kind;
  int nprograms;
  struct sb_host_program programs[SB_HOST_MAX_PROGRAMS];
  int nports;
  uint16_t ports[SB_HOST_MAX_PORTS];
};

/* Set F to the programs of LIST (comma-separated names, each optionally
 * ending in '*'; duplicates dropped) or to the ports of LIST (1 to
 * 65535).  Return 0, or -1 with WHY saying what is wrong.
 */
extern int sb_host_parse_programs (const char *list,
                                   struct sb_host_filter_spec *f,
                                   char *why, size_t why_len);
extern int sb_host_parse_ports (const char *list,
                                struct sb_host_filter_spec *f,
                                char *why, size_t why_len);

/* Set F to the default filter: the NBD programs (common/nbd-programs.h).
 * Return 0, or -1 with WHY saying what is wrong with that table.
 */
extern int sb_host_default_filter (struct sb_host_filter_spec *f,
                                   char *why, size_t why_len);

/* The set of first bytes of F's programs, as the kernel programs test
 * it (sb_host_settings.first_bytes).
 */
extern void sb_host_first_bytes (const struct sb_host_filter_spec *f,
                                 uint64_t set[4]);

/* The LPM trie key of P, and back. */
extern void sb_host_program_key (const struct sb_host_program *p,
                                 struct sb_host_name_key *key);
extern int sb_host_program_from_key (const struct sb_host_name_key *key,
                                     struct sb_host_program *p);

/* Sort the programs and ports of F, so that two filters compare and
 * print alike whatever order they were given or read in.
 */
extern void sb_host_filter_sort (struct sb_host_filter_spec *f);

/* Whether A and B (both sorted) tune the same sockets. */
extern int sb_host_filter_equal (const struct sb_host_filter_spec *a,
                                 const struct sb_host_filter_spec *b);

/* F (sorted) as one line: "programs qemu-img, qemu-nbd, sbnbd-*",
 * "ports 10809, 10810" or "all".  Names are escaped.  Returns BUF.
 */
extern const char *sb_host_filter_text (const struct sb_host_filter_spec *f,
                                        char *buf, size_t size);

/* One program as the user writes it ("qemu-system-*"), escaped. */
extern const char *sb_host_program_text (const struct sb_host_program *p,
                                         char *buf, size_t size);

#endif /* SOCKBOOST_HOST_FILTER_H */
