/* SPDX-License-Identifier: MIT */
/* Reading libbpf's messages (verifier-log.h).  A verifier log ends with
 * statistics ("processed 45 insns ...", "verification time ...", "stack
 * depth ..."); the line before them is the verifier's verdict.  libbpf
 * 1.x frames the log in one message ("prog 'x': -- BEGIN PROG LOAD LOG
 * --" ... "-- END PROG LOAD LOG --"); 0.3 gives it a message of its own.
 */
#include <string.h>

#include "escape.h"
#include "verifier-log.h"

/* Whether LINE (LEN bytes) says nothing of why. */
static int
uninformative (const char *line, size_t len)
{
  static const char *const skipped[] = {
    "processed ", "verification time", "stack depth", "; ", "-- ",
    "prog '", "libbpf: ", "func#", "mark_precise",
  };

  while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
    len--;
  if (len == 0)
    return 1;
  for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
    if (len >= strlen (skipped[i]) &&
        strncmp (line, skipped[i], strlen (skipped[i])) == 0)
      return 1;
  return 0;
}

int
sb_host_verifier_reason (const char *log, char *buf, size_t size)
{
  const char *end = log + strlen (log);

  if (size > 0)
    buf[0] = '\0';
  while (end > log) {
    const char *start = end;
    while (start > log && start[-1] != '\n')
      start--;
    if (!uninformative (start, (size_t) (end - start))) {
      sb_escape (buf, size, start, (size_t) (end - start));
      return 0;
    }
    end = start > log ? start - 1 : log;
  }
  return -1;
}

int
sb_host_libbpf_program (const char *message, char *buf, size_t size)
{
  static const char *const openers[] = { "prog '", "program '" };

  if (size > 0)
    buf[0] = '\0';
  for (size_t i = 0; i < sizeof openers / sizeof openers[0]; i++) {
    const char *name = strstr (message, openers[i]), *close;
    if (name == NULL)
      continue;
    name += strlen (openers[i]);
    close = strchr (name, '\'');
    if (close != NULL && close > name) {
      sb_escape (buf, size, name, (size_t) (close - name));
      return 0;
    }
  }
  return -1;
}
