/* SPDX-License-Identifier: MIT */
/* Bind the next definitions of the hooked functions with dlsym(RTLD_NEXT).
 * pthread_once makes binding thread-safe and lets a hook run from another
 * library's constructor, before our own constructor has run.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "real.h"

struct sb_real sb_real;
atomic_bool sb_real_bound;

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

static void
bind_all (void)
{
#define SB_REAL_BIND(name, ret, args) \
  sb_real.name = (ret (*) args) dlsym (RTLD_NEXT, #name);
  SB_REAL_SYMBOLS (SB_REAL_BIND)
#undef SB_REAL_BIND
  atomic_store_explicit (&sb_real_bound, true, memory_order_release);
}

void
sb_real_bind (void)
{
  pthread_once (&bind_once, bind_all);
}

int
sb_real_missing (void)
{
  errno = ENOSYS;
  return -1;
}
