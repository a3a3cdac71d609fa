/* SPDX-License-Identifier: MIT */
/* The process's settings: the SOCKBOOST_* variables (rules/settings.h)
 * read from this process's environment once, their warnings logged.
 */
#ifndef SOCKBOOST_CONFIG_H
#define SOCKBOOST_CONFIG_H

#include "settings.h"

/* The process's settings, read on first use (thread-safe, no malloc). */
extern const struct sb_config *sb_config (void);

#endif /* SOCKBOOST_CONFIG_H */
