/* SPDX-License-Identifier: MIT */
/* task_struct's group_leader and comm, from the kernel's BTF
 * (taskname.h).  BTF is the kernel's own account of its types; still,
 * every answer is checked (kinds, sizes, whole bytes) before the
 * programs are told to read there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
/* libbpf's inline BTF accessors cast their own const away. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include <bpf/btf.h>
#pragma GCC diagnostic pop

#include "host-abi.h"
#include "taskname.h"

/* Anonymous structs and unions nest this deep at most (a randomized
 * task_struct keeps most members in one).
 */
#define MAX_NESTING 4

/* The byte offset of member NAME of the struct or union T, looked for
 * in its anonymous members too; *TYPE gets the member's type id.  -1
 * when it is absent or not on a byte boundary.
 */
static long
member_offset (const struct btf *btf, const struct btf_type *t,
               const char *name, uint32_t *type, int depth)
{
  const struct btf_member *m = btf_members (t);

  for (int i = 0; i < btf_vlen (t); i++, m++) {
    const char *member = btf__name_by_offset (btf, m->name_off);
    uint32_t bits = btf_member_bit_offset (t, (uint32_t) i);
    const struct btf_type *inner;
    long off;

    if (bits % 8 != 0 || btf_member_bitfield_size (t, (uint32_t) i) != 0)
      continue;
    if (member != NULL && member[0] != '\0') {
      if (strcmp (member, name) != 0)
        continue;
      *type = m->type;
      return (long) (bits / 8);
    }
    inner = btf__type_by_id (btf, m->type);
    if (depth < MAX_NESTING && inner != NULL && btf_is_composite (inner) &&
        (off = member_offset (btf, inner, name, type, depth + 1)) >= 0)
      return (long) (bits / 8) + off;
  }
  return -1;
}

/* The kind of type ID, through typedefs and qualifiers. */
static const struct btf_type *
resolved (const struct btf *btf, uint32_t id)
{
  int real = btf__resolve_type (btf, id);

  return real < 0 ? NULL : btf__type_by_id (btf, (uint32_t) real);
}

static int
is_name_array (const struct btf *btf, uint32_t id)
{
  const struct btf_type *t = resolved (btf, id);

  return t != NULL && btf_is_array (t) &&
         btf_array (t)->nelems == SB_HOST_COMM_LEN &&
         btf__resolve_size (btf, btf_array (t)->type) == 1;
}

static int
is_pointer (const struct btf *btf, uint32_t id)
{
  const struct btf_type *t = resolved (btf, id);

  return t != NULL && btf_is_ptr (t);
}

static int
find (const struct btf *btf, uint32_t *group_leader, uint32_t *comm,
      char *why, size_t why_len)
{
  int id = btf__find_by_name_kind (btf, "task_struct", BTF_KIND_STRUCT);
  const struct btf_type *task;
  uint32_t leader_type, comm_type;
  long leader_off, comm_off;

  task = id < 0 ? NULL : btf__type_by_id (btf, (uint32_t) id);
  if (task == NULL) {
    snprintf (why, why_len, "no struct task_struct in the kernel's BTF");
    return -1;
  }
  leader_off = member_offset (btf, task, "group_leader", &leader_type, 0);
  comm_off = member_offset (btf, task, "comm", &comm_type, 0);
  if (leader_off <= 0 || comm_off <= 0 || !is_pointer (btf, leader_type) ||
      !is_name_array (btf, comm_type) || leader_off > UINT32_MAX ||
      comm_off > UINT32_MAX) {
    snprintf (why, why_len, "the kernel's BTF has no task_struct "
              "group_leader pointer and %d-byte comm", SB_HOST_COMM_LEN);
    return -1;
  }
  *group_leader = (uint32_t) leader_off;
  *comm = (uint32_t) comm_off;
  return 0;
}

int
sb_host_task_offsets (const char *path, uint32_t *group_leader,
                      uint32_t *comm, char *why, size_t why_len)
{
  struct btf *btf = btf__parse_raw (path);
  long err = libbpf_get_error (btf);
  int status;

  *group_leader = *comm = 0;
  /* Missing: a kernel built without BTF.  Present but refused: most
   * often an older libbpf (Debian 11's 0.3) that does not know the
   * kinds a newer kernel's BTF uses.
   */
  if (err == -ENOENT) {
    snprintf (why, why_len, "the kernel has no BTF (%s: %s; it needs "
              "CONFIG_DEBUG_INFO_BTF)", path, strerror (ENOENT));
    return -1;
  }
  if (err != 0) {
    snprintf (why, why_len, "this libbpf cannot read the kernel's BTF "
              "(%s: %s; a libbpf older than the kernel may not know the "
              "kinds it uses)", path, strerror ((int) -err));
    return -1;
  }
  status = find (btf, group_leader, comm, why, why_len);
  btf__free (btf);
  return status;
}
