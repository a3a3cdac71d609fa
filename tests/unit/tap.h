/* SPDX-License-Identifier: MIT */
/* Minimal TAP output for the C unit tests; assertions always on. */
#ifndef SOCKBOOST_TAP_H
#define SOCKBOOST_TAP_H

#undef NDEBUG
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

/* Report one check: "ok N - NAME" or "not ok N - NAME" with the location. */
#define TAP_OK(cond, ...)                                               \
  do {                                                                  \
    int tap_pass_ = !!(cond);                                           \
    printf ("%s %d - ", tap_pass_ ? "ok" : "not ok", ++tap_count);      \
    printf (__VA_ARGS__);                                               \
    printf ("\n");                                                      \
    if (!tap_pass_) {                                                   \
      tap_failed++;                                                     \
      printf ("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
    }                                                                   \
  } while (0)

/* Non-zero when every byte of S is printable ASCII (0x20-0x7e): the
 * property escaped log and error text must have.
 */
static inline int
tap_printable (const char *s)
{
  for (; *s; s++)
    if ((unsigned char) *s < 0x20 || (unsigned char) *s >= 0x7f)
      return 0;
  return 1;
}

/* Print the plan last (TAP allows it) and return the exit status. */
static inline int
tap_done (void)
{
  printf ("1..%d\n", tap_count);
  fflush (stdout);
  return tap_failed ? 1 : 0;
}

#endif /* SOCKBOOST_TAP_H */
