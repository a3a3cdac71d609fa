/* SPDX-License-Identifier: MIT */
/* Loading, attaching and pinning host mode's programs (load.h), through
 * the skeleton bpftool generates from sockboost-host.bpf.c, opened once
 * for the maps and once for each part, whose copy loads only that part's
 * programs and uses the maps of the first: the kernel judges each part
 * alone.  Only calls that libbpf 0.3 (Debian 11) and 1.x share.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf-log.h"
#include "counts.h"
#include "escape.h"
#include "load.h"
/* bpftool's skeleton casts its own const bytes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "sockboost-host.skel.h"
#pragma GCC diagnostic pop

/* Linux 6.7's attach types of the unix socket hooks (enum
 * bpf_attach_type in its uapi linux/bpf.h), which the headers of
 * libbpf 1.1 and of older kernels do not name, nor libbpf before 1.3
 * their section names: the programs are given their type here.
 */
#define SB_CGROUP_UNIX_CONNECT 49
#define SB_CGROUP_UNIX_GETSOCKNAME 53

/* CAP_PERFMON: the programs read the process's name from its task. */
#define NO_RIGHTS "no right to load BPF programs here (%s): it takes " \
  "CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, or CAP_SYS_ADMIN, which a " \
  "container may not grant"

const struct sb_host_prog_desc sb_host_progs[SB_HOST_NPROGS] = {
  { "bind4", "sb_host_tcp_bind4", BPF_CGROUP_INET4_BIND,
    SB_HOST_PART_TCP_BIND },
  { "bind6", "sb_host_tcp_bind6", BPF_CGROUP_INET6_BIND,
    SB_HOST_PART_TCP_BIND },
  { "connect4", "sb_host_tcp_connect4", BPF_CGROUP_INET4_CONNECT,
    SB_HOST_PART_TCP_CONNECT },
  { "connect6", "sb_host_tcp_connect6", BPF_CGROUP_INET6_CONNECT,
    SB_HOST_PART_TCP_CONNECT },
  { "connect_unix", "sb_host_unix_connect", SB_CGROUP_UNIX_CONNECT,
    SB_HOST_PART_UNIX_CONNECT },
  { "getsockname_unix", "sb_host_unix_getsockname", SB_CGROUP_UNIX_GETSOCKNAME,
    SB_HOST_PART_UNIX_ACCEPT },
};

const char *const sb_host_part_name[SB_HOST_NPARTS] = {
  "tcp-bind", "tcp-connect", "unix-connect", "unix-accept",
};

const char *const sb_host_map_pin[SB_HOST_NMAPS] = {
  "settings", "programs", "ports", "marks", "counts", "stall_tags",
};

static struct bpf_map *
map_of (struct sockboost_host *skel, enum sb_host_map i)
{
  struct bpf_map *all[SB_HOST_NMAPS] = {
    skel->maps.settings, skel->maps.programs, skel->maps.ports,
    skel->maps.marks, skel->maps.counts, skel->maps.stall_tags,
  };
  return all[i];
}

static struct bpf_program *
prog_of (struct sockboost_host *skel, int i)
{
  return bpf_object__find_program_by_name (skel->obj, sb_host_progs[i].function);
}

/* ---- rights, and the unix hooks ------------------------------------ */

static int
has_capability (const struct __user_cap_data_struct d[2], int cap)
{
  return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int
sb_host_rights (char *why, size_t why_len)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];

  memset (d, 0, sizeof d);
  if (syscall (SYS_capget, &h, d) == 0 && !has_capability (d, CAP_SYS_ADMIN) &&
      !(has_capability (d, CAP_BPF) && has_capability (d, CAP_NET_ADMIN) &&
        has_capability (d, CAP_PERFMON))) {
    snprintf (why, why_len, NO_RIGHTS, strerror (EPERM));
    return -1;
  }
  return 0;
}

