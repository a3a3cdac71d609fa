/* SPDX-License-Identifier: MIT */
/* The NBD programs, in one table: host mode's default filter
 * (host/filter.c), the programs sockboost doctor looks for on PATH and
 * the program sockboost status names a process by are all made of it;
 * the Python tools read it from sb-config --programs.
 */
#ifndef SOCKBOOST_NBD_PROGRAMS_H
#define SOCKBOOST_NBD_PROGRAMS_H

#include <stddef.h>

/* NAME is a program's file name, or a prefix of a family's names ending
 * in '*' (qemu-system-*), matched against the whole name: a file on
 * PATH, the file a process runs, or the kernel's name of a process,
 * which host mode cuts to 15 bytes as the kernel does
 * (qemu-storage-daemon becomes qemu-storage-da).  KIND says which NBD
 * code the program runs, for the tools that say what the library
 * changes for it (tools/sockboostlib/programs.py):
 *
 *   qemu-server         QEMU's NBD server (qemu-nbd)
 *   qemu-client         QEMU's NBD client (qemu-img, qemu-io)
 *   qemu-server-client  both (the system emulators, qemu-storage-daemon)
 *   nbdkit, nbd-server  those servers
 *   libnbd              a libnbd client (nbdcopy, nbdinfo)
 *   nbd-client          the handshake of the kernel's NBD client, which
 *                       then sends on the socket itself
 *   sbnbd               this project's server and client
 */
struct sb_nbd_program {
  const char *name;
  const char *kind;
};

/* The programs, ending with a NULL name. */
extern const struct sb_nbd_program sb_nbd_programs[];

/* Their names as one comma-separated list in BUF ("qemu-nbd,..."), as
 * `sockboost host enable --programs` takes it.  Returns BUF, or NULL
 * when SIZE is too small.
 */
extern const char *sb_nbd_program_list (char *buf, size_t size);

#endif /* SOCKBOOST_NBD_PROGRAMS_H */
