/* SPDX-License-Identifier: MIT */
/* glibc 2.32's strerrorname_np and sigabbrev_np, for an older glibc
 * (glibc-compat.h; strerrordesc_np is in glibc-compat-desc.c).  Like
 * glibc's, they neither allocate nor look at the locale, so the library
 * may call them anywhere, and they return NULL for a number they do not
 * know.
 */
#include "glibc-compat.h"

#if !__GLIBC_PREREQ(2, 32)
#include <errno.h>
#include <signal.h>
#include <stddef.h>

#define NAME(e) [e] = #e

/* Linux's errno names; the aliases (EWOULDBLOCK, EDEADLOCK, ENOTSUP)
 * are left out, as glibc names the number by its first name.
 */
static const char *const errno_names[] = {
  NAME (EPERM), NAME (ENOENT), NAME (ESRCH), NAME (EINTR), NAME (EIO),
  NAME (ENXIO), NAME (E2BIG), NAME (ENOEXEC), NAME (EBADF), NAME (ECHILD),
  NAME (EAGAIN), NAME (ENOMEM), NAME (EACCES), NAME (EFAULT),
  NAME (ENOTBLK), NAME (EBUSY), NAME (EEXIST), NAME (EXDEV), NAME (ENODEV),
  NAME (ENOTDIR), NAME (EISDIR), NAME (EINVAL), NAME (ENFILE),
  NAME (EMFILE), NAME (ENOTTY), NAME (ETXTBSY), NAME (EFBIG),
  NAME (ENOSPC), NAME (ESPIPE), NAME (EROFS), NAME (EMLINK), NAME (EPIPE),
  NAME (EDOM), NAME (ERANGE), NAME (EDEADLK), NAME (ENAMETOOLONG),
  NAME (ENOLCK), NAME (ENOSYS), NAME (ENOTEMPTY), NAME (ELOOP),
  NAME (ENOMSG), NAME (EIDRM), NAME (ECHRNG), NAME (EL2NSYNC),
  NAME (EL3HLT), NAME (EL3RST), NAME (ELNRNG), NAME (EUNATCH),
  NAME (ENOCSI), NAME (EL2HLT), NAME (EBADE), NAME (EBADR), NAME (EXFULL),
  NAME (ENOANO), NAME (EBADRQC), NAME (EBADSLT), NAME (EBFONT),
  NAME (ENOSTR), NAME (ENODATA), NAME (ETIME), NAME (ENOSR),
  NAME (ENONET), NAME (ENOPKG), NAME (EREMOTE), NAME (ENOLINK),
  NAME (EADV), NAME (ESRMNT), NAME (ECOMM), NAME (EPROTO),
  NAME (EMULTIHOP), NAME (EDOTDOT), NAME (EBADMSG), NAME (EOVERFLOW),
  NAME (ENOTUNIQ), NAME (EBADFD), NAME (EREMCHG), NAME (ELIBACC),
  NAME (ELIBBAD), NAME (ELIBSCN), NAME (ELIBMAX), NAME (ELIBEXEC),
  NAME (EILSEQ), NAME (ERESTART), NAME (ESTRPIPE), NAME (EUSERS),
  NAME (ENOTSOCK), NAME (EDESTADDRREQ), NAME (EMSGSIZE),
  NAME (EPROTOTYPE), NAME (ENOPROTOOPT), NAME (EPROTONOSUPPORT),
  NAME (ESOCKTNOSUPPORT), NAME (EOPNOTSUPP), NAME (EPFNOSUPPORT),
  NAME (EAFNOSUPPORT), NAME (EADDRINUSE), NAME (EADDRNOTAVAIL),
  NAME (ENETDOWN), NAME (ENETUNREACH), NAME (ENETRESET),
  NAME (ECONNABORTED), NAME (ECONNRESET), NAME (ENOBUFS), NAME (EISCONN),
  NAME (ENOTCONN), NAME (ESHUTDOWN), NAME (ETOOMANYREFS),
  NAME (ETIMEDOUT), NAME (ECONNREFUSED), NAME (EHOSTDOWN),
  NAME (EHOSTUNREACH), NAME (EALREADY), NAME (EINPROGRESS), NAME (ESTALE),
  NAME (EUCLEAN), NAME (ENOTNAM), NAME (ENAVAIL), NAME (EISNAM),
  NAME (EREMOTEIO), NAME (EDQUOT), NAME (ENOMEDIUM), NAME (EMEDIUMTYPE),
  NAME (ECANCELED), NAME (ENOKEY), NAME (EKEYEXPIRED), NAME (EKEYREVOKED),
  NAME (EKEYREJECTED), NAME (EOWNERDEAD), NAME (ENOTRECOVERABLE),
  NAME (ERFKILL), NAME (EHWPOISON),
};

#undef NAME
#define NAME(s) [SIG##s] = #s

/* The standard signals' names without "SIG" (SIGIOT and SIGPOLL are
 * SIGABRT and SIGIO); the real-time ones have none, as in glibc.
 */
static const char *const signal_names[] = {
  NAME (HUP), NAME (INT), NAME (QUIT), NAME (ILL), NAME (TRAP), NAME (ABRT),
  NAME (BUS), NAME (FPE), NAME (KILL), NAME (USR1), NAME (SEGV),
  NAME (USR2), NAME (PIPE), NAME (ALRM), NAME (TERM), NAME (STKFLT),
  NAME (CHLD), NAME (CONT), NAME (STOP), NAME (TSTP), NAME (TTIN),
  NAME (TTOU), NAME (URG), NAME (XCPU), NAME (XFSZ), NAME (VTALRM),
  NAME (PROF), NAME (WINCH), NAME (IO), NAME (PWR), NAME (SYS),
};

#define COUNT(a) (sizeof (a) / sizeof ((a)[0]))

const char *
sb_compat_strerrorname_np (int errnum)
{
  return errnum > 0 && (size_t) errnum < COUNT (errno_names)
    ? errno_names[errnum] : NULL;
}

const char *
sb_compat_sigabbrev_np (int sig)
{
  return sig > 0 && (size_t) sig < COUNT (signal_names)
    ? signal_names[sig] : NULL;
}
#endif
