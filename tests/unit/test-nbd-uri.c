/* SPDX-License-Identifier: MIT */
/* Unit tests for sb_nbd_uri_parse. */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "nbd-uri.h"

static int
same (const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return strcmp (a, b) == 0;
}

static void
expect_tcp (const char *text, const char *host, const char *port,
            const char *name)
{
  struct sb_nbd_uri u;
  const char *why = NULL;
  int r = sb_nbd_uri_parse (text, &u, &why);

  TAP_OK (r == 0 && u.transport == SB_NBD_TCP && same (u.host, host) &&
          same (u.port, port) && same (u.name, name) && u.socket == NULL,
          "%s is tcp host '%s' port %s name '%s'", text, host, port, name);
  if (r == -1)
    printf ("#   refused: %s\n", why);
  else
    sb_nbd_uri_free (&u);
}

static void
expect_unix (const char *text, const char *socket, const char *name)
{
  struct sb_nbd_uri u;
  const char *why = NULL;
  int r = sb_nbd_uri_parse (text, &u, &why);

  TAP_OK (r == 0 && u.transport == SB_NBD_UNIX && same (u.socket, socket) &&
          same (u.name, name) && u.host == NULL,
          "%s is unix socket '%s' name '%s'", text, socket, name);
  if (r == -1)
    printf ("#   refused: %s\n", why);
  else
    sb_nbd_uri_free (&u);
}

/* Refused with EINVAL, and the reason contains WORD. */
static void
expect_error (const char *text, const char *word)
{
  struct sb_nbd_uri u;
  const char *why = NULL;
  int r;

  errno = 0;
  r = sb_nbd_uri_parse (text, &u, &why);
  TAP_OK (r == -1 && errno == EINVAL && why != NULL && strstr (why, word),
          "'%s' is refused (%s)", text, why ? why : "no reason");
  if (r == 0)
    sb_nbd_uri_free (&u);
}

int
main (void)
{
  expect_tcp ("nbd://localhost/disk", "localhost", "10809", "disk");
  expect_tcp ("nbd://127.0.0.1:1234/", "127.0.0.1", "1234", "");
  expect_tcp ("nbd://example.org", "example.org", "10809", "");
  expect_tcp ("NBD://h:65535/a/b", "h", "65535", "a/b");
  expect_tcp ("nbd://[::1]/x", "::1", "10809", "x");
  expect_tcp ("nbd://[::1]:99/x", "::1", "99", "x");
  expect_tcp ("nbd://[fe80::1%25eth0]:99/", "fe80::1%eth0", "99", "");
  expect_tcp ("nbd://h/a%20b%2Fc", "h", "10809", "a b/c");
  expect_tcp ("nbd://h/+%41", "h", "10809", "+A");

  expect_unix ("nbd+unix:///disk?socket=/tmp/s", "/tmp/s", "disk");
  expect_unix ("nbd+unix://?socket=/tmp/s", "/tmp/s", "");
  expect_unix ("nbd+unix:///?socket=rel/s%20x", "rel/s x", "");
  expect_unix ("nbd+unix:///e?socket=/a&socket=/b", "/b", "e");

  expect_error ("", "not an NBD URI");
  expect_error ("/tmp/sock", "not an NBD URI");
  expect_error ("http://h/", "unknown scheme");
  expect_error ("nbds://h/", "TLS");
  expect_error ("nbds+unix:///?socket=/s", "TLS");
  expect_error ("nbd+vsock://1/", "vsock");
  expect_error ("nbd:///x", "no host");
  expect_error ("nbd://:99/x", "no host");
  expect_error ("nbd://h:0/", "port");
  expect_error ("nbd://h:65536/", "port");
  expect_error ("nbd://h:/", "port");
  expect_error ("nbd://h:12a/", "port");
  expect_error ("nbd://::1/", "brackets");
  expect_error ("nbd://[::1/", "IPv6");
  expect_error ("nbd://[]/", "IPv6");
  expect_error ("nbd://[::1]x/", "after ]");
  expect_error ("nbd://u@h/", "user");
  expect_error ("nbd://h/x#frag", "fragment");
  expect_error ("nbd://h/x%2", "percent");
  expect_error ("nbd://h/x%zz", "percent");
  expect_error ("nbd://h/x%00y", "%00");
  expect_error ("nbd://h/x?socket=/s", "nbd+unix");
  expect_error ("nbd://h/x?tls=on", "query");
  expect_error ("nbd+unix:///x", "socket=");
  expect_error ("nbd+unix:///x?socket=", "socket=");
  expect_error ("nbd+unix://host/x?socket=/s", "no host");
  {
    char longpath[300 + 40];
    memset (longpath, 0, sizeof longpath);
    strcpy (longpath, "nbd+unix:///?socket=/");
    memset (longpath + strlen (longpath), 'a', 200);
    expect_error (longpath, "too long");
  }
  return tap_done ();
}
