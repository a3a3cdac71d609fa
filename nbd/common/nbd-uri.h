/* SPDX-License-Identifier: MIT */
/* NBD URIs: nbd://host[:port]/name and nbd+unix:///name?socket=PATH. */
#ifndef SOCKBOOST_NBD_URI_H
#define SOCKBOOST_NBD_URI_H

enum sb_nbd_transport {
  SB_NBD_TCP,
  SB_NBD_UNIX,
};

struct sb_nbd_uri {
  enum sb_nbd_transport transport;
  char *host;                   /* TCP: name or address, IPv6 without [] */
  char *port;                   /* TCP: decimal, "10809" when not given */
  char *socket;                 /* UNIX: path of the socket */
  char *name;                   /* export name, percent-decoded, maybe "" */
};

/* Parse TEXT into *URI (all strings freshly allocated).  Returns 0, or -1
 * with errno EINVAL and *WHY pointing at a static explanation of what is
 * wrong, or errno ENOMEM.  Only the plain transports are understood: TLS
 * (nbds://) and vsock URIs are refused with a reason saying so.
 */
extern int sb_nbd_uri_parse (const char *text, struct sb_nbd_uri *uri,
                             const char **why);

extern void sb_nbd_uri_free (struct sb_nbd_uri *uri);

#endif /* SOCKBOOST_NBD_URI_H */
