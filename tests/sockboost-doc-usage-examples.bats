#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# README's Usage examples and sockboost(1)'s EXAMPLES work as written: a
# process is named by $! or its pid file, never by `pgrep` without -u
# (which picks the newest such process of any user); disk.img is made
# before it is served; the unix example runs (with /tmp/ moved to the
# test's directory); the ss example shows what ss prints into a pipe
# (skmem on the socket's own line).  The TCP examples are checked by
# sockboost-doc-tcp-examples.bats.
bats_require_minimum_version 1.5.0
load helpers

# The code lines of README (indented by four spaces) and of sockboost(1)
# (between .nf and .fi, continuation lines joined), in the order written.
doc_code_lines () {
  grep -E '^    ' "$SB_ROOT/README.md" | sed 's/^    //'
  sed -n '/^\.nf/,/^\.fi/p' "$SB_ROOT/doc/sockboost.1" | grep -v '^\.' |
    sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' | sed -e ':a' -e '/\\e$/{N; s/\\e\n *//; ba}'
}

# README's first code block under a heading (## or ###) that is $1.
readme_block () {
  awk -v h="$1" '$0 == h { inside = 1; next }
    inside && /^#/ { exit }
    inside && /^    / { found = 1; print substr($0, 5); next }
    inside && found { exit }' "$SB_ROOT/README.md"
}

@test "every example names its process by \$! or a pid file, never by pgrep without -u" {
  local line count=0 code
  code=$(doc_code_lines)
  run grep -E '(^|[^a-z])pgrep ' <<<"$code"
  run grep -v -- ' -u ' <<<"$output"
  assert_output ""
  while IFS= read -r line; do
    [[ $line =~ ^sockboost\ (status|attach) ]] || continue
    count=$((count + 1))
    # A variable naming a process is set from $! in the examples.
    if [[ $line =~ \"\$([a-z_]+)\" ]]; then
      grep -qx "${BASH_REMATCH[1]}=\\\$!" <<<"$code" ||
        fail "\$${BASH_REMATCH[1]} is not set from \$!: $line"
    fi
  done <<<"$code"
  [ "$count" -ge 6 ] || fail "found only $count status and attach examples"
}

@test "the Usage examples make disk.img before they serve it" {
  run readme_block "## Usage"
  assert_success
  local first
  first=$(grep -m 1 'disk\.img' <<<"$output")
  [[ $first =~ ^(qemu-img\ create|truncate)\  ]] || fail "disk.img used before it is made: $first"
}

@test "README's first Usage example runs as written: qemu-nbd boosted, \$! names it, the copy identical" {
  requires qemu-img qemu-io qemu-nbd ss
  local problem block
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  block=$(readme_block "## Usage" | sed "s|/tmp/|$BATS_TEST_TMPDIR/|g")
  # In a pid namespace of its own: the qemu-nbd it starts ends with it.
  # Line by line, as typed: a server started in the background has its
  # socket before the next line runs.
  run private_pid_ns env PATH="$SB_ROOT/tools:$PATH" bash -c '
    set -e
    cd "$1"
    while IFS= read -r line; do
      eval "$line"
      [[ $line == *" &" && $line =~ \ -k\ ([^ ]+) ]] || continue
      for i in $(seq 100); do [ -S "${BASH_REMATCH[1]}" ] && break; sleep 0.1; done
    done <<< "$2"
    cmp disk.img copy.img && echo "copy identical"
    sockboost status "$qemu_nbd"' _ "$BATS_TEST_TMPDIR" "$block"
  assert_success
  assert_line "copy identical"
  assert_line --regexp '^process [0-9]+ \(qemu-nbd\)$'
  assert_line --regexp '^  libsockboost\.so: loaded '
}

@test "README's ss example shows skmem on the socket's line, as ss prints into a pipe" {
  requires qemu-img qemu-io qemu-nbd ss
  local problem example command
  problem=$(mount_ns_problem)
  [ -z "$problem" ] || skip "$problem"
  example=$(readme_block "## Verify it with ss")
  command=$(sed -n 's/^\$ //p' <<<"$example")
  [ -n "$command" ] || fail "no '\$ ss' line in the example"
  # The example's own output: the socket's line carries its skmem.
  run grep -F '"qemu-nbd"' <<<"$example"
  assert_output --regexp 'users:\(\("qemu-nbd",pid=[0-9]+,fd=[0-9]+\)\) skmem:\(.*tb4194304'
  # The command, run while a rate-limited copy keeps qemu-nbd's socket
  # busy, in a network namespace of its own so that ss sees only these.
  run private_pid_ns unshare --net -- env PATH="$SB_ROOT/tools:$PATH" bash -c '
    set -e
    cd "$1"
    qemu-img create -q -f raw disk.img 64M
    qemu-io -f raw -c "write -P 0xa5 0 32M" disk.img > /dev/null
    sockboost run -- qemu-nbd -r -t -f raw -k "$1/s.sock" disk.img &
    for i in $(seq 100); do [ -S s.sock ] && break; sleep 0.1; done
    sockboost run -- qemu-img convert -r 16M -f raw -O raw \
      "nbd+unix:///?socket=$1/s.sock" copy.img &
    for i in $(seq 100); do
      out=$(eval "$2") || true
      [[ $out != *tb4194304* ]] || break
      sleep 0.1
    done
    echo "$out"' _ "$BATS_TEST_TMPDIR" "$command"
  assert_success
  assert_line --regexp '^u_str +ESTAB .* users:\(\("qemu-nbd",pid=[0-9]+,fd=[0-9]+\)\) +skmem:\(.*,tb4194304,'
}
