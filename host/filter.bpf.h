/* SPDX-License-Identifier: MIT */
/* Host mode's filter as the kernel programs apply it: the maps that
 * enable fills (settings, programs, ports) and the tests on them, shared
 * by every object of host mode (a loader gives them the same maps).
 * Written for clang 11 and libbpf 0.3 too: no NULL, no initialised
 * structs that clang copies from .rodata.
 */
#ifndef SOCKBOOST_HOST_FILTER_BPF_H
#define SOCKBOOST_HOST_FILTER_BPF_H

#include "host-abi.h"

struct {
  __uint (type, BPF_MAP_TYPE_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct sb_host_settings);
} settings SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_LPM_TRIE);
  __uint (max_entries, SB_HOST_MAX_PROGRAMS);
  __uint (map_flags, BPF_F_NO_PREALLOC);
  __type (key, struct sb_host_name_key);
  __type (value, __u8);
} programs SEC (".maps");

struct {
  __uint (type, BPF_MAP_TYPE_HASH);
  __uint (max_entries, SB_HOST_MAX_PORTS);
  __type (key, __u16);
  __type (value, __u8);
} ports SEC (".maps");

static __always_inline const struct sb_host_settings *
current_settings (void)
{
  __u32 zero = 0;

  return bpf_map_lookup_elem (&settings, &zero);
}

/* Whether the filter names the program COMM, a process's name read by
 * bpf_get_current_comm into a zeroed buffer (kernels before 6.5 or so
 * leave the bytes after the name's NUL as they were).
 */
static __always_inline int
program_named (const struct sb_host_settings *s,
               const char comm[SB_HOST_COMM_LEN])
{
  struct sb_host_name_key key;
  __u8 first = (__u8) comm[0];

  if (!(s->first_bytes[first >> 6] & (1ULL << (first & 63))))
    return 0;
  __builtin_memset (&key, 0, sizeof key);
  key.prefixlen = SB_HOST_COMM_LEN * 8;
  __builtin_memcpy (key.name, comm, SB_HOST_COMM_LEN);
  return bpf_map_lookup_elem (&programs, &key) != 0;
}

static __always_inline int
port_listed (__u32 port)
{
  __u16 key = (__u16) port;

  return bpf_map_lookup_elem (&ports, &key) != 0;
}

/* Whether the filter of S takes a TCP socket that the process named
 * COMM binds or connects to PORT (host order).
 */
static __always_inline int
filter_takes_tcp (const struct sb_host_settings *s,
                  const char comm[SB_HOST_COMM_LEN], __u32 port)
{
  if (s->filter == SB_HOST_FILTER_PROGRAMS)
    return program_named (s, comm);
  if (s->filter == SB_HOST_FILTER_PORTS)
    return port_listed (port);
  return 1;
}

#endif /* SOCKBOOST_HOST_FILTER_BPF_H */
