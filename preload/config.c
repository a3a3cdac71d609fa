/* SPDX-License-Identifier: MIT */
/* Environment parsing.  A bad value never stops the host program: it gets
 * one warning and the default.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "config.h"
#include "escape.h"
#include "log.h"
#include "parse-size.h"
#include "real.h"

/* Map VALUE to the index of a matching word in WORDS, -1 if none. */
static int
word_index (const char *value, const char *const *words)
{
  for (int i = 0; words[i]; i++)
    if (strcmp (value, words[i]) == 0)
      return i;
  return -1;
}

struct parse_state {
  const char *(*lookup) (const char *name);
  struct sb_config_warning *w;
  int nw;
};

static void
warn (struct parse_state *s, const char *name, const char *value,
      const char *expected)
{
  if (s->nw < SB_CONFIG_MAX_WARNINGS)
    s->w[s->nw++] = (struct sb_config_warning) { name, value, expected };
}

/* Set *OUT to VALUES[i] for the word i that the variable NAME holds. */
static void
parse_choice (struct parse_state *s, const char *name,
              const char *const *words, const int *values, int *out,
              const char *expected)
{
  const char *v = s->lookup (name);
  int i;
  if (v == NULL || *v == '\0')
    return;
  i = word_index (v, words);
  if (i < 0)
    warn (s, name, v, expected);
  else
    *out = values[i];
}

static void
parse_sndbuf (struct parse_state *s, struct sb_config *c)
{
  const char *v = s->lookup ("SOCKBOOST_SNDBUF");
  uint64_t size;
  if (v == NULL || *v == '\0')
    return;
  if (strcmp (v, "off") == 0)
    c->sndbuf = 0;
  else if (sb_parse_size (v, SB_SNDBUF_MAX, &size) == 0)
    c->sndbuf = size;
  else
    warn (s, "SOCKBOOST_SNDBUF", v,
          "a size such as 2M or 4194304 (K, M or G; at most 1G), or 0/off");
}

static const char *const bool_words[] = { "0", "1", "off", "on", "no", "yes",
                                          NULL };
static const int bool_values[] = { 0, 1, 0, 1, 0, 1 };

int
sb_config_parse (struct sb_config *c, int secure,
                 const char *(*lookup) (const char *),
                 struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS])
{
  static const char *const force_words[] = { "auto", "on", "off", NULL };
  static const int force_values[] = { SB_FORCE_AUTO, SB_FORCE_ON, SB_FORCE_OFF };
  static const char *const cork_words[] = { "auto", "off", NULL };
  static const int cork_values[] = { 1, 0 };
  static const char *const scope_words[] = { "all", "nbd", NULL };
  static const int scope_values[] = { SB_SCOPE_ALL, SB_SCOPE_NBD };
  static const char *const debug_words[] = { "0", "1", "2", "3", NULL };
  static const int debug_values[] = { 0, 1, 2, 3 };
  struct parse_state s = { lookup, w, 0 };
  int force = SB_FORCE_AUTO, scope = SB_SCOPE_ALL;
  const char *log_file;

  *c = (struct sb_config) { .sndbuf = SB_SNDBUF_DEFAULT, .nodelay = 1,
                            .cork = 1, .debug = SB_LOG_WARN, .wmem_max = -1 };
  if (secure) {
    c->secure = 1;
    c->debug = SB_LOG_SILENT;
    return 0;
  }
  parse_sndbuf (&s, c);
  parse_choice (&s, "SOCKBOOST_FORCE", force_words, force_values, &force,
                "auto, on or off");
  parse_choice (&s, "SOCKBOOST_NODELAY", bool_words, bool_values, &c->nodelay,
                "1 or 0");
  parse_choice (&s, "SOCKBOOST_CORK", cork_words, cork_values, &c->cork,
                "auto or off");
  parse_choice (&s, "SOCKBOOST_SCOPE", scope_words, scope_values, &scope,
                "all or nbd");
  parse_choice (&s, "SOCKBOOST_DEBUG", debug_words, debug_values, &c->debug,
                "0, 1, 2 or 3");
  parse_choice (&s, "SOCKBOOST_STATS", bool_words, bool_values, &c->stats,
                "1 or 0");
  c->force = (enum sb_force) force;
  c->scope = (enum sb_scope) scope;
  log_file = lookup ("SOCKBOOST_LOG_FILE");
  c->log_file = log_file && *log_file ? log_file : NULL;
  c->watch_calls = c->stats || c->debug >= SB_LOG_TRACE;
  return s.nw;
}

const char *
sb_config_warning_text (const struct sb_config_warning *w, char *buf,
                        size_t size)
{
  char value[256];

  snprintf (buf, size, "ignoring %s='%s': expected %s; using the default",
            w->name, sb_escape_str (value, sizeof value, w->value),
            w->expected);
  return buf;
}

const char *
sb_config_describe (const struct sb_config *c, char *buf, size_t size)
{
  static const char *const force_names[] = { "auto", "on", "off" };
  char log_file[256];

  snprintf (buf, size, "settings: sndbuf %llu, force %s, nodelay %d, "
            "cork %s, scope %s, stats %d, debug %d, log %s%s%s; "
            "net.core.wmem_max %ld",
            (unsigned long long) c->sndbuf, force_names[c->force],
            c->nodelay, c->cork ? "auto" : "off",
            c->scope == SB_SCOPE_NBD ? "nbd" : "all", c->stats, c->debug,
            c->log_file ? "'" : "",
            c->log_file ? sb_escape_str (log_file, sizeof log_file,
                                         c->log_file) : "stderr",
            c->log_file ? "'" : "", c->wmem_max);
  return buf;
}

/* net.core.wmem_max, read with plain syscalls (no stdio in the library). */
static long
read_wmem_max (void)
{
  char buf[32];
  ssize_t n;
  long value = 0;
  int fd = open ("/proc/sys/net/core/wmem_max", O_RDONLY | O_CLOEXEC);

  if (fd == -1)
    return -1;
  n = sb_real.read ? sb_real.read (fd, buf, sizeof buf - 1) : -1;
  if (sb_real.close)
    sb_real.close (fd);
  if (n <= 0)
    return -1;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
    value = value * 10 + (buf[i] - '0');
  return value;
}

long
sb_config_wmem_max (void)
{
  sb_real_bind ();
  return read_wmem_max ();
}

static const char *
lookup_env (const char *name)
{
  return getenv (name);
}

/* Secure execution (setuid, setgid, file capabilities, also when loaded
 * from /etc/ld.so.preload): the environment belongs to a less privileged
 * user, so none of it is read.
 */
static int
secure_execution (void)
{
  return getauxval (AT_SECURE) != 0;
}

static struct sb_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
/* Set once CONFIG is filled: later calls skip pthread_once (hot path). */
static atomic_bool config_loaded;

static void
load_config (void)
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  int saved = errno, n;

  char text[512];

  sb_real_bind ();
  n = sb_config_parse (&config, secure_execution (), lookup_env, w);
  sb_log_setup (config.debug, config.log_file);
  for (int i = 0; i < n; i++)
    sb_log (SB_LOG_WARN, "%s",
            sb_config_warning_text (&w[i], text, sizeof text));
  config.wmem_max = sb_config_wmem_max ();
  sb_log (SB_LOG_INFO, "%s", sb_config_describe (&config, text, sizeof text));
  atomic_store_explicit (&config_loaded, true, memory_order_release);
  errno = saved;
}

const struct sb_config *
sb_config (void)
{
  if (!atomic_load_explicit (&config_loaded, memory_order_acquire))
    pthread_once (&config_once, load_config);
  return &config;
}
