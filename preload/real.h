/* SPDX-License-Identifier: MIT */
/* The next definitions of the hooked libc functions, bound once. */
#ifndef SOCKBOOST_REAL_H
#define SOCKBOOST_REAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "real-symbols.h"

#define SB_REAL_FIELD(name, ret, args) ret (*name) args;
struct sb_real {
  SB_REAL_SYMBOLS (SB_REAL_FIELD)
};
#undef SB_REAL_FIELD

extern struct sb_real sb_real;

/* Bind every pointer in sb_real (once, thread-safe).  A symbol that
 * cannot be found stays NULL; callers check before use.
 */
extern void sb_real_bind (void);

/* Set once every pointer is bound: a hook then pays one load, not a call
 * to pthread_once.
 */
extern atomic_bool sb_real_bound;

static inline void
sb_real_ready (void)
{
  if (!atomic_load_explicit (&sb_real_bound, memory_order_acquire))
    sb_real_bind ();
}

/* Call the real NAME, or fail with ENOSYS when it could not be bound.
 * Only for use inside hook functions returning int or ssize_t.
 */
#define SB_REAL_CALL(name, ...)                                            \
  (sb_real_ready (),                                                       \
   sb_real.name ? sb_real.name (__VA_ARGS__) : sb_real_missing ())

/* Set errno to ENOSYS and return -1. */
extern int sb_real_missing (void);

#endif /* SOCKBOOST_REAL_H */
