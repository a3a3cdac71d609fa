#!/usr/bin/env bats
# A URI that is not a usable NBD URI is a usage error: exit 2, a message
# saying what is wrong and a pointer to --help, before any connection is
# tried.
# bats file_tags=sanitize

load helpers

bad_uri () {
  run cl_client info "$1"
  assert_failure 2
  assert_equal "${#lines[@]}" 2
  assert_line -n 0 --partial "sbnbd-client: bad URI '$1': $2"
  assert_line -n 1 "Try 'sbnbd-client --help' for more information."
}

@test "not a URI at all" { bad_uri /tmp/socket "not an NBD URI"; }
@test "another scheme" { bad_uri http://localhost/x "unknown scheme"; }
@test "TLS" { bad_uri nbds://localhost/x "TLS (nbds://) is not supported"; }
@test "nbd+unix without socket=" { bad_uri "nbd+unix:///x" "nbd+unix:// needs ?socket=PATH"; }
@test "a port out of range" { bad_uri "nbd://localhost:70000/" "bad port"; }
@test "IPv6 without brackets" { bad_uri "nbd://::1/" "IPv6 addresses must be in brackets"; }
@test "a broken percent escape" { bad_uri "nbd://localhost/a%4" "bad percent escape"; }
