/* SPDX-License-Identifier: MIT */
/* The kernel's side of SO_SNDBUF, modelled for the helpers that predict
 * what the library would do without touching a real socket: sb-config
 * (doctor, status, run) and a dry run of sockboost attach.  One model, so
 * that the two predictions cannot drift apart.
 */
#ifndef SOCKBOOST_SNDBUF_MODEL_H
#define SOCKBOOST_SNDBUF_MODEL_H

#include <stdbool.h>

#include "settings.h"

struct sb_sndbuf_model {
  int wmem_default;             /* a new unix socket's tb, -1 if unknown */
  long wmem_max;                /* SO_SNDBUF's clip, -1 if unknown */
  bool can_force;               /* SO_SNDBUFFORCE allowed */
  int min_tb;                   /* the smallest tb the kernel grants */
  int granted;                  /* tb after the last modelled set */
};

/* Fill M with this host's facts, asked of the kernel on a socketpair of
 * our own and of net.core.wmem_max.  Returns 0, or -1 (errno) when no
 * socketpair can be made.
 */
extern int sb_sndbuf_model_probe (struct sb_sndbuf_model *m);

/* What the library's sb_sndbuf_raise would set on a unix socket of tb
 * BEFORE under settings C, as M's kernel does it: returns the option
 * set (or -1 when the buffer is left alone), *TB the socket's tb after,
 * and *CLIPPED as sb_sndbuf_raise says.
 */
extern int sb_sndbuf_model_raise (struct sb_sndbuf_model *m, int before,
                                  const struct sb_config *c, int *tb,
                                  bool *clipped);

/* Set M's socket to BYTES with SO_SNDBUF, as a program would before the
 * library sees it; returns the tb it gets.
 */
extern int sb_sndbuf_model_program_sets (struct sb_sndbuf_model *m,
                                         int bytes);

#endif /* SOCKBOOST_SNDBUF_MODEL_H */
