/* SPDX-License-Identifier: MIT */
/* Host mode's parts as enable, check and status say them: each on or
 * off, and why off.
 */
#ifndef SOCKBOOST_HOST_PARTS_H
#define SOCKBOOST_HOST_PARTS_H

#include "host-abi.h"

/* "PREFIXparts: tcp-bind on, tcp-connect on, unix off" and, with
 * TCP_BY_WATCHER, " (TCP by the watcher)", one line.
 */
extern void sb_host_parts_text (const char *prefix, unsigned parts,
                                int tcp_by_watcher);

/* {"tcp-bind": {"on": true, "why": null}, ...}: WHY of each part off. */
extern void sb_host_parts_json (unsigned parts,
                                const char why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN]);

#endif /* SOCKBOOST_HOST_PARTS_H */
