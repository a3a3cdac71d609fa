/* SPDX-License-Identifier: MIT */
/* The hooked calls as the program calls them: through libc, which is
 * where LD_PRELOAD puts the library in front.
 */
#include <sys/sendfile.h>
#include <unistd.h>
#include <fcntl.h>

#include "../progs/close-range.h"
#include "difftest.h"

const struct dt_calls dt_libc_calls = {
  .socket = socket, .socketpair = socketpair, .connect = connect,
  .accept = accept, .accept4 = accept4, .setsockopt = setsockopt,
  .close = close, .dup2 = dup2, .dup3 = dup3, .close_range = close_range,
  .send = send, .sendto = sendto, .sendmsg = sendmsg, .write = write,
  .writev = writev, .sendmmsg = sendmmsg, .sendfile = sendfile,
  .splice = splice, .recv = recv, .recvfrom = recvfrom,
  .recvmsg = recvmsg, .read = read, .readv = readv, .recvmmsg = recvmmsg,
  .processes = true,
};
