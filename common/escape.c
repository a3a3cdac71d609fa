/* SPDX-License-Identifier: MIT */
/* Control-character escaping shared by the library and the programs:
 * whatever a user, a program or a peer puts in a value, a message that
 * prints it stays one line of plain text.
 */
#include <stddef.h>
#include <string.h>

#include "escape.h"

static const char truncation_mark[] = "...";
#define MARK_LEN (sizeof truncation_mark - 1)

/* Write the escape of BYTE to OUT (room for 4 bytes); return its length. */
static size_t
escape_byte (unsigned char byte, char out[4])
{
  static const char hex[] = "0123456789abcdef";

  switch (byte) {
  case '\\': case '\'': case '"':
    out[0] = '\\'; out[1] = (char) byte; return 2;
  case '\t': out[0] = '\\'; out[1] = 't'; return 2;
  case '\n': out[0] = '\\'; out[1] = 'n'; return 2;
  case '\r': out[0] = '\\'; out[1] = 'r'; return 2;
  }
  if (byte >= 0x20 && byte < 0x7f) {
    out[0] = (char) byte;
    return 1;
  }
  out[0] = '\\';
  out[1] = 'x';
  out[2] = hex[byte >> 4];
  out[3] = hex[byte & 0xf];
  return 4;
}

/* Put as much of the truncation mark as fits at BUF + POS, then the NUL. */
static void
mark_truncated (char *buf, size_t size, size_t pos)
{
  size_t n = size - 1 - pos < MARK_LEN ? size - 1 - pos : MARK_LEN;

  memcpy (buf + pos, truncation_mark, n);
  buf[pos + n] = '\0';
}

const char *
sb_escape (char *buf, size_t size, const void *data, size_t len)
{
  const unsigned char *in = data;
  size_t pos = 0;          /* bytes written so far */
  size_t mark_pos = 0;     /* last whole-escape end with room for the mark */
  size_t i;

  if (size == 0)
    return "";
  for (i = 0; i < len; i++) {
    char esc[4];
    size_t n = escape_byte (in[i], esc);

    if (pos + n + 1 > size) {
      mark_truncated (buf, size, mark_pos);
      return buf;
    }
    memcpy (buf + pos, esc, n);
    pos += n;
    if (pos + MARK_LEN + 1 <= size)
      mark_pos = pos;
  }
  buf[pos] = '\0';
  return buf;
}

const char *
sb_escape_str (char *buf, size_t size, const char *str)
{
  if (str == NULL)
    str = "(null)";
  return sb_escape (buf, size, str, strlen (str));
}
