# SPDX-License-Identifier: MIT
"""Host mode's counts in the Prometheus text exposition format (version
0.0.4, as the node exporter's textfile collector reads it): what
`sockboost host status --json` says, per filter entry and user, and per
libvirt domain (the live processes that libvirt's own records name as a
domain's QEMU: libvirtqemu.running_domains; summed as hostmode does).  Base units, `_total`
counters, HELP and TYPE lines, label values escaped as the format says;
no timestamps (the collector refuses them).

    text = exposition(status, domains)   # domains: {pid: name}
    write_atomically(path, text)         # temporary file, then rename"""

import os

from . import hostmode, trust

# (name, HELP, the field of a row, its type): the counting's counters,
# in base units.
COUNTERS = (
    ("stalls_total", "Segments of the NBD programs' TCP connections that "
     "waited for a delayed ACK (Nagle's algorithm on, qemu-nbd before 8.0).",
     "stalls"),
    ("stall_seconds_total", "Time those segments waited beyond the "
     "connection's shortest round trip.", "stall_seconds"),
    ("sent_bytes_total", "TCP bytes sent and acknowledged.", "bytes_sent"),
    ("received_bytes_total", "TCP bytes received.", "bytes_received"),
    ("connections_total", "TCP connections established.", "connections"),
)
PREFIX = "sockboost_host_"


def label_value(text):
    """TEXT as a label value of the text format: valid UTF-8 (a name read
    from a directory may hold any bytes: those that are not UTF-8 become
    U+FFFD), backslash, double quote and line feed escaped."""
    text = str(text).encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace")
    return (text.replace("\\", "\\\\").replace('"', '\\"')
            .replace("\n", "\\n"))


def labels(pairs):
    return "{" + ",".join('%s="%s"' % (k, label_value(v))
                          for k, v in pairs) + "}"


def number(value):
    """VALUE as the format writes it: integers whole, others as floats."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


def family(lines, name, help_text, kind, samples):
    """Add metric NAME's HELP and TYPE lines and SAMPLES ((label pairs,
    value) pairs) to LINES."""
    lines.append("# HELP %s%s %s" % (PREFIX, name, help_text))
    lines.append("# TYPE %s%s %s" % (PREFIX, name, kind))
    for pairs, value in samples:
        lines.append("%s%s%s %s" % (PREFIX, name, labels(pairs) if pairs
                                    else "", number(value)))


def uid_label(row):
    return "others" if row.get("uid") is None else str(row["uid"])


def exposition(status, domains):
    """The text of the metrics of STATUS (sb-host status --json, a dict)
    and DOMAINS ({pid: domain name})."""
    on = bool(status.get("on"))
    counting = on and bool(status.get("counting"))
    lines = []
    family(lines, "counting", "Whether host mode counts the stalls (1) or "
           "not (0).", "gauge", [((), counting)])
    family(lines, "tuning", "Whether host mode tunes the sockets it takes "
           "(1), or observes them only or is off (0).", "gauge",
           [((), on and not status.get("observe"))])
    if not counting:
        return "\n".join(lines) + "\n"
    rows = [r for r in status.get("tuned", [])
            if r.get("connections") or r.get("stalls")]
    for name, help_text, field in COUNTERS:
        family(lines, name, help_text + " Per filter entry and user.",
               "counter", [((("program", r["program"]),
                             ("uid", uid_label(r))), r.get(field, 0))
                           for r in rows])
    family(lines, "first_count_timestamp_seconds", "When the row counted "
           "first, seconds since the epoch: its counters count since then.",
           "gauge", [((("program", r["program"]), ("uid", uid_label(r))),
                      r["first_count"]) for r in rows
                     if r.get("first_count") is not None])
    sums = hostmode.stalls_by_domain(status, domains)
    for name, help_text, field in COUNTERS:
        family(lines, "domain_" + name, help_text + " Per libvirt domain, "
               "while its QEMU runs.", "counter",
               [((("domain", d), ("program", p)), sums[(d, p)][field])
                for d, p in sorted(sums)])
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    """Write TEXT to PATH so that a reader sees the old file or the new
    one, never a part: a temporary file in the same directory (a name
    the textfile collector does not read), then a rename over PATH.  The
    directory is reached without following a link, and the temporary
    file is made new (O_EXCL), so nothing planted is written through."""
    directory, name = os.path.split(os.path.abspath(path))
    if not name:
        raise ValueError("%s names no file" % path)
    dir_fd = trust.open_directory(directory)
    temporary = ".%s.%d.tmp" % (name, os.getpid())
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                     os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
        try:
            os.fchmod(fd, 0o644)
            data = text.encode()
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    finally:
        os.close(dir_fd)
