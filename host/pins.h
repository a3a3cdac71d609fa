/* SPDX-License-Identifier: MIT */
/* Where host mode keeps its pinned links and maps: one directory of a
 * BPF file system, owned by root and by nothing else, holding at most a
 * "current" generation (what is on) and a "staging" one (being set up,
 * or left by a loader that was killed).  Removing a generation's pins
 * detaches its programs.
 */
#ifndef SOCKBOOST_HOST_PINS_H
#define SOCKBOOST_HOST_PINS_H

#include <limits.h>
#include <stddef.h>

#define SB_HOST_PIN_DIR_DEFAULT "/sys/fs/bpf/sockboost"
#define SB_HOST_CURRENT "current"
#define SB_HOST_STAGING "staging"

struct sb_host_pins {
  int fd;                       /* the directory, checked and locked */
  char path[PATH_MAX];
};

/* Open the pin directory PATH, creating it (and, for the default, the
 * BPF file system on /sys/fs/bpf, setting *MOUNTED) when CREATE; then
 * take its lock, waiting a bounded time for another sb-host.  It must be
 * a directory on a BPF file system, not a link, owned by this user and
 * writable by no one else.  Return 0; -1 with WHY; or 1 when it does
 * not exist and CREATE is 0.
 */
extern int sb_host_pins_open (const char *path, int create, int *mounted,
                              struct sb_host_pins *p,
                              char *why, size_t why_len);
extern void sb_host_pins_close (struct sb_host_pins *p);

/* The path of NAME in generation GEN ("" for GEN itself), through the
 * open directory (/proc/self/fd/N/...): no component is looked up again
 * by its name from /.
 */
extern void sb_host_pin_path (const struct sb_host_pins *p, const char *gen,
                              const char *name, char *buf, size_t size);

/* Whether generation GEN exists. */
extern int sb_host_pins_has (const struct sb_host_pins *p, const char *gen);

/* Remove every pin of generation GEN and GEN itself; 0 or -1 (errno).
 * A generation that does not exist is removed already.
 */
extern int sb_host_pins_clear (const struct sb_host_pins *p, const char *gen);

/* Make generation GEN (empty); 0 or -1 (errno). */
extern int sb_host_pins_make (const struct sb_host_pins *p, const char *gen);

/* Rename generation FROM to TO, which must not exist; 0 or -1 (errno). */
extern int sb_host_pins_rename (const struct sb_host_pins *p, const char *from,
                                const char *to);

/* Remove the (empty) directory itself; 0 or -1 (errno). */
extern int sb_host_pins_remove_dir (struct sb_host_pins *p);

#endif /* SOCKBOOST_HOST_PINS_H */
