"""Reads a DXF with ezdxf, the reference reader of the fidelity tests, and prints JSON:
{"insunits": N, "layers": [names], "polylines": [{"layer", "closed", "points": [[x, y]...]}]}.
Usage: python3 ezdxf-read.py FILE.dxf"""
import json
import sys

import ezdxf

doc = ezdxf.readfile(sys.argv[1])
out = {
    "insunits": doc.header.get("$INSUNITS", None),
    "extmax": list(doc.header.get("$EXTMAX", (0, 0, 0)))[:2],
    "layers": sorted(layer.dxf.name for layer in doc.layers),
    "polylines": [],
}
for e in doc.modelspace():
    if e.dxftype() == "POLYLINE":
        out["polylines"].append({
            "layer": e.dxf.layer,
            "closed": e.is_closed,
            "points": [[v.dxf.location.x, v.dxf.location.y] for v in e.vertices],
        })
    elif e.dxftype() == "LWPOLYLINE":
        out["polylines"].append({
            "layer": e.dxf.layer,
            "closed": e.closed,
            "points": [[p[0], p[1]] for p in e.get_points("xy")],
        })
# json.dumps, not json.dump: dump streams through the pure-Python encoder in some half a
# million small writes for a photo's DXF, as long as ezdxf's reading; dumps uses the C
# encoder and writes once.
sys.stdout.write(json.dumps(out))
