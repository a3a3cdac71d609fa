#!/usr/bin/env bats
# The TCP examples in README.md and sockboost(1) do not serve a writable
# image on every interface: each qemu-nbd that listens on a port binds a
# loopback address and is read-only (the examples copy from it).
load helpers

# qemu-nbd command lines of the docs (man page continuation lines joined).
qemu_nbd_examples () {
  sed -e 's/\\-/-/g' "$SB_ROOT/doc/sockboost.1" | sed -e ':a' -e '/\\e$/{N; s/\\e\n//; ba}' |
    grep -E '(^| )qemu-nbd -'
  grep -E '^    .*(^| )qemu-nbd -' "$SB_ROOT/README.md"
}

@test "every TCP qemu-nbd example binds loopback and is read-only" {
  local line count=0
  while IFS= read -r line; do
    [[ $line == *" -p "* ]] || continue
    count=$((count + 1))
    [[ $line =~ \ -b\ (127\.[0-9.]+|::1)\  ]] || fail "no loopback -b: $line"
    [[ $line == *" -r "* ]] || fail "not read-only: $line"
  done < <(qemu_nbd_examples)
  [ "$count" -ge 3 ] || fail "found only $count TCP examples"
}

