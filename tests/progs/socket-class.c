/* SPDX-License-Identifier: MIT */
/* Test helper: the cgroup v1 class of sockets, read from outside by the
 * kernel's socket iterators (bpf/socket-class.bpf.c), never through a
 * copy of the socket (a copy would give it the class of whoever took
 * it).  For each INODE, one line: "INODE CLASSID PRIOIDX" (the net_cls
 * classid and the net_prio index the socket carries), or "INODE none"
 * for a socket of no TCP or unix kind of this network namespace.
 *
 *   socket-class INODE...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* bpftool's skeleton casts its own const away. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
#include "socket_class.skel.h"
#pragma GCC diagnostic pop

#define MAX_INODES 256

struct wanted {
  unsigned long long inode[MAX_INODES];
  char line[MAX_INODES][64];
  int n;
};

/* Keep the lines of the iterator's text TEXT about the inodes wanted. */
static void
pick (struct wanted *w, char *text)
{
  for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n")) {
    unsigned long long inode;
    unsigned classid, prioidx;

    if (sscanf (line, "%llu %u %u", &inode, &classid, &prioidx) != 3)
      continue;
    for (int i = 0; i < w->n; i++)
      if (w->inode[i] == inode)
        snprintf (w->line[i], sizeof w->line[i], "%llu %u %u", inode,
                  classid, prioidx);
  }
}

/* Run the iterator PROG once and pick from what it says. */
static int
iterate (struct bpf_program *prog, struct wanted *w)
{
  static char text[1 << 22];
  struct bpf_link *link = bpf_program__attach_iter (prog, NULL);
  size_t len = 0;
  ssize_t n;
  int fd;

  if (link == NULL)
    return -1;
  fd = bpf_iter_create (bpf_link__fd (link));
  if (fd < 0) {
    bpf_link__destroy (link);
    return -1;
  }
  while (len < sizeof text - 1 &&
         (n = read (fd, text + len, sizeof text - 1 - len)) > 0)
    len += (size_t) n;
  text[len] = '\0';
  close (fd);
  bpf_link__destroy (link);
  pick (w, text);
  return 0;
}

int
main (int argc, char **argv)
{
  static struct wanted w;
  struct socket_class *skel;

  if (argc < 2 || argc - 1 > MAX_INODES) {
    fprintf (stderr, "usage: socket-class INODE... (at most %d)\n",
             MAX_INODES);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    w.inode[w.n] = strtoull (argv[i], NULL, 10);
    snprintf (w.line[w.n], sizeof w.line[w.n], "%llu none", w.inode[w.n]);
    w.n++;
  }
  skel = socket_class__open_and_load ();
  if (skel == NULL) {
    fprintf (stderr, "socket-class: cannot load the socket iterators: %s\n",
             strerror (errno));
    return 1;
  }
  if (iterate (skel->progs.tcp_class, &w) == -1 ||
      iterate (skel->progs.unix_class, &w) == -1) {
    fprintf (stderr, "socket-class: cannot run the socket iterators: %s\n",
             strerror (errno));
    socket_class__destroy (skel);
    return 1;
  }
  socket_class__destroy (skel);
  for (int i = 0; i < w.n; i++)
    printf ("%s\n", w.line[i]);
  return 0;
}
