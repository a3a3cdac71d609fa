/* SPDX-License-Identifier: MIT */
/* glibc 2.32's strerrordesc_np for an older glibc (glibc-compat.h): the
 * untranslated message, without allocating.  Before 2.32 glibc keeps
 * those in sys_errlist, which its linker warning calls deprecated: a
 * file of its own, so that only what describes an errno (the library's
 * log) is linked with it, and warned about.
 */
#include "glibc-compat.h"

#if !__GLIBC_PREREQ(2, 32)
#include <stddef.h>
#include <stdio.h>

const char *
sb_compat_strerrordesc_np (int errnum)
{
  return errnum >= 0 && errnum < sys_nerr ? sys_errlist[errnum] : NULL;
}
#endif
