#!/usr/bin/env python3
"""Writes the recipes-photos example's pictures (pipelines/recipes-photos.yaml), all our own:
colour gradients as small PNGs, and one picture of seeded noise over Core Data's 128 KB external
storage threshold, which PNG cannot compress. Deterministic: run again, the same bytes.

  python3 pipelines/data/make-photos.py
"""
import pathlib
import random
import struct
import zlib


def png(path: pathlib.Path, width: int, height: int, pixel) -> None:
    rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in pixel(x, y)) for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main() -> None:
    folder = pathlib.Path(__file__).parent / "photos"
    png(folder / "shakshuka.png", 48, 32, lambda x, y: (200 + x, 60 + y * 3, 40))
    png(folder / "dal.png", 48, 32, lambda x, y: (230, 170 + y, 40 + x))
    noise = random.Random(20261126)
    png(folder / "pancakes.png", 220, 220, lambda x, y: (noise.randrange(256), noise.randrange(256), noise.randrange(256)))


if __name__ == "__main__":
    main()
