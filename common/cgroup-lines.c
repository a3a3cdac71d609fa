/* SPDX-License-Identifier: MIT */
/* The kernel's text about cgroup v1 hierarchies (cgroup-lines.h). */
#include <stdlib.h>
#include <string.h>

#include "cgroup-lines.h"

/* A decimal number of at most 9 digits at *P, ended by END; *P moves
 * past END.  0, or -1.
 */
static int
number (char **p, char end, unsigned *value)
{
  char *s = *p;
  unsigned v = 0;
  int digits = 0;

  for (; *s >= '0' && *s <= '9' && digits < 9; s++, digits++)
    v = v * 10 + (unsigned) (*s - '0');
  if (digits == 0 || *s != end)
    return -1;
  *value = v;
  *p = s + 1;
  return 0;
}

int
sb_cgroup_line_parse (char *line, struct sb_cgroup_line *l)
{
  char *colon;

  if (number (&line, ':', &l->id) == -1 ||
      (colon = strchr (line, ':')) == NULL)
    return -1;
  *colon = '\0';
  l->controllers = line;
  l->path = colon + 1;
  /* The path is the rest, colons and all; it starts at the root. */
  return l->path[0] == '/' ? 0 : -1;
}

bool
sb_list_has (const char *list, const char *name)
{
  size_t len = strlen (name);

  if (len == 0)
    return false;
  for (const char *p = list; p != NULL; p = strchr (p, ',')) {
    if (*p == ',')
      p++;
    if (strncmp (p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
      return true;
  }
  return false;
}

bool
sb_list_within (const char *list, const char *allowed)
{
  char element[64];

  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn (p, ",");
    if (len >= sizeof element)
      return false;
    memcpy (element, p, len);
    element[len] = '\0';
    if (!sb_list_has (allowed, element))
      return false;
    p += len;
    if (*p == ',')
      p++;
  }
  return true;
}

/* The next field of *P, ended by a space or the end; NULL at the end. */
static char *
field (char **p)
{
  char *f = *p, *space;

  if (*f == '\0')
    return NULL;
  space = strchr (f, ' ');
  if (space != NULL) {
    *space = '\0';
    *p = space + 1;
  }
  else
    *p = f + strlen (f);
  return f;
}

/* Undo, in place, the kernel's escape of a path in mountinfo: a
 * backslash and three octal digits for a space, tab, newline or
 * backslash.
 */
static void
unescape (char *s)
{
  char *out = s;

  for (; *s != '\0'; s++) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
        s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
      *out++ = (char) ((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
      s += 3;
    }
    else
      *out++ = *s;
  }
  *out = '\0';
}

int
sb_mount_line_parse (char *line, struct sb_mount_line *m)
{
  char *id, *parent, *device, *root, *mount_point, *f;

  if ((id = field (&line)) == NULL || (parent = field (&line)) == NULL ||
      (device = field (&line)) == NULL || (root = field (&line)) == NULL ||
      (mount_point = field (&line)) == NULL || field (&line) == NULL)
    return -1;
  /* The optional fields end at a lone "-". */
  while ((f = field (&line)) != NULL && strcmp (f, "-") != 0)
    ;
  if (f == NULL || (m->type = field (&line)) == NULL ||
      field (&line) == NULL || (m->super_options = field (&line)) == NULL)
    return -1;
  if (number (&device, ':', &m->major) == -1 ||
      number (&device, '\0', &m->minor) == -1)
    return -1;
  unescape (root);
  unescape (mount_point);
  m->root = root;
  m->mount_point = mount_point;
  return 0;
}