/* bpf(BPF_PROG_LOAD) itself: libbpf 0.3 and 1.x name it differently. */
int
sb_host_probe_unix (char *why, size_t why_len)
{
  /* r0 = 1; exit: the smallest program of the type. */
  struct bpf_insn insns[] = {
    { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
    { .code = BPF_JMP | BPF_EXIT },
  };
  static const char license[] = "Dual MIT/GPL";
  union bpf_attr attr;
  int fd;

  memset (&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR;
  attr.expected_attach_type = SB_CGROUP_UNIX_CONNECT;
  attr.insns = (__u64) (unsigned long) insns;
  attr.insn_cnt = sizeof insns / sizeof insns[0];
  attr.license = (__u64) (unsigned long) license;
  fd = (int) syscall (SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
  if (fd >= 0) {
    close (fd);
    return 1;
  }
  snprintf (why, why_len, "this kernel has no unix socket hooks (a "
            "program for attach type %d was refused: %s; they came with "
            "Linux 6.7)", SB_CGROUP_UNIX_CONNECT, strerror (errno));
  return 0;
}

/* ---- loading -------------------------------------------------------- */

void
sb_host_reuse_map (struct bpf_map *m, int fd)
{
  struct bpf_map_info info;
  __u32 len = sizeof info;

  memset (&info, 0, sizeof info);
  if (fd < 0 || bpf_obj_get_info_by_fd (fd, &info, &len) != 0)
    return;
  if (info.type == bpf_map__type (m) && info.key_size == bpf_map__key_size (m) &&
      info.value_size == bpf_map__value_size (m) &&
      info.map_flags == bpf_map__map_flags (m))
    bpf_map__reuse_fd (m, fd);
}

static int
fill_maps (struct sockboost_host *skel, const struct sb_host_settings *s,
           const struct sb_host_filter_spec *f)
{
  struct sb_host_name_key key;
  __u32 zero = 0;
  __u8 yes = 1;

  if (bpf_map_update_elem (bpf_map__fd (skel->maps.settings), &zero, s,
                           BPF_ANY) != 0)
    return -1;
  for (int i = 0; i < f->nprograms; i++) {
    sb_host_program_key (&f->programs[i], &key);
    if (bpf_map_update_elem (bpf_map__fd (skel->maps.programs), &key, &key,
                             BPF_ANY) != 0)
      return -1;
  }
  if (sb_host_counts_reserve (bpf_map__fd (skel->maps.counts), f) == -1)
    return -1;
  for (int i = 0; i < f->nports; i++)
    if (bpf_map_update_elem (bpf_map__fd (skel->maps.ports), &f->ports[i],
                             &yes, BPF_ANY) != 0)
      return -1;
  return 0;
}

/* A copy of the object that loads the programs of the parts PARTS only
 * (none: the maps alone), using the maps of MAPS when given.
 */
static struct sockboost_host *
open_copy (unsigned parts, struct sockboost_host *maps)
{
  struct sockboost_host *skel = sockboost_host__open ();

  if (skel == NULL)
    return NULL;
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    struct bpf_program *p = prog_of (skel, i);
    bpf_program__set_type (p, BPF_PROG_TYPE_CGROUP_SOCK_ADDR);
    bpf_program__set_expected_attach_type (p, (enum bpf_attach_type)
                                           sb_host_progs[i].attach_type);
    bpf_program__set_autoload (p, (parts & SB_HOST_PART_BIT (sb_host_progs[i].part)) != 0);
  }
  for (int m = 0; maps != NULL && m < SB_HOST_NMAPS; m++)
    bpf_map__reuse_fd (map_of (skel, m), bpf_map__fd (map_of (maps, m)));
  return skel;
}

/* The first of part P's programs, whose name the reason gives. */
static const char *
first_function (enum sb_host_part p)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    if (sb_host_progs[i].part == p)
      return sb_host_progs[i].function;
  return "?";
}

static void
load_part (struct sb_host_instance *in, enum sb_host_part p)
{
  char reason[SB_HOST_PART_WHY_LEN - 64];
  int err;

  sb_host_bpf_log_reset ();
  in->parts[p] = open_copy (SB_HOST_PART_BIT (p), in->maps);
  err = in->parts[p] == NULL ? -errno : sockboost_host__load (in->parts[p]);
  if (err == 0) {
    in->loaded |= SB_HOST_PART_BIT (p);
    return;
  }
  sb_host_bpf_log_reason (reason, sizeof reason);
  snprintf (in->why[p], sizeof in->why[p], "the kernel refused %s: %s",
            sb_host_bpf_log_program ()[0] ? sb_host_bpf_log_program () :
            first_function (p), reason[0] ? reason : strerror (-err));
  sockboost_host__destroy (in->parts[p]);
  in->parts[p] = NULL;
}

int
sb_host_load (struct sb_host_instance *in, const struct sb_host_settings *s,
              const struct sb_host_filter_spec *f, unsigned parts,
              const int *reuse, char *why, size_t why_len)
{
  char reason[512];
  int err;

  memset (in, 0, sizeof *in);
  sb_host_bpf_log_reset ();
  in->maps = open_copy (0, NULL);
  if (in->maps == NULL) {
    snprintf (why, why_len, "cannot open the BPF programs: %s",
              strerror (errno));
    return -1;
  }
  for (int m = 0; reuse != NULL && m < SB_HOST_NMAPS; m++)
    sb_host_reuse_map (map_of (in->maps, m), reuse[m]);
  err = sockboost_host__load (in->maps);
  if (err == -EPERM || err == -EACCES)
    snprintf (why, why_len, NO_RIGHTS, strerror (-err));
  else if (err != 0)
    snprintf (why, why_len, "the kernel refused host mode's maps: %s",
              sb_host_bpf_log_reason (reason, sizeof reason)[0] ? reason :
              strerror (-err));
  else if (fill_maps (in->maps, s, f) == -1) {
    snprintf (why, why_len, "cannot fill the BPF maps: %s", strerror (errno));
    err = -1;
  }
  if (err != 0) {
    sb_host_unload (in);
    return -1;
  }
  for (int p = 0; p < SB_HOST_NPARTS; p++)
    if (parts & SB_HOST_PART_BIT (p))
      load_part (in, (enum sb_host_part) p);
  return 0;
}

/* Detach and forget the links of part P. */
static void
drop_links (struct sb_host_instance *in, enum sb_host_part p)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    if (sb_host_progs[i].part == p) {
      bpf_link__destroy (in->links[i]);
      in->links[i] = NULL;
    }
}

