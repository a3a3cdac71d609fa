/* SPDX-License-Identifier: MIT */
/* `sbnbd-client info`: what the handshake learned about the export. */
#include <stdio.h>

#include "client.h"
#include "json.h"
#include "nbd-protocol.h"

static const struct {
  uint16_t bit;
  const char *name;
} flag_names[] = {
  { NBD_FLAG_HAS_FLAGS, "has_flags" },
  { NBD_FLAG_READ_ONLY, "read_only" },
  { NBD_FLAG_SEND_FLUSH, "send_flush" },
  { NBD_FLAG_SEND_FUA, "send_fua" },
  { NBD_FLAG_ROTATIONAL, "rotational" },
  { NBD_FLAG_SEND_TRIM, "send_trim" },
  { NBD_FLAG_SEND_WRITE_ZEROES, "send_write_zeroes" },
  { NBD_FLAG_SEND_DF, "send_df" },
  { NBD_FLAG_CAN_MULTI_CONN, "can_multi_conn" },
  { NBD_FLAG_SEND_CACHE, "send_cache" },
  { NBD_FLAG_SEND_FAST_ZERO, "send_fast_zero" },
};
#define NFLAGS (sizeof flag_names / sizeof flag_names[0])

/* Flag names separated by SEP, each wrapped in QUOTE. */
static void
print_flags (uint16_t eflags, const char *sep, const char *quote)
{
  const char *s = "";
  size_t i;

  for (i = 0; i < NFLAGS; i++) {
    if (eflags & flag_names[i].bit) {
      printf ("%s%s%s%s", s, quote, flag_names[i].name, quote);
      s = sep;
    }
  }
}

static void
print_json (const char *name, const struct export_info *info)
{
  printf ("{\"export\": ");
  sb_json_string (stdout, name);
  printf (", \"size\": %llu, \"flags\": %u, \"flag_names\": [",
          (unsigned long long) info->size, info->eflags);
  print_flags (info->eflags, ", ", "\"");
  printf ("], \"structured_replies\": %s, \"extended_headers\": %s, "
          "\"base_allocation\": %s, \"negotiation\": \"%s\"",
          info->structured ? "true" : "false",
          info->extended ? "true" : "false",
          info->allocation ? "true" : "false",
          info->used_go ? "go" : "export_name");
  if (info->have_block_size)
    printf (", \"block_size\": {\"minimum\": %u, \"preferred\": %u, "
            "\"maximum\": %u}", info->min_block, info->pref_block,
            info->max_block);
  printf ("}\n");
}

static void
print_text (const char *name, const struct export_info *info)
{
  char shown[ESCAPED_VALUE_SIZE];

  /* One line per field, whatever the name holds. */
  printf ("export: %s\n", sb_escape_str (shown, sizeof shown, name));
  printf ("size: %llu\n", (unsigned long long) info->size);
  printf ("flags: 0x%04x", info->eflags);
  if (info->eflags != 0)
    putchar (' ');
  print_flags (info->eflags, " ", "");
  printf ("\nstructured replies: %s\n", info->structured ? "yes" : "no");
  printf ("extended headers: %s\n", info->extended ? "yes" : "no");
  printf ("base:allocation: %s\n", info->allocation ? "yes" : "no");
  printf ("negotiation: %s\n", info->used_go ? "NBD_OPT_GO"
          : "NBD_OPT_EXPORT_NAME");
  if (info->have_block_size)
    printf ("block size: minimum %u preferred %u maximum %u\n",
            info->min_block, info->pref_block, info->max_block);
  else
    printf ("block size: not advertised\n");
}

void
info_print (const char *name, const struct export_info *info, bool json)
{
  if (json)
    print_json (name, info);
  else
    print_text (name, info);
}
