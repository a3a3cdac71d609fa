# SPDX-License-Identifier: MIT
# The send calls of real programs, traced with strace, as the tests that
# check the library added no flag compare them (sourced by helpers.bash).
#
#   trace_sends [--also CALLS] FILE CMD...
#                             CMD and its process tree under strace
#   tcp_sends FILE PORT       "SIDE SYSCALL FLAGS" per TCP send in FILE,
#                             and "SIDE cork 0|1" per TCP_CORK set

# Trace CMD... (with its whole process tree) into FILE: sends (and the
# comma-separated CALLS of --also), no data (-s 0), each fd annotated
# with its socket (-yy).
trace_sends () {
  local calls=send,sendto,sendmsg,write,writev
  if [ "$1" = --also ]; then calls+=,$2; shift 2; fi
  local file=$1; shift
  # fd 3 is bats' own: nothing traced may hold it.
  timeout 120 strace -f -yy -s 0 -o "$file" -e trace="$calls" "$@" 3>&-
}

# One line per send call on a TCP socket of an strace -f -yy -s 0 log:
# "SIDE SYSCALL FLAGS", SIDE being "server" for the end whose local port
# is PORT, else "client"; FLAGS sorted, "-" for write/writev.  Calls
# whose arguments do not parse fail the test rather than vanish.  With
# setsockopt traced too (--also setsockopt), a successful TCP_CORK on a
# TCP socket is the line "SIDE cork 1" or "SIDE cork 0", in call order.
tcp_sends () {
  python3 - "$1" "$2" <<'PY'
import re, sys
path, port = sys.argv[1], sys.argv[2]
call = re.compile(r'^\d+\s+(send|sendto|sendmsg|write|writev)'
                  r'\(\d+<(TCP|TCPv6):\[([^\]]*)\]>, (.*)$')
cork = re.compile(r'^\d+\s+setsockopt\(\d+<(?:TCP|TCPv6):\[([^\]]*)\]>, SOL_TCP, '
                  r'TCP_CORK, \[([01])\], \d+\) = 0$')
flagre = re.compile(r'0|MSG_[A-Z_]+(\|MSG_[A-Z_]+)*')
def side_of(conn):
    return 'server' if conn.split('->')[0].endswith(':' + port) else 'client'
for line in open(path):
    m = cork.match(line)
    if m:
        print(side_of(m.group(1)), 'cork', m.group(2))
        continue
    m = call.match(line)
    if not m:
        continue
    name, conn, rest = m.group(1), m.group(3), m.group(4).rstrip('\n')
    side = side_of(conn)
    rest = re.sub(r'\s*(<unfinished \.\.\.>|\) += .*)$', '', rest)
    if name in ('send', 'sendto'):
        flags = rest.split(', ')[2]
    elif name == 'sendmsg':
        flags = rest[rest.rindex('}, ') + 3:]
    else:
        flags = '-'
    if flags != '-' and not flagre.fullmatch(flags):
        sys.exit('cannot parse flags of: ' + line)
    flags = '|'.join(sorted(flags.split('|')))
    print(side, 'sendto' if name == 'send' else name, flags)
PY
}
