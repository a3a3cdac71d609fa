/* SPDX-License-Identifier: MIT */
/* Host mode's parts, said (parts.h). */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "load.h"
#include "parts.h"

void
sb_host_parts_text (const char *prefix, unsigned parts, int tcp_by_watcher)
{
  printf ("%sparts:", prefix);
  for (int p = 0; p < SB_HOST_NPARTS; p++)
    printf ("%s %s %s", p ? "," : "", sb_host_part_name[p],
            parts & SB_HOST_PART_BIT (p) ? "on" : "off");
  printf ("%s\n", tcp_by_watcher ? " (TCP by the watcher)" : "");
}

void
sb_host_parts_json (unsigned parts,
                    const char why[SB_HOST_NPARTS][SB_HOST_PART_WHY_LEN])
{
  char text[SB_HOST_PART_WHY_LEN + 1];

  printf ("{");
  for (int p = 0; p < SB_HOST_NPARTS; p++) {
    int on = (parts & SB_HOST_PART_BIT (p)) != 0;
    printf ("%s\"%s\": {\"on\": %s, \"why\": ", p ? ", " : "",
            sb_host_part_name[p], on ? "true" : "false");
    memcpy (text, why[p], SB_HOST_PART_WHY_LEN);
    text[SB_HOST_PART_WHY_LEN] = '\0';
    if (on || text[0] == '\0')
      printf ("null");
    else
      sb_json_string (stdout, text);
    printf ("}");
  }
  printf ("}");
}
