/* SPDX-License-Identifier: MIT */
/* NBD URI parsing (the subset of the NBD URI format without TLS).
 * Pure: no I/O, no globals; every failure says why in words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#include "nbd-protocol.h"
#include "nbd-uri.h"

#define URI_SYNTAX \
  "expected nbd://host[:port]/name or nbd+unix:///name?socket=PATH"

static int
fail (const char **why, const char *reason)
{
  *why = reason;
  errno = EINVAL;
  return -1;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Copy LEN bytes of S into a new string in *OUT, undoing %XX escapes. */
static int
percent_decode (const char *s, size_t len, char **out, const char **why)
{
  char *d = malloc (len + 1);
  size_t i, n = 0;

  if (d == NULL)
    return -1;
  for (i = 0; i < len; i++) {
    int hi, lo;

    if (s[i] != '%') {
      d[n++] = s[i];
      continue;
    }
    hi = i + 2 < len ? hex_value (s[i + 1]) : -1;
    lo = hi >= 0 ? hex_value (s[i + 2]) : -1;
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
      free (d);
      return fail (why, hi == 0 && lo == 0 ? "%00 is not allowed"
                   : "bad percent escape (expected %XX with hex digits)");
    }
    d[n++] = (char) (hi * 16 + lo);
    i += 2;
  }
  d[n] = '\0';
  *out = d;
  return 0;
}

/* "nbd", "nbd+unix": the transport; anything else is refused with why. */
static int
parse_scheme (const char *s, size_t len, struct sb_nbd_uri *uri,
              const char **why)
{
  if (len == 3 && strncasecmp (s, "nbd", 3) == 0)
    uri->transport = SB_NBD_TCP;
  else if (len == 8 && strncasecmp (s, "nbd+unix", 8) == 0)
    uri->transport = SB_NBD_UNIX;
  else if (len >= 4 && strncasecmp (s, "nbds", 4) == 0)
    return fail (why, "TLS (nbds://) is not supported");
  else if (len == 9 && strncasecmp (s, "nbd+vsock", 9) == 0)
    return fail (why, "vsock transport is not supported");
  else
    return fail (why, "unknown scheme: " URI_SYNTAX);
  return 0;
}

static int
parse_port (const char *s, size_t len, char **out, const char **why)
{
  unsigned long v = 0;
  size_t i;

  if (len == 0 || len > 5)
    return fail (why, "bad port (expected 1 to 65535)");
  for (i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return fail (why, "bad port (expected 1 to 65535)");
    v = v * 10 + (unsigned long) (s[i] - '0');
  }
  if (v == 0 || v > 65535)
    return fail (why, "bad port (expected 1 to 65535)");
  *out = strndup (s, len);
  return *out == NULL ? -1 : 0;
}

/* host, host:port, [v6], [v6]:port. */
static int
parse_authority (const char *s, size_t len, struct sb_nbd_uri *uri,
                 const char **why)
{
  const char *host = s, *colon, *end = s + len;
  size_t hostlen;

  if (len == 0)
    return fail (why, "no host (for a unix socket use nbd+unix:///name?socket=PATH)");
  if (memchr (s, '@', len) != NULL)
    return fail (why, "user names (user@host) are not supported");
  if (s[0] == '[') {
    const char *close = memchr (s, ']', len);
    if (close == NULL || close == s + 1)
      return fail (why, "bad IPv6 address (expected [address])");
    host = s + 1;
    hostlen = (size_t) (close - host);
    colon = close + 1 < end ? close + 1 : NULL;
    if (colon != NULL && *colon != ':')
      return fail (why, "unexpected text after ]");
  }
  else {
    colon = memchr (s, ':', len);
    hostlen = colon != NULL ? (size_t) (colon - s) : len;
    if (colon != NULL && memchr (colon + 1, ':', (size_t) (end - colon - 1)))
      return fail (why, "IPv6 addresses must be in brackets, e.g. nbd://[::1]/");
    if (hostlen == 0)
      return fail (why, "no host before the port");
  }
  if (percent_decode (host, hostlen, &uri->host, why) == -1)
    return -1;
  if (colon != NULL)
    return parse_port (colon + 1, (size_t) (end - colon - 1), &uri->port, why);
  uri->port = malloc (8);
  if (uri->port == NULL)
    return -1;
  snprintf (uri->port, 8, "%d", NBD_DEFAULT_PORT);
  return 0;
}

/* key=value pairs separated by '&'; only socket= (for nbd+unix). */
static int
parse_query (const char *s, struct sb_nbd_uri *uri, const char **why)
{
  while (*s != '\0') {
    size_t len = strcspn (s, "&");

    if (len > 7 && strncmp (s, "socket=", 7) == 0) {
      if (uri->transport != SB_NBD_UNIX)
        return fail (why, "socket= belongs in nbd+unix:// URIs only");
      free (uri->socket);
      uri->socket = NULL;
      if (percent_decode (s + 7, len - 7, &uri->socket, why) == -1)
        return -1;
    }
    else if (len > 0)
      return fail (why, "unknown query parameter (only socket=PATH is understood)");
    s += len;
    if (*s == '&')
      s++;
  }
  return 0;
}

static int
check_result (const struct sb_nbd_uri *uri, const char **why)
{
  if (strlen (uri->name) > NBD_MAX_STRING)
    return fail (why, "export name too long");
  if (uri->transport != SB_NBD_UNIX)
    return 0;
  if (uri->socket == NULL || uri->socket[0] == '\0')
    return fail (why, "nbd+unix:// needs ?socket=PATH");
  if (strlen (uri->socket) >= sizeof ((struct sockaddr_un *) 0)->sun_path)
    return fail (why, "socket path too long");
  return 0;
}

static int
parse (const char *text, struct sb_nbd_uri *uri, const char **why)
{
  const char *sep = strstr (text, "://"), *auth, *path, *query;
  size_t authlen;

  if (sep == NULL)
    return fail (why, "not an NBD URI: " URI_SYNTAX);
  if (strchr (text, '#') != NULL)
    return fail (why, "fragments (#) are not allowed");
  if (parse_scheme (text, (size_t) (sep - text), uri, why) == -1)
    return -1;
  auth = sep + 3;
  authlen = strcspn (auth, "/?");
  path = auth + authlen;
  query = strchr (path, '?');
  if (uri->transport == SB_NBD_UNIX) {
    if (authlen != 0)
      return fail (why, "nbd+unix:// URIs take no host: use nbd+unix:///name?socket=PATH");
  }
  else if (parse_authority (auth, authlen, uri, why) == -1)
    return -1;
  if (*path == '/')
    path++;
  if (percent_decode (path, query != NULL ? (size_t) (query - path)
                      : strlen (path), &uri->name, why) == -1)
    return -1;
  if (query != NULL && parse_query (query + 1, uri, why) == -1)
    return -1;
  return check_result (uri, why);
}

int
sb_nbd_uri_parse (const char *text, struct sb_nbd_uri *uri, const char **why)
{
  const char *unused;

  memset (uri, 0, sizeof *uri);
  if (why == NULL)
    why = &unused;
  *why = "out of memory";
  if (parse (text, uri, why) == -1) {
    int saved = errno;
    sb_nbd_uri_free (uri);
    errno = saved;
    return -1;
  }
  return 0;
}

void
sb_nbd_uri_free (struct sb_nbd_uri *uri)
{
  free (uri->host);
  free (uri->port);
  free (uri->socket);
  free (uri->name);
  memset (uri, 0, sizeof *uri);
}
