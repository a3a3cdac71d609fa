/* SPDX-License-Identifier: MIT */
/* Loading, attaching and pinning host mode's programs (load.h), through
 * the skeleton bpftool generates from sockboost-host.bpf.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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
 * libbpf 1.1 and of older kernels do not name.
 */
#define SB_CGROUP_UNIX_CONNECT 49
#define SB_CGROUP_UNIX_GETSOCKNAME 53

/* CAP_PERFMON: the programs read the process's name from its task. */
#define NO_RIGHTS "no right to load BPF programs here (%s): it takes " \
  "CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON, or CAP_SYS_ADMIN, which a " \
  "container may not grant"

const char *const sb_host_prog_pin[SB_HOST_NPROGS] = {
  "bind4", "bind6", "connect4", "connect6", "connect_unix",
  "getsockname_unix",
};

const char *const sb_host_map_pin[SB_HOST_NMAPS] = {
  "settings", "programs", "ports", "marks", "counts",
};

static struct bpf_program *
prog_of (struct sockboost_host *skel, enum sb_host_prog i)
{
  struct bpf_program *all[SB_HOST_NPROGS] = {
    skel->progs.sb_host_tcp_bind4, skel->progs.sb_host_tcp_bind6,
    skel->progs.sb_host_tcp_connect4, skel->progs.sb_host_tcp_connect6,
    skel->progs.sb_host_unix_connect, skel->progs.sb_host_unix_getsockname,
  };
  return all[i];
}

static struct bpf_map *
map_of (struct sockboost_host *skel, enum sb_host_map i)
{
  struct bpf_map *all[SB_HOST_NMAPS] = {
    skel->maps.settings, skel->maps.programs, skel->maps.ports,
    skel->maps.marks, skel->maps.counts,
  };
  return all[i];
}

/* ---- libbpf's messages ---------------------------------------------- */

static int libbpf_verbose;
static char libbpf_last[512];

static int
libbpf_message (enum libbpf_print_level level, const char *fmt, va_list ap)
{
  char line[sizeof libbpf_last], shown[sizeof libbpf_last];
  size_t len;

  if (level == LIBBPF_DEBUG && libbpf_verbose < 2)
    return 0;
  vsnprintf (line, sizeof line, fmt, ap);
  len = strlen (line);
  while (len > 0 && line[len - 1] == '\n')
    line[--len] = '\0';
  if (len == 0)
    return 0;
  if (libbpf_verbose)
    fprintf (stderr, "sockboost host: libbpf: %s\n",
             sb_escape_str (shown, sizeof shown, line));
  if (level == LIBBPF_WARN)
    snprintf (libbpf_last, sizeof libbpf_last, "%s", line);
  return 0;
}

void
sb_host_libbpf_messages (int verbose)
{
  libbpf_verbose = verbose;
  libbpf_set_print (libbpf_message);
}

/* ---- rights --------------------------------------------------------- */

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

/* ---- the unix hooks ------------------------------------------------- */

/* Teach libbpf before 1.3 the section names of the unix hooks.  A newer
 * libbpf knows them already; its own definition is the same.
 */
static void
register_unix_sections (void)
{
  static int done;

  if (done)
    return;
  done = 1;
  libbpf_register_prog_handler ("cgroup/connect_unix",
                                BPF_PROG_TYPE_CGROUP_SOCK_ADDR,
                                SB_CGROUP_UNIX_CONNECT, NULL);
  libbpf_register_prog_handler ("cgroup/getsockname_unix",
                                BPF_PROG_TYPE_CGROUP_SOCK_ADDR,
                                SB_CGROUP_UNIX_GETSOCKNAME, NULL);
}

