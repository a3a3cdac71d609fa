# SPDX-License-Identifier: MIT
# The unix stream and TCP sockets of one process, with their peers, for
# sockboost status.  Input, in this order:
#   1. "fds" then "FD socket:[INODE]" lines (find /proc/PID/fd -printf)
#   2. ss -xapmn (every unix socket of the system, with its process)
#   3. ss -tapmen (every TCP socket, with its process and inode)
# Output, one line per socket of the process, tab-separated, no field empty:
#   type fds state local local-json inode tb peer peer-json
# where the plain fields are escaped for a terminal (\\, \n, \t, \r, \xHH)
# and the -json ones are JSON values.  A socket name may hold anything,
# even a newline that splits ss's line: such a line is joined back.

BEGIN {
  for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i
}

# Escape S for a terminal: backslash and every byte outside printable ASCII.
function shown(s,   out, i, c, n) {
  out = ""
  n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (c == "\\") out = out "\\\\"
    else if (c == "\n") out = out "\\n"
    else if (c == "\t") out = out "\\t"
    else if (c == "\r") out = out "\\r"
    else if (ord[c] < 32 || ord[c] > 126) out = out sprintf("\\x%02x", ord[c])
    else out = out c
  }
  return out
}

# S as a JSON string; a byte outside printable ASCII becomes \u00XX, so
# the result is valid whatever the name holds.
function js(s,   out, i, c, n) {
  out = "\""
  n = length(s)
  for (i = 1; i <= n; i++) {
    c = substr(s, i, 1)
    if (c == "\\" || c == "\"") out = out "\\" c
    else if (ord[c] < 32 || ord[c] > 126) out = out sprintf("\\u%04x", ord[c])
    else out = out c
  }
  return out "\""
}

# The processes of a users:((...)) field: sets pname[1..n], ppid[1..n].
function parse_users(u,   n, j, item, name) {
  n = 0
  while (match(u, /\("([^"]|\\")*",pid=[0-9]+,fd=[0-9]+\)/)) {
    item = substr(u, RSTART + 2, RLENGTH - 3)
    u = substr(u, RSTART + RLENGTH)
    name = item
    sub(/",pid=[0-9]+,fd=[0-9]+$/, "", name)
    sub(/^.*",pid=/, "", item)
    sub(/,fd=.*/, "", item)
    for (j = 1; j <= n && ppid[j] != item; j++) ;
    if (j <= n) continue
    n++
    pname[n] = name
    ppid[n] = item
  }
  return n
}

function procs_shown(u,   n, i, out) {
  n = parse_users(u)
  out = ""
  for (i = 1; i <= n; i++)
    out = out (i > 1 ? ", " : "") shown(pname[i]) " " ppid[i]
  return out
}

function procs_json(u,   n, i, out) {
  n = parse_users(u)
  out = "["
  for (i = 1; i <= n; i++)
    out = out (i > 1 ? ", " : "") "{\"name\": " js(pname[i]) ", \"pid\": " ppid[i] "}"
  return out "]"
}

# Split one whole ss record into its users field, its tb and the rest.
function take_extras(line,   skmem) {
  users = ""
  tb = "?"
  if (match(line, / skmem:\([^)]*\)/)) {
    skmem = substr(line, RSTART, RLENGTH)
    if (match(skmem, /tb[0-9]+/))
      tb = substr(skmem, RSTART + 2, RLENGTH - 2)
    sub(/ skmem:\([^)]*\)/, "", line)
  }
  if (match(line, / users:\(\(.*\)\)/)) {
    users = substr(line, RSTART + 8, RLENGTH - 9)
    line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
  }
  return line
}

