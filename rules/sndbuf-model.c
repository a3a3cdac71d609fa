/* SPDX-License-Identifier: MIT */
/* A model of the kernel's SO_SNDBUF: a request clipped at wmem_max unless
 * forced, then doubled, never below the kernel's minimum.  See
 * sndbuf-model.h.
 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sndbuf-model.h"
#include "tuning.h"

/* sb_sndbuf_raise takes a plain setter: this is the model it sets. */
static struct sb_sndbuf_model *current;

int
sb_sndbuf_model_probe (struct sb_sndbuf_model *m)
{
  int sv[2], zero = 0;

  *m = (struct sb_sndbuf_model) { .wmem_max = sb_wmem_max (NULL) };
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
    return -1;
  if (sb_get_int (sv[0], SOL_SOCKET, SO_SNDBUF, &m->wmem_default) == -1)
    m->wmem_default = -1;
  m->can_force = setsockopt (sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &zero,
                             sizeof zero) == 0;
  if (setsockopt (sv[0], SOL_SOCKET, SO_SNDBUF, &zero, sizeof zero) == -1
      || sb_get_int (sv[0], SOL_SOCKET, SO_SNDBUF, &m->min_tb) == -1)
    m->min_tb = 0;
  close (sv[0]);
  close (sv[1]);
  return 0;
}

static int
set_modelled (int fd, int level, int name, int value)
{
  long long v = value;

  (void) fd, (void) level;
  if (name == SO_SNDBUFFORCE && !current->can_force) {
    errno = EPERM;
    return -1;
  }
  if (name == SO_SNDBUF && current->wmem_max >= 0 && v > current->wmem_max)
    v = current->wmem_max;
  current->granted = 2 * v > current->min_tb ? (int) (2 * v)
                                             : current->min_tb;
  return 0;
}

int
sb_sndbuf_model_raise (struct sb_sndbuf_model *m, int before,
                       const struct sb_config *c, int *tb, bool *clipped)
{
  int option;

  current = m;
  option = sb_sndbuf_raise (-1, before, c, set_modelled, clipped);
  *tb = option == -1 ? before : m->granted;
  return option;
}

int
sb_sndbuf_model_program_sets (struct sb_sndbuf_model *m, int bytes)
{
  current = m;
  set_modelled (-1, SOL_SOCKET, SO_SNDBUF, bytes);
  return m->granted;
}
