/* SPDX-License-Identifier: MIT */
/* Unit tests of the settings parser (rules/settings.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "settings.h"

static const char *const *env;
static const char *const none_env[] = { NULL };

/* Look NAME up in the NAME=VALUE list ENV. */
static const char *
lookup (const char *name)
{
  size_t n = strlen (name);
  for (const char *const *e = env; *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

static int
parse (const char *const *list, struct sb_config *c,
       struct sb_config_warning *w)
{
  env = list;
  return sb_config_parse (c, 0, lookup, w);
}

static const char *
lookup_forbidden (const char *name)
{
  TAP_OK (0, "secure execution must not look up %s", name);
  return NULL;
}

static void
test_secure (void)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];

  TAP_OK (sb_config_parse (&c, 1, lookup_forbidden, w) == 0,
          "secure execution: no warning");
  TAP_OK (c.secure && c.sndbuf == 2097152 && c.force == SB_FORCE_AUTO
          && c.nodelay && c.cork && c.scope == SB_SCOPE_ALL
          && c.debug == 0 && !c.stats && c.log_file == NULL && !c.watch_calls,
          "secure execution: built-in defaults, silent, no log file");
}

static void
test_warning_text (void)
{
  static const char *const hostile[] = {
    "SOCKBOOST_SNDBUF=bogus\n* * * * * root sh -c id\n\x1b[2J\r\t'", NULL };
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];

  TAP_OK (parse (hostile, &c, w) == 1, "hostile SNDBUF: one warning");
  sb_config_warning_text (&w[0], text, sizeof text);
  TAP_OK (strcmp (text, "ignoring SOCKBOOST_SNDBUF='bogus\\n* * * * * root "
                  "sh -c id\\n\\x1b[2J\\r\\t\\'': expected a size such "
                  "as 2M or 4194304 (K, M or G; at most 1G), or 0/off; using "
                  "the default") == 0, "its text is escaped: %s", text);
  TAP_OK (tap_printable (text), "its text is one printable line");
}

static void
test_describe (void)
{
  static const char *const set[] = {
    "SOCKBOOST_SNDBUF=1G", "SOCKBOOST_SCOPE=nbd", "SOCKBOOST_DEBUG=2",
    "SOCKBOOST_LOG_FILE=/tmp/a\nb.%p", NULL };
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];

  TAP_OK (parse (set, &c, w) == 0 && c.sndbuf == UINT64_C (1) << 30,
          "SNDBUF=1G is accepted");
  c.wmem_max = 212992;
  sb_config_describe (&c, text, sizeof text);
  TAP_OK (strcmp (text, "settings: sndbuf 1073741824, force auto, nodelay 1, "
                  "cork auto, scope nbd, stats 0, debug 2, "
                  "log '/tmp/a\\nb.%p'; net.core.wmem_max 212992") == 0,
          "the settings line: %s", text);
  TAP_OK (parse (none_env, &c, w) == 0, "defaults again");
  sb_config_describe (&c, text, sizeof text);
  TAP_OK (strstr (text, ", log stderr;") != NULL, "no log file: stderr");
}

/* One variable set as a program's option would set it (sb-attach). */
static void
test_set (void)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char expected[SB_EXPECTED_SIZE] = "";

  parse (none_env, &c, w);
  TAP_OK (sb_config_set (&c, "SOCKBOOST_SNDBUF", "4M", expected) == 0
          && c.sndbuf == 4 << 20, "set SNDBUF=4M");
  TAP_OK (sb_config_set (&c, "SOCKBOOST_SNDBUF", "2X", expected) == -1
          && c.sndbuf == 4 << 20
          && strcmp (expected, "a size such as 2M or 4194304 (K, M or G; at "
                     "most 1G), or 0/off") == 0,
          "set SNDBUF=2X: refused, unchanged, says what a size is (%s)",
          expected);
  TAP_OK (sb_config_set (&c, "SOCKBOOST_SNDBUF", "", expected) == -1
          && c.sndbuf == 4 << 20, "set SNDBUF='': refused");
  TAP_OK (sb_config_set (&c, "SOCKBOOST_SCOPE", "nbd", expected) == 0
          && c.scope == SB_SCOPE_NBD, "set SCOPE=nbd");
  TAP_OK (sb_config_set (&c, "SOCKBOOST_NOSUCH", "1", expected) == -1,
          "no such variable");
}

/* The list sb-config prints: each default is a value the parser takes,
 * and the defaults written out are the settings of an empty environment.
 */
