/* SPDX-License-Identifier: MIT */
/* The NBD programs (nbd-programs.h). */
#include <string.h>

#include "nbd-programs.h"

const struct sb_nbd_program sb_nbd_programs[] = {
  { "qemu-nbd", "qemu-server" },
  { "qemu-img", "qemu-client" },
  { "qemu-io", "qemu-client" },
  /* A storage migration's destination and a backup pull
   * (nbd-server-start), a mirror job to an nbd node. */
  { "qemu-system-*", "qemu-server-client" },
  /* KubeVirt's and oVirt's NBD exporter. */
  { "qemu-storage-daemon", "qemu-server-client" },
  { "nbdkit", "nbdkit" },
  { "nbdcopy", "libnbd" },
  { "nbdinfo", "libnbd" },
  { "nbd-server", "nbd-server" },
  { "nbd-client", "nbd-client" },
  { "sbnbd-*", "sbnbd" },
  { NULL, NULL },
};

const char *
sb_nbd_program_list (char *buf, size_t size)
{
  size_t used = 0;

  if (size == 0)
    return NULL;
  buf[0] = '\0';
  for (const struct sb_nbd_program *p = sb_nbd_programs; p->name; p++) {
    size_t len = strlen (p->name), comma = used > 0;

    if (used + comma + len >= size)
      return NULL;
    if (comma)
      buf[used++] = ',';
    memcpy (buf + used, p->name, len + 1);
    used += len;
  }
  return buf;
}