int
sb_host_probe_unix (char *why, size_t why_len)
{
  /* r0 = 1; exit: the smallest program of the type. */
  struct bpf_insn insns[] = {
    { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
    { .code = BPF_JMP | BPF_EXIT },
  };
  LIBBPF_OPTS (bpf_prog_load_opts, opts,
               .expected_attach_type = SB_CGROUP_UNIX_CONNECT);
  int fd = bpf_prog_load (BPF_PROG_TYPE_CGROUP_SOCK_ADDR, "sb_probe_unix",
                          "Dual MIT/GPL", insns, 2, &opts);

  if (fd >= 0) {
    close (fd);
    return 1;
  }
  fd = -fd;
  if (fd == EPERM || fd == EACCES) {
    snprintf (why, why_len, NO_RIGHTS, strerror (fd));
    return -1;
  }
  snprintf (why, why_len, "this kernel has no unix socket hooks (a "
            "program for attach type %d was refused: %s; they came with "
            "Linux 6.7)", SB_CGROUP_UNIX_CONNECT, strerror (fd));
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

int
sb_host_load (struct sb_host_instance *in, const struct sb_host_settings *s,
              const struct sb_host_filter_spec *f, int with_tcp,
              int with_unix, int reuse_marks, int reuse_counts, char *why,
              size_t why_len)
{
  int err;

  memset (in, 0, sizeof *in);
  in->with_tcp = with_tcp;
  in->with_unix = with_unix;
  register_unix_sections ();
  libbpf_last[0] = '\0';
  in->skel = sockboost_host__open ();
  if (in->skel == NULL) {
    snprintf (why, why_len, "cannot open the BPF programs: %s",
              strerror (errno));
    return -1;
  }
  for (int i = 0; i < SB_HOST_NPROGS; i++)
    if ((SB_HOST_PROG_IS_UNIX (i) && !with_unix) ||
        (SB_HOST_PROG_IS_TCP (i) && !with_tcp))
      bpf_program__set_autoload (prog_of (in->skel, i), false);
  sb_host_reuse_map (in->skel->maps.marks, reuse_marks);
  sb_host_reuse_map (in->skel->maps.counts, reuse_counts);
  err = sockboost_host__load (in->skel);
  if (err == -EPERM || err == -EACCES) {
    snprintf (why, why_len, NO_RIGHTS, strerror (-err));
    sb_host_unload (in);
    return -1;
  }
  if (err != 0) {
    snprintf (why, why_len, "the kernel refused the BPF programs: %s%s%s",
              strerror (-err), libbpf_last[0] ? "; libbpf: " : "",
              libbpf_last);
    sb_host_unload (in);
    return -1;
  }
  if (fill_maps (in->skel, s, f) == -1) {
    snprintf (why, why_len, "cannot fill the BPF maps: %s", strerror (errno));
    sb_host_unload (in);
    return -1;
  }
  return 0;
}

int
sb_host_attach (struct sb_host_instance *in, int cgroup_fd, char *why,
                size_t why_len)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    if ((SB_HOST_PROG_IS_UNIX (i) && !in->with_unix) ||
        (SB_HOST_PROG_IS_TCP (i) && !in->with_tcp))
      continue;
    in->links[i] = bpf_program__attach_cgroup (prog_of (in->skel, i),
                                               cgroup_fd);
    if (in->links[i] == NULL) {
      snprintf (why, why_len, "cannot attach %s to the cgroup: %s",
                sb_host_prog_pin[i], strerror (errno));
      return -1;
    }
  }
  return 0;
}

int
sb_host_pin (struct sb_host_instance *in, const struct sb_host_pins *p,
             const char *gen, char *why, size_t why_len)
{
  char path[PATH_MAX + 64];

  for (int i = 0; i < SB_HOST_NMAPS; i++) {
    sb_host_pin_path (p, gen, sb_host_map_pin[i], path, sizeof path);
    if (bpf_obj_pin (bpf_map__fd (map_of (in->skel, i)), path) != 0) {
      snprintf (why, why_len, "cannot pin map %s: %s", sb_host_map_pin[i],
                strerror (errno));
      return -1;
    }
  }
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    if (in->links[i] == NULL)
      continue;
    sb_host_pin_path (p, gen, sb_host_prog_pin[i], path, sizeof path);
    if (bpf_obj_pin (bpf_link__fd (in->links[i]), path) != 0) {
      snprintf (why, why_len, "cannot pin link %s: %s", sb_host_prog_pin[i],
                strerror (errno));
      return -1;
    }
  }
  return 0;
}

int
sb_host_map_fd (const struct sb_host_instance *in, enum sb_host_map m)
{
  return bpf_map__fd (map_of (in->skel, m));
}

void
sb_host_unload (struct sb_host_instance *in)
{
  for (int i = 0; i < SB_HOST_NPROGS; i++) {
    bpf_link__destroy (in->links[i]);
    in->links[i] = NULL;
  }
  sockboost_host__destroy (in->skel);
  in->skel = NULL;
}