# "u_str STATE RQ SQ LOCAL INODE PEER PEER-INODE": LOCAL may hold blanks.
function unix_record(line,   rest, tail, f) {
  rest = take_extras(line)
  if (!match(rest, /^u_str +[^ ]+ +[0-9]+ +[0-9]+ +/)) return
  split(rest, f, " ")
  state = f[2]
  rest = substr(rest, RLENGTH + 1)
  if (!match(rest, / +[0-9]+ +[^ ]+ +[0-9]+ *$/)) return
  tail = substr(rest, RSTART)
  rest = substr(rest, 1, RSTART - 1)
  split(tail, f, " ")
  uusers[f[1]] = users
  if (!(f[1] in fds)) return
  n_unix++
  u_ino[n_unix] = f[1]; u_state[n_unix] = state; u_local[n_unix] = rest
  u_peer[n_unix] = f[3]; u_tb[n_unix] = tb
}

# "STATE RQ SQ LOCAL PEER ... ino:INODE ...": no blanks in the addresses.
function tcp_record(line,   rest, f, ino) {
  rest = take_extras(line)
  split(rest, f, " ")
  if (!match(rest, /ino:[0-9]+/)) return
  ino = substr(rest, RSTART + 4, RLENGTH - 4)
  tusers[f[4] " " f[5]] = users
  if (!(ino in fds)) return
  n_tcp++
  t_ino[n_tcp] = ino; t_state[n_tcp] = f[1]; t_local[n_tcp] = f[4]
  t_peer[n_tcp] = f[5]; t_tb[n_tcp] = tb
}

# ss prints a record per line (TCP's skmem on an indented second line); a
# line that does not start a record continues the one before: an indented
# one, or the rest of a name a newline cut.
function flush() {
  if (record == "") return
  if (part == 2) unix_record(record)
  else tcp_record(record)
  record = ""
}

FNR == 1 { flush(); part++; next }
part == 1 && $2 ~ /^socket:\[[0-9]+\]$/ {
  ino = substr($2, 9, length($2) - 9)
  fd_list = (ino in fds) ? fds[ino] "," $1 : $1
  fds[ino] = fd_list
  next
}
part == 1 { next }
part == 2 && /^u_[a-z]+ / { flush(); if ($1 == "u_str") record = $0; next }
part == 3 && /^[A-Z][A-Z0-9-]* / { flush(); record = $0; next }
/^[ \t]/ { if (record != "") record = record " " substr($0, 2); next }
{ if (record != "") record = record "\n" $0 }

function out(type, fdl, st, lshown, ljson, ino, tbv, pshown, pjson) {
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", type, fdl, st, lshown, ljson,
    ino, tbv, pshown, pjson
}

END {
  flush()
  for (i = 1; i <= n_unix; i++) {
    local_name = u_local[i]
    sub(/^ +/, "", local_name)
    if (local_name == "*") { lshown = "(unnamed)"; ljson = "null" }
    else { lshown = shown(local_name); ljson = js(local_name) }
    peer = u_peer[i]
    if (peer == "0") { pshown = "-"; pjson = "null" }
    else {
      pshown = procs_shown(uusers[peer])
      if (pshown == "") pshown = "inode " peer " (process not visible)"
      pjson = "{\"inode\": " peer ", \"processes\": " procs_json(uusers[peer]) "}"
    }
    out("unix", fds[u_ino[i]], u_state[i], lshown, ljson, u_ino[i], u_tb[i], pshown, pjson)
  }
  for (i = 1; i <= n_tcp; i++) {
    peer = t_peer[i]
    if (peer ~ /:\*$/) { pshown = "-"; pjson = "null" }
    else {
      key = peer " " t_local[i]
      pshown = procs_shown(tusers[key])
      pshown = shown(peer) (pshown == "" ? "" : " (" pshown ")")
      pjson = "{\"address\": " js(peer) ", \"processes\": " procs_json(tusers[key]) "}"
    }
    out("tcp", fds[t_ino[i]], t_state[i], shown(t_local[i]), js(t_local[i]),
        t_ino[i], t_tb[i], pshown, pjson)
  }
}
