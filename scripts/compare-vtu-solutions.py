#!/usr/bin/env python3
"""Compare the "solution" field of two deal.II VTU files of the same mesh.

deal.II writes point data as zlib-compressed, base64-encoded Float32 arrays
(DataOut::write_vtu). This reads the field back from both files and prints
the largest difference relative to the largest value, and the relative l2
difference. It is used for doc/performance.md ("step-37: shipped, cellwise
host, cellwise GPU") to compare step-37 as shipped with step-37-cellwise.

usage: scripts/compare-vtu-solutions.py A.vtu B.vtu [FIELD (default solution)]
"""
import base64
import re
import struct
import sys
import zlib


def read_field(path, name):
    text = open(path).read()
    match = re.search(r'<DataArray type="Float32" Name="%s" format="binary">\s*(\S+)\s*</DataArray>' % re.escape(name), text)
    if not match:
        sys.exit("%s: no Float32 field '%s' in binary format" % (path, name))
    encoded = match.group(1)
    # header: number of blocks, block size, last block size, compressed sizes
    # (u32 each), base64-encoded apart from the data
    n_blocks = struct.unpack("<I", base64.b64decode(encoded[:8])[:4])[0]
    header_bytes = 4 * (3 + n_blocks)
    header_chars = 4 * ((header_bytes + 2) // 3)
    sizes = struct.unpack("<%dI" % (3 + n_blocks), base64.b64decode(encoded[:header_chars])[:header_bytes])[3:]
    data = base64.b64decode(encoded[header_chars:])
    values, position = b"", 0
    for size in sizes:
        values += zlib.decompress(data[position:position + size])
        position += size
    return struct.unpack("<%df" % (len(values) // 4), values)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    name = sys.argv[3] if len(sys.argv) == 4 else "solution"
    a, b = read_field(sys.argv[1], name), read_field(sys.argv[2], name)
    if len(a) != len(b):
        sys.exit("the fields have %d and %d values: not the same mesh" % (len(a), len(b)))
    largest = max(abs(x) for x in a)
    max_difference = max(abs(x - y) for x, y in zip(a, b))
    l2 = (sum((x - y) ** 2 for x, y in zip(a, b)) / sum(x * x for x in a)) ** 0.5
    print("%d values of '%s': max |a - b| / max |a| = %.3e, relative l2 = %.3e (Float32 data)"
          % (len(a), name, max_difference / largest, l2))


if __name__ == "__main__":
    main()
