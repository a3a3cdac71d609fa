/* SPDX-License-Identifier: MIT */
/* The library reads what a program is about to send only to decide
 * MSG_MORE, and then never with a plain load: a buffer the kernel would
 * answer with EFAULT (NULL, unmapped, PROT_NONE) must not kill the
 * program.  process_vm_readv on the process itself copies through the
 * kernel's own checked accessors and fails with EFAULT instead.  Where
 * the kernel refuses the call itself (ENOSYS without cross-memory
 * attach, EPERM under a seccomp filter or a security module), the
 * library stops asking and adds no MSG_MORE from then on.  Bytes the
 * kernel reports as sent are read directly afterwards: it has just read
 * them itself.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>

#include "log.h"
#include "peek.h"
#include "track.h"

static atomic_bool refused;

/* The kernel would not read for us: say so once, then stop asking. */
static void
note_refusal (int err)
{
  if (!atomic_exchange (&refused, true))
    sb_log (SB_LOG_INFO, "cannot read a send's bytes ahead of it "
            "(process_vm_readv: %s): no MSG_MORE added from now on",
            strerrorname_np (err) ? strerrorname_np (err) : "?");
}

/* Copy through the kernel the TOTAL bytes that REMOTE (N pieces of the
 * program's memory) describe into DST.
 */
static bool
copy_in (void *dst, const struct iovec *remote, int n, size_t total)
{
  struct iovec local = { dst, total };
  int saved = errno;
  ssize_t r;

  if (atomic_load_explicit (&refused, memory_order_relaxed))
    return false;
  r = process_vm_readv (sb_track_owner (), &local, 1, remote,
                        (unsigned long) n, 0);
  /* A vfork child reads its parent's memory, which a security module
   * may refuse it (Yama): that says nothing of the parent.
   */
  if (r == -1 && errno != EFAULT && !sb_track_foreign ())
    note_refusal (errno);
  errno = saved;
  return r >= 0 && (size_t) r == total;
}

bool
sb_peek (void *dst, const void *src, size_t len)
{
  struct iovec remote = { (void *) (uintptr_t) src, len };

  return len == 0 || copy_in (dst, &remote, 1, len);
}

/* Read LEN bytes at offset OFF of W's send into W's buffer. */
static bool
fill (struct sb_peek_window *w, size_t off, size_t len)
{
  struct iovec remote[SB_PEEK_IOV_MAX];
  size_t skip = off, want = len;
  int n = 0;

  for (int i = 0; i < w->iovcnt && want > 0 && n < SB_PEEK_IOV_MAX; i++) {
    size_t piece = w->iov[i].iov_len;
    if (skip >= piece) {
      skip -= piece;
      continue;
    }
    piece -= skip;
    if (piece > want)
      piece = want;
    /* Integer arithmetic: the program's pointer may be anything. */
    remote[n++] = (struct iovec) {
      (void *) ((uintptr_t) w->iov[i].iov_base + skip), piece };
    want -= piece;
    skip = 0;
  }
  if (want > 0 || !copy_in (w->buf, remote, n, len))
    return false;
  w->start = off;
  w->len = len;
  return true;
}

bool
sb_peek_read (void *ctx, size_t off, void *dst, size_t len)
{
  struct sb_peek_window *w = ctx;

  if (off < w->start || len > w->len || off - w->start > w->len - len) {
    w->missed = true;
    w->wanted = off;
    return false;
  }
  memcpy (dst, w->buf + (off - w->start), len);
  return true;
}

bool
sb_peek_fill (struct sb_peek_window *w)
{
  size_t off = w->wanted;
  size_t n = off < w->total ? w->total - off : 0;

  w->missed = false;
  if (n > SB_PEEK_WINDOW)
    n = SB_PEEK_WINDOW;
  return n > 0 && fill (w, off, n);
}
