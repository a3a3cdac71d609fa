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
  __type (value, struct sb_host_name_key);
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

/* Whether the calling thread is its process's thread group leader
 * (its pid is the process's).
 */
static __always_inline int
current_is_leader (void)
{
  __u64 id = bpf_get_current_pid_tgid ();

  return (__u32) id == (__u32) (id >> 32);
}

/* The calling process's name: its thread group leader's, as
 * /proc/PID/comm shows it, read where the settings S say the kernel
 * keeps it; the calling thread's when they do not say, when the read
 * fails, or when the calling thread is the leader: the same name, read
 * without the two reads of another task's, which every bind and connect
 * of a program host mode leaves alone would pay for.  QEMU names its
 * threads ("nbd-connect");
 * the filter names programs.  Zero-padded: kernels before 6.5 or so
 * leave the bytes after a name's NUL as they were, and the name is
 * searched for and kept byte for byte (bpf_get_current_comm pads).
 */
static __always_inline int
process_name (const struct sb_host_settings *s, char comm[SB_HOST_COMM_LEN])
{
  const char *task;
  const char *leader = 0;

  if (s->task_comm == 0 || current_is_leader ())
    return bpf_get_current_comm (comm, SB_HOST_COMM_LEN);
  task = (const char *) bpf_get_current_task ();
  __builtin_memset (comm, 0, SB_HOST_COMM_LEN);
  if (bpf_probe_read_kernel (&leader, sizeof leader,
                             task + s->task_group_leader) == 0 &&
      leader != 0 &&
      bpf_probe_read_kernel_str (comm, SB_HOST_COMM_LEN,
                                 leader + s->task_comm) > 1)
    return 0;
  __builtin_memset (comm, 0, SB_HOST_COMM_LEN);
  return bpf_get_current_comm (comm, SB_HOST_COMM_LEN);
}

static __always_inline int
port_listed (__u32 port)
{
  __u16 key = (__u16) port;

  return bpf_map_lookup_elem (&ports, &key) != 0;
}

/* Whether the filter of S takes the process named COMM (process_name),
 * making a TCP socket of port PORT (host order; the port it binds or
 * connects to) or a unix socket; *ENTRY is set to the entry that took
 * it ("any" but for --programs).
 */
static __always_inline int
taken (const struct sb_host_settings *s, const char comm[SB_HOST_COMM_LEN],
       __u32 port, struct sb_host_name_key *entry)
{
  const struct sb_host_name_key *found;
  struct sb_host_name_key key;
  __u8 first = (__u8) comm[0];

  __builtin_memset (entry, 0, sizeof *entry);
  if (s->filter == SB_HOST_FILTER_ALL)
    return 1;
  if (s->filter == SB_HOST_FILTER_PORTS)
    return port_listed (port);
  if (!(s->first_bytes[first >> 6] & (1ULL << (first & 63))))
    return 0;
  key.prefixlen = SB_HOST_COMM_LEN * 8;
  __builtin_memcpy (key.name, comm, SB_HOST_COMM_LEN);
  found = bpf_map_lookup_elem (&programs, &key);
  if (found == 0)
    return 0;
  __builtin_memcpy (entry, found, sizeof *entry);
  return 1;
}

/* Whether the filter of S takes a TCP socket that the process named
 * COMM binds or connects to PORT (host order).
 */
static __always_inline int
filter_takes_tcp (const struct sb_host_settings *s,
                  const char comm[SB_HOST_COMM_LEN], __u32 port)
{
  struct sb_host_name_key entry;

  return taken (s, comm, port, &entry);
}

#endif /* SOCKBOOST_HOST_FILTER_BPF_H */
