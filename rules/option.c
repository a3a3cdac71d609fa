/* SPDX-License-Identifier: MIT */
/* A program's option that stands for a SOCKBOOST_* variable (settings.h).
 * Apart from settings.c because it ends the program with a usage error,
 * which the library, which links settings.c, must never do.
 */
#include "escape.h"
#include "report.h"
#include "settings.h"

void
sb_config_option (struct sb_config *c, const char *option, const char *name,
                  const char *arg)
{
  char shown[SB_ESCAPE_SIZE (32)], expected[SB_EXPECTED_SIZE];

  if (sb_config_set (c, name, arg, expected) == -1)
    sb_usage_error ("invalid %s '%s': expected %s", option,
                    sb_escape_str (shown, sizeof shown, arg), expected);
}
