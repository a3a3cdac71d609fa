/* SPDX-License-Identifier: MIT */
/* libbpf 0.3 to 1.x behind one interface (libbpf-compat.h). */
#include <sys/resource.h>
#include <bpf/libbpf.h>

#include "libbpf-compat.h"

/* libbpf_version.h came with 0.6. */
#if defined LIBBPF_MAJOR_VERSION && LIBBPF_MAJOR_VERSION >= 1
#define RAISES_MEMLOCK 1
#else
#define RAISES_MEMLOCK 0
#endif

void
sb_libbpf_setup (void)
{
  const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

  if (!RAISES_MEMLOCK)
    (void) setrlimit (RLIMIT_MEMLOCK, &unlimited);
}
