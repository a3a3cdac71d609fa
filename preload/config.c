/* SPDX-License-Identifier: MIT */
/* The settings of the process the library is loaded into: its own
 * environment, parsed once by the rules (rules/settings.c), each malformed
 * variable one warning in the log.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "config.h"
#include "log.h"
#include "real.h"
#include "tuning.h"

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

/* net.core.wmem_max, read with the real calls: the hooks are the host's. */
static long
read_wmem_max (void)
{
  struct sb_file_calls real;

  sb_real_bind ();
  if (sb_real.read == NULL || sb_real.close == NULL)
    return -1;
  real = (struct sb_file_calls) { sb_real.read, sb_real.close };
  return sb_wmem_max (&real);
}

static struct sb_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
/* Set once CONFIG is filled: later calls skip pthread_once (hot path). */
static atomic_bool config_loaded;

static void
load_config (void)
{
  struct sb_config_warning w[SB_CONFIG_MAX_WARNINGS];
  char text[512];
  int saved = errno, n;

  sb_real_bind ();
  n = sb_config_parse (&config, secure_execution (), lookup_env, w);
  sb_log_setup (config.debug, config.log_file);
  for (int i = 0; i < n; i++)
    sb_log (SB_LOG_WARN, "%s",
            sb_config_warning_text (&w[i], text, sizeof text));
  config.wmem_max = read_wmem_max ();
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
