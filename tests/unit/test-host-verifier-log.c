/* SPDX-License-Identifier: MIT */
/* Unit tests for reading libbpf's messages about a refused program: the
 * verifier's verdict out of its log (as libbpf 1.x and 0.3 frame it,
 * from the refusals seen on Linux 5.10 and 6.12.117), and the program a
 * message names.
 */
#include <string.h>

#include "tap.h"
#include "verifier-log.h"

static void
expect_reason (const char *log, int status, const char *want, const char *what)
{
  char got[256];
  int r = sb_host_verifier_reason (log, got, sizeof got);

  TAP_OK (r == status && strcmp (got, want) == 0 && tap_printable (got),
          "%s: \"%s\" (got \"%s\")", what, want, got);
}

static void
expect_program (const char *message, int status, const char *want,
                const char *what)
{
  char got[64];
  int r = sb_host_libbpf_program (message, got, sizeof got);

  TAP_OK (r == status && strcmp (got, want) == 0, "%s: \"%s\" (got \"%s\")",
          what, want, got);
}

int
main (void)
{
  expect_reason ("prog 'sb_host_tcp_bind4': -- BEGIN PROG LOAD LOG --\n"
                 "0: R1=ctx(id=0,off=0,imm=0) R10=fp0\n"
                 "; int sb_host_tcp_bind4 (struct bpf_sock_addr *ctx)\n"
                 "42: (85) call bpf_setsockopt#49\n"
                 "unknown func bpf_setsockopt#49\n"
                 "processed 45 insns (limit 1000000) max_states_per_insn 0 "
                 "total_states 3 peak_states 3 mark_read 2\n"
                 "-- END PROG LOAD LOG --\n", 0,
                 "unknown func bpf_setsockopt#49", "libbpf 1.x, Linux 5.10");
  expect_reason ("\n0: R1=ctx(id=0,off=0,imm=0) R10=fp0\n"
                 "42: (85) call bpf_setsockopt#49\n"
                 "unknown func bpf_setsockopt#49\n"
                 "processed 45 insns (limit 1000000) max_states_per_insn 0 "
                 "total_states 3 peak_states 3 mark_read 2\n\n", 0,
                 "unknown func bpf_setsockopt#49", "libbpf 0.3's own message");
  expect_reason ("prog 'sb_host_unix_getsockname': -- BEGIN PROG LOAD LOG --\n"
                 "0: R1=ctx() R10=fp0\n"
                 "57: (85) call bpf_getsockopt#57\n"
                 "program of this type cannot use helper bpf_getsockopt#57\n"
                 "verification time 38 usec\n"
                 "stack depth 64+0\n"
                 "processed 61 insns (limit 1000000) max_states_per_insn 0 "
                 "total_states 4 peak_states 4 mark_read 2\n"
                 "-- END PROG LOAD LOG --\n", 0,
                 "program of this type cannot use helper bpf_getsockopt#57",
                 "statistics in any order, Linux 6.12.117");
  expect_reason ("R2 type=scalar expected=fp\tand\x1b[31m red\n", 0,
                 "R2 type=scalar expected=fp\\tand\\x1b[31m red",
                 "control characters escaped");
  expect_reason ("prog 'x': -- BEGIN PROG LOAD LOG --\n-- END PROG LOAD LOG --\n",
                 -1, "", "an empty log says nothing");
  expect_reason ("", -1, "", "no log");
  expect_program ("prog 'sb_host_tcp_bind4': failed to load: -22\n", 0,
                  "sb_host_tcp_bind4", "libbpf 1.x names the program");
  expect_program ("failed to load program 'sb_host_unix_connect'\n", 0,
                  "sb_host_unix_connect", "libbpf 0.3 names it so");
  expect_program ("failed to load object 'sockboost_host'\n", -1, "",
                  "an object is not a program");
  expect_program ("prog '': weird\n", -1, "", "an empty name is none");
  return tap_done ();
}
