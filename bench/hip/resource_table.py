#!/usr/bin/env python3
"""The README's CDNA resource table, from the manifests of hip library builds.

    argus-gen build --catalog shapes/llama3-8b.yaml --target hip-gfx942 --out /tmp/l942
    argus-gen build --catalog shapes/llama3-8b.yaml --target hip-gfx90a --out /tmp/l90a
    bench/hip/resource_table.py /tmp/l942/manifest.json /tmp/l90a/manifest.json

One row per kernel of each code object (clang's AMDGPU metadata and the MFMA count of its
listing, as the manifest records them), then one per kernel the build left out, with why.
"""
import json
import sys


def rows(manifest):
    arch = manifest["target"].removeprefix("hip-")
    generated = {g["symbol"] for g in manifest.get("generated_kernels", [])}
    for k in manifest["code_object"]["kernels"]:
        spills = k["vgpr_spills"] + k["sgpr_spills"]
        if k["sgpr_spills"]:  # SGPRs parked in VGPR lanes: say how often the listing moves them
            spills = f"{spills} ({k['lane_moves']} lane moves in {k['instructions']} instr.)"
        origin = "generated" if k["name"] in generated else "hand-written"
        yield (f"| {arch} | {k['name']} | {origin} | {k['vgprs']} | {k['agprs']} | {k['sgprs']} | "
               f"{k['lds_bytes']} | {k['scratch_bytes']} | {spills} | {k['mfma_instructions']} |")
    for k in manifest.get("left_out_kernels", []):
        yield f"| {arch} | {k['symbol']} | left out: {k['why']} | | | | | | | |"


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| arch | kernel | source | VGPRs (all) | of them AGPRs | SGPRs | LDS bytes | scratch | spills "
          "| MFMA instr. |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        with open(path) as f:
            for row in rows(json.load(f)):
                print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