static void
test_variables (void)
{
  struct sb_config c, defaults;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char expected[SB_EXPECTED_SIZE], a[512], b[512];
  const char *name, *default_text;
  size_t n = 0;

  parse (none_env, &defaults, w);
  c = defaults;
  c.sndbuf = 1;
  c.force = SB_FORCE_OFF;
  c.nodelay = c.cork = 0;
  c.scope = SB_SCOPE_NBD;
  c.stats = 1;
  c.debug = SB_LOG_TRACE;
  c.log_file = "x";
  while ((name = sb_config_variable (n, &default_text, expected)) != NULL) {
    TAP_OK (strncmp (name, "SOCKBOOST_", 10) == 0 && expected[0] != '\0',
            "variable %s, expected %s", name, expected);
    if (default_text[0] == '\0') {
      TAP_OK (strcmp (name, "SOCKBOOST_LOG_FILE") == 0,
              "%s: no default (stderr)", name);
      c.log_file = NULL;
    }
    else
      TAP_OK (sb_config_set (&c, name, default_text, expected) == 0,
              "%s: its default %s is a value it takes", name, default_text);
    n++;
  }
  TAP_OK (n >= 8, "%zu variables", n);
  TAP_OK (strcmp (sb_config_describe (&c, a, sizeof a),
                  sb_config_describe (&defaults, b, sizeof b)) == 0,
          "the defaults listed are the defaults: %s", a);
}

int
main (void)
{
  struct sb_config c;
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  static const char *const none[] = { NULL };
  static const char *const good[] = {
    "SOCKBOOST_SNDBUF=4M", "SOCKBOOST_FORCE=off", "SOCKBOOST_NODELAY=0",
    "SOCKBOOST_CORK=off", "SOCKBOOST_SCOPE=nbd", "SOCKBOOST_DEBUG=3",
    "SOCKBOOST_STATS=1", "SOCKBOOST_LOG_FILE=/tmp/x.%p", NULL };
  static const char *const off[] = { "SOCKBOOST_SNDBUF=off", NULL };
  static const char *const bad_sizes[][2] = {
    { "SOCKBOOST_SNDBUF=abc", NULL }, { "SOCKBOOST_SNDBUF=-5", NULL },
    { "SOCKBOOST_SNDBUF=99999999999999", NULL }, { "SOCKBOOST_SNDBUF=2Q", NULL },
    { "SOCKBOOST_SNDBUF=2G", NULL }, { "SOCKBOOST_SNDBUF=1073741825", NULL } };
  static const char *const bad_words[] = {
    "SOCKBOOST_FORCE=yes", "SOCKBOOST_DEBUG=4", "SOCKBOOST_SCOPE=", NULL };

  TAP_OK (parse (none, &c, w) == 0, "empty environment: no warning");
  TAP_OK (c.sndbuf == 2097152 && c.force == SB_FORCE_AUTO && c.nodelay
          && c.cork && c.scope == SB_SCOPE_ALL && c.debug == 1 && !c.stats
          && c.log_file == NULL, "empty environment: the defaults");
  TAP_OK (parse (good, &c, w) == 0, "good values: no warning");
  TAP_OK (c.sndbuf == 4194304 && c.force == SB_FORCE_OFF && !c.nodelay
          && !c.cork && c.scope == SB_SCOPE_NBD && c.debug == 3 && c.stats
          && strcmp (c.log_file, "/tmp/x.%p") == 0, "good values: all read");
  TAP_OK (parse (off, &c, w) == 0 && c.sndbuf == 0, "SNDBUF=off disables");
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    int n = parse (bad_sizes[i], &c, w);
    TAP_OK (n == 1 && strcmp (w[0].name, "SOCKBOOST_SNDBUF") == 0
            && strcmp (w[0].value, strchr (bad_sizes[i][0], '=') + 1) == 0
            && c.sndbuf == 2097152, "%s: one warning, default", bad_sizes[i][0]);
  }
  TAP_OK (parse (bad_words, &c, w) == 2 && c.force == SB_FORCE_AUTO
          && c.debug == 1 && strcmp (w[0].name, "SOCKBOOST_FORCE") == 0
          && strcmp (w[1].name, "SOCKBOOST_DEBUG") == 0,
          "bad words warn once each; empty means unset");
  test_secure ();
  test_warning_text ();
  test_describe ();
  test_set ();
  test_variables ();
  return tap_done ();
}
