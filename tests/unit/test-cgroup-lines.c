/* SPDX-License-Identifier: MIT */
/* Unit tests for the reading of the kernel's cgroup text
 * (common/cgroup-lines.c): lines of /proc/PID/cgroup and of mountinfo,
 * and the controller lists in them.
 */
#include <string.h>

#include "tap.h"
#include "cgroup-lines.h"

static void
test_cgroup_lines (void)
{
  struct sb_cgroup_line l;
  char v1[] = "11:net_cls,net_prio:/machine/qemu-1:x",
    v2[] = "0::/system.slice/libvirtd.service",
    named[] = "9:name=systemd:/", bad_id[] = "x1:net_cls:/",
    no_path[] = "4:net_cls", relative[] = "4:net_cls:test",
    huge[] = "12345678901:net_cls:/";

  TAP_OK (sb_cgroup_line_parse (v1, &l) == 0 && l.id == 11 &&
          strcmp (l.controllers, "net_cls,net_prio") == 0 &&
          strcmp (l.path, "/machine/qemu-1:x") == 0,
          "a v1 line: its hierarchy, controllers and path (colons kept)");
  TAP_OK (sb_cgroup_line_parse (v2, &l) == 0 && l.id == 0 &&
          strcmp (l.controllers, "") == 0 &&
          strcmp (l.path, "/system.slice/libvirtd.service") == 0,
          "the cgroup v2 line: hierarchy 0, no controllers");
  TAP_OK (sb_cgroup_line_parse (named, &l) == 0 && l.id == 9 &&
          strcmp (l.controllers, "name=systemd") == 0,
          "a named hierarchy");
  TAP_OK (sb_cgroup_line_parse (bad_id, &l) == -1 &&
          sb_cgroup_line_parse (no_path, &l) == -1 &&
          sb_cgroup_line_parse (relative, &l) == -1 &&
          sb_cgroup_line_parse (huge, &l) == -1,
          "no number, no path, a path not from the root, a number too "
          "long: not such a line");
}

static void
test_lists (void)
{
  TAP_OK (sb_list_has ("net_cls,net_prio", "net_cls") &&
          sb_list_has ("net_cls,net_prio", "net_prio") &&
          sb_list_has ("rw,net_prio", "net_prio"),
          "an element found first, last, alone");
  TAP_OK (!sb_list_has ("net_cls_x,net_priority", "net_cls") &&
          !sb_list_has ("net_cls_x,net_priority", "net_prio") &&
          !sb_list_has ("", "net_cls") && !sb_list_has ("a,b", ""),
          "a prefix of an element is not the element; nothing in an "
          "empty list, nor an empty name");
  TAP_OK (sb_list_within ("net_cls,net_prio", "net_cls,net_prio") &&
          sb_list_within ("net_prio", "net_cls,net_prio") &&
          sb_list_within ("net_cls", "rw,relatime,net_cls"),
          "every element among the allowed ones");
  TAP_OK (!sb_list_within ("net_cls,perf_event", "net_cls,net_prio") &&
          !sb_list_within ("cpu,net_cls", "net_cls,net_prio") &&
          !sb_list_within ("name=x,net_cls", "net_cls,net_prio"),
          "another controller, or a name, is not among them");
}

static void
test_mount_lines (void)
{
  struct sb_mount_line m;
  char cgroup[] = "40 31 0:37 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid "
                  "shared:15 - cgroup cgroup rw,net_cls,net_prio",
    escaped[] = "68 47 0:41 /a\\040b /tmp/with\\040space\\134x\\012y rw - "
                "cgroup sockboost-test rw,net_cls",
    no_optional[] = "22 1 8:1 / / rw - ext4 /dev/sda1 rw",
    no_dash[] = "22 1 8:1 / / rw shared:1 ext4 /dev/sda1 rw",
    short_line[] = "22 1 8:1 / /",
    bad_device[] = "22 1 8-1 / / rw - ext4 /dev/sda1 rw";

  TAP_OK (sb_mount_line_parse (cgroup, &m) == 0 && m.major == 0 &&
          m.minor == 37 && strcmp (m.root, "/") == 0 &&
          strcmp (m.mount_point, "/sys/fs/cgroup/net_cls,net_prio") == 0 &&
          strcmp (m.type, "cgroup") == 0 &&
          strcmp (m.super_options, "rw,net_cls,net_prio") == 0,
          "a cgroup v1 mount: device, root, mount point, type, super "
          "options");
  TAP_OK (sb_mount_line_parse (escaped, &m) == 0 &&
          strcmp (m.root, "/a b") == 0 &&
          strcmp (m.mount_point, "/tmp/with space\\x\ny") == 0,
          "the kernel's octal escapes undone in the root and mount point");
  TAP_OK (sb_mount_line_parse (no_optional, &m) == 0 &&
          strcmp (m.type, "ext4") == 0 && m.major == 8 && m.minor == 1,
          "no optional fields");
  TAP_OK (sb_mount_line_parse (no_dash, &m) == -1 &&
          sb_mount_line_parse (short_line, &m) == -1 &&
          sb_mount_line_parse (bad_device, &m) == -1,
          "no separator, too few fields, a device not MAJ:MIN: not such "
          "a line");
}

int
main (void)
{
  test_cgroup_lines ();
  test_lists ();
  test_mount_lines ();
  return tap_done ();
}