unsigned
sb_host_attach (struct sb_host_instance *in, int cgroup_fd)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    enum sb_host_part p = sb_host_progs[i].part;
    if (!(in->loaded & SB_HOST_PART_BIT (p)))
      continue;
    in->links[i] = bpf_program__attach_cgroup (prog_of (in->parts[p], i),
                                               cgroup_fd);
    if (libbpf_get_error (in->links[i]) != 0) {
      snprintf (in->why[p], sizeof in->why[p], "cannot attach %s to the "
                "cgroup: %s", sb_host_progs[i].function, strerror (errno));
      in->links[i] = NULL;
      in->loaded &= ~SB_HOST_PART_BIT (p);
      drop_links (in, p);
    }
  }
  return in->loaded;
}

int
sb_host_pin (struct sb_host_instance *in, const struct sb_host_pins *p,
             const char *gen, char *why, size_t why_len)
{
  char path[PATH_MAX + 64];

  for (int i = 0; i < SB_HOST_NMAPS; i++) {
    sb_host_pin_path (p, gen, sb_host_map_pin[i], path, sizeof path);
    if (bpf_obj_pin (bpf_map__fd (map_of (in->maps, i)), path) != 0) {
      snprintf (why, why_len, "cannot pin map %s: %s", sb_host_map_pin[i],
                strerror (errno));
      return -1;
    }
  }
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    if (in->links[i] == NULL)
      continue;
    sb_host_pin_path (p, gen, sb_host_progs[i].pin, path, sizeof path);
    if (bpf_obj_pin (bpf_link__fd (in->links[i]), path) != 0) {
      snprintf (why, why_len, "cannot pin link %s: %s", sb_host_progs[i].pin,
                strerror (errno));
      return -1;
    }
  }
  return 0;
}

int
sb_host_map_fd (const struct sb_host_instance *in, enum sb_host_map m)
{
  return bpf_map__fd (map_of (in->maps, m));
}

void
sb_host_unload (struct sb_host_instance *in)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    bpf_link__destroy (in->links[i]);
    in->links[i] = NULL;
  }
  for (int p = 0; p < SB_HOST_NPARTS; p++) {
    sockboost_host__destroy (in->parts[p]);
    in->parts[p] = NULL;
  }
  sockboost_host__destroy (in->maps);
  in->maps = NULL;
}
