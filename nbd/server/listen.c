/* SPDX-License-Identifier: MIT */
/* The listening socket (unix or TCP) and the URI that reaches it. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

#define DEFAULT_BIND "127.0.0.1"

/* Percent-encode S for a URI component; '/' and ':' stay as they are
 * (harmless in a path or a query value).  Returns malloc'd text.
 */
static char *
uri_escape (const char *s)
{
  static const char hex[] = "0123456789ABCDEF";
  char *out = malloc (3 * strlen (s) + 1), *p = out;

  if (out == NULL)
    return NULL;
  for (; *s; s++) {
    unsigned char ch = (unsigned char) *s;
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
        || (ch >= '0' && ch <= '9') || strchr ("-._~/:", ch) != NULL) {
      *p++ = (char) ch;
    } else {
      *p++ = '%';
      *p++ = hex[ch >> 4];
      *p++ = hex[ch & 15];
    }
  }
  *p = '\0';
  return out;
}

static char *
make_uri (const char *scheme_host, const char *name, const char *socket)
{
  char *ename = uri_escape (name), *esock = NULL, *uri = NULL;

  if (socket != NULL)
    esock = uri_escape (socket);
  if (ename != NULL && (socket == NULL || esock != NULL)
      && asprintf (&uri, "%s/%s%s%s", scheme_host, ename,
                   socket ? "?socket=" : "", socket ? esock : "") == -1)
    uri = NULL;
  free (ename);
  free (esock);
  return uri;
}

static int
uri_check (const struct listener *l)
{
  if (l->uri != NULL)
    return 0;
  sb_error ("making the URI: %s", strerror (ENOMEM));
  return -1;
}

static int
private_socket_path (struct listener *l)
{
  const char *tmp = getenv ("TMPDIR");
  char *dir, shown[ESCAPED_VALUE_SIZE];

  if (asprintf (&dir, "%s/sbnbd-XXXXXX", tmp && *tmp ? tmp : "/tmp") == -1)
    return -1;
  if (mkdtemp (dir) == NULL) {
    sb_error ("mkdtemp %s: %s", sb_escape_str (shown, sizeof shown, dir),
              strerror (errno));
    free (dir);
    return -1;
  }
  l->tmpdir = dir;
  if (asprintf (&l->unix_path, "%s/nbd.sock", dir) == -1) {
    l->unix_path = NULL;
    return -1;
  }
  return 0;
}

/* Bind with a umask that leaves only the owner's bits, so the socket is
 * never reachable by others, not even for a moment; then widen it if
 * --socket-mode asked for more.
 */
static int
bind_unix (int fd, const char *path, mode_t mode)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  char shown[ESCAPED_VALUE_SIZE];
  mode_t old;
  int r;

  sb_escape_str (shown, sizeof shown, path);
  if (strlen (path) >= sizeof sun.sun_path) {
    sb_error ("%s: socket path too long", shown);
    return -1;
  }
  strcpy (sun.sun_path, path);
  old = umask (0177);
  r = bind (fd, (struct sockaddr *) &sun, sizeof sun);
  umask (old);
  if (r == -1 || (mode != 0600 && chmod (path, mode) == -1)) {
    sb_error ("%s: %s", shown, strerror (errno));
    return -1;
  }
  return 0;
}

static int
listen_unix (struct listener *l, const struct config *cfg)
{
  if (strcmp (cfg->unix_path, "-") == 0) {
    if (private_socket_path (l) == -1)
      return -1;
  } else if ((l->unix_path = strdup (cfg->unix_path)) == NULL) {
    return -1;
  }
  l->fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l->fd == -1)
    sb_error ("socket: %s", strerror (errno));
  if (l->fd == -1 || bind_unix (l->fd, l->unix_path, cfg->socket_mode) == -1) {
    /* Not ours to unlink: bind failed, perhaps because it exists. */
    free (l->unix_path);
    l->unix_path = NULL;
    return -1;
  }
  l->uri = make_uri ("nbd+unix://", cfg->export_name, l->unix_path);
  return uri_check (l);
}

static int
bind_tcp (struct listener *l, const struct addrinfo *ai)
{
  int one = 1;

  l->fd = socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                  ai->ai_protocol);
  if (l->fd == -1)
    return -1;
  setsockopt (l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind (l->fd, ai->ai_addr, ai->ai_addrlen) == -1) {
    close (l->fd);
    l->fd = -1;
    return -1;
  }
  return 0;
}

/* The URI names the address and port actually bound. */
static int
tcp_uri (struct listener *l, const struct config *cfg)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char host[NI_MAXHOST], hostport[NI_MAXHOST + 32];

  if (getsockname (l->fd, (struct sockaddr *) &ss, &len) == -1
      || getnameinfo ((struct sockaddr *) &ss, len, host, sizeof host,
                      l->port, sizeof l->port,
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    sb_error ("reading the bound address failed");
    return -1;
  }
  snprintf (hostport, sizeof hostport,
            ss.ss_family == AF_INET6 ? "nbd://[%s]:%s" : "nbd://%s:%s",
            host, l->port);
  l->uri = make_uri (hostport, cfg->export_name, NULL);
  return uri_check (l);
}

static int
listen_tcp (struct listener *l, const struct config *cfg)
{
  const char *addr = cfg->bind_addr ? cfg->bind_addr : DEFAULT_BIND;
  struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
                            .ai_socktype = SOCK_STREAM }, *res, *ai;
  int err = getaddrinfo (addr, cfg->port, &hints, &res);
  char shown[ESCAPED_VALUE_SIZE];

  /* The port was checked to be digits; the address may hold anything. */
  sb_escape_str (shown, sizeof shown, addr);
  if (err != 0) {
    sb_error ("%s: %s", shown, gai_strerror (err));
    return -1;
  }
  for (ai = res; ai != NULL; ai = ai->ai_next)
    if (bind_tcp (l, ai) == 0)
      break;
  err = errno;
  freeaddrinfo (res);
  if (l->fd == -1) {
    sb_error ("binding %s port %s: %s", shown, cfg->port, strerror (err));
    return -1;
  }
  return tcp_uri (l, cfg);
}

int
listener_open (struct listener *l, const struct config *cfg)
{
  int r;

  *l = (struct listener) { .fd = -1 };
  r = cfg->port ? listen_tcp (l, cfg) : listen_unix (l, cfg);
  if (r == 0 && listen (l->fd, SOMAXCONN) == -1) {
    sb_error ("listen: %s", strerror (errno));
    r = -1;
  }
  return r;
}

void
listener_close (struct listener *l)
{
  if (l->fd >= 0)
    close (l->fd);
  if (l->unix_path != NULL)
    unlink (l->unix_path);
  if (l->tmpdir != NULL)
    rmdir (l->tmpdir);
  free (l->unix_path);
  free (l->tmpdir);
  free (l->uri);
  *l = (struct listener) { .fd = -1 };
}
