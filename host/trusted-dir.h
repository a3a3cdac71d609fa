/* SPDX-License-Identifier: MIT */
/* The directories above host mode's pin directory, walked from / one
 * component at a time without following a link, each checked by the
 * rule of tools/sockboostlib/trust.py (doc/HACKING.md): it belongs to
 * root or to this user, and nobody else may write it unless it is
 * sticky.  Root keeps its pins there: a directory that someone else may
 * rename or replace entries of is refused.
 */
#ifndef SOCKBOOST_HOST_TRUSTED_DIR_H
#define SOCKBOOST_HOST_TRUSTED_DIR_H

#include <stddef.h>

/* Open the directory that holds the last component of the absolute
 * PATH (O_PATH), every directory from / down to it checked; set NAME
 * (SIZE bytes) to that last component.  Return the descriptor, or -1
 * with WHY (naming the component that failed, escaped) and errno:
 * EACCES for a directory refused, ENOENT for one that is not there.
 */
extern int sb_host_open_trusted_parent (const char *path, char *name,
                                        size_t size, char *why,
                                        size_t why_len);

#endif /* SOCKBOOST_HOST_TRUSTED_DIR_H */
