#!/usr/bin/python3
"""The peer baseline of issue 21: scikit-image's skeletonize followed by polyline
extraction, on the synthetic stroke images BenchmarkAccuracy writes.

Usage: /usr/bin/python3 skimage_baseline.py DIR   (needs Debian's python3-skimage)

For every DIR/<name>.png it binarises like the centerline engine's default (luma < 128
is ink), skeletonizes (Zhang's method, skimage.morphology.skeletonize), splits the
skeleton into polylines between end points and junction clusters (each pixel chain one
stroke, as the usual extraction does), takes each polyline's width as twice the median
Euclidean distance transform along it, less the half pixel to the edge, and writes
DIR/<name>.skimage.json as [{"Points": [{"X":..,"Y":..}], "Width": w}] in pixel-centre
coordinates, the format synth.Stroke decodes.
"""
import glob
import json
import os
import sys

import numpy as np
from scipy import ndimage
from skimage import io
from skimage.morphology import skeletonize

RING = [(1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1)]


def strokes(ink):
    sk = skeletonize(ink)
    edt = ndimage.distance_transform_edt(ink)
    h, w = sk.shape
    on = lambda x, y: 0 <= x < w and 0 <= y < h and sk[y, x]
    deg = np.zeros(sk.shape, int)
    ys, xs = np.nonzero(sk)
    for x, y in zip(xs, ys):
        deg[y, x] = sum(on(x + dx, y + dy) for dx, dy in RING)
    node = {}
    centres = []
    for x, y in zip(xs, ys):
        if deg[y, x] == 2 or (x, y) in node:
            continue
        nid = len(centres)
        stack, members = [(x, y)], []
        node[(x, y)] = nid
        while stack:
            px, py = stack.pop()
            members.append((px, py))
            if deg[py, px] < 3:
                continue
            for dx, dy in RING:
                q = (px + dx, py + dy)
                if on(*q) and deg[q[1], q[0]] >= 3 and q not in node:
                    node[q] = nid
                    stack.append(q)
        centres.append((np.mean([m[0] for m in members]) + 0.5, np.mean([m[1] for m in members]) + 0.5))
    visited = set()
    out = []

    def emit(chain):
        rs = [edt[y, x] for x, y in chain]
        pts = [{"X": x + 0.5, "Y": y + 0.5} for x, y in chain]
        out.append({"Points": pts, "Width": max(1.0, 2 * float(np.median(rs)) - 1)})

    for (x, y), nid in sorted(node.items()):
        for dx, dy in RING:
            q = (x + dx, y + dy)
            if not on(*q) or q in visited:
                continue
            if q in node:
                if node[q] > nid:
                    emit([(x, y), q])
                continue
            chain, prev, cur = [(x, y)], (x, y), q
            while True:
                visited.add(cur)
                chain.append(cur)
                nxt = None
                for ddx, ddy in RING:
                    c = (cur[0] + ddx, cur[1] + ddy)
                    if on(*c) and c != prev and c not in visited and not (c in node and len(chain) == 2 and c == chain[0]):
                        nxt = c
                        break
                if nxt is None or nxt in node:
                    if nxt is not None:
                        chain.append(nxt)
                    break
                prev, cur = cur, nxt
            emit(chain)
    for x, y in zip(xs, ys):
        if (x, y) in visited or (x, y) in node:
            continue
        chain, cur, prev = [], (x, y), None
        while cur is not None:
            visited.add(cur)
            chain.append(cur)
            nxt = None
            for dx, dy in RING:
                c = (cur[0] + dx, cur[1] + dy)
                if on(*c) and c != prev and c not in visited:
                    nxt = c
                    break
            prev, cur = cur, nxt
        chain.append(chain[0])
        emit(chain)
    return out


def main(d):
    for path in sorted(glob.glob(os.path.join(d, "*.png"))):
        img = io.imread(path).astype(float)
        luma = 0.299 * img[..., 0] + 0.587 * img[..., 1] + 0.114 * img[..., 2]
        res = strokes(luma < 128)
        with open(path[:-4] + ".skimage.json", "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main(sys.argv[1])
