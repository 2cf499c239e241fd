#!/usr/bin/env python3
"""sprung against Rapier on the standard scenes, the way docs/PERFORMANCE.md measures them.

The machines these run on are shared and noisy, so the two engines run alternately, scene by
scene, each `--reps` times, and each keeps its best (smallest) `ms_per_step`: a neighbour's
burst then slows both rather than one. Printed per scene and mode: both times, sprung's over
Rapier's, and sprung's collide stage (broad and narrow phase) over Rapier's whole step, the
two ratios issues 13 and 15 set targets for. Nothing is built here:

    cargo build --release -p sprung-demos --bin sprung
    cargo build --release --manifest-path ../shared/peer/rapier/Cargo.toml
    python3 benches/side_by_side.py                     # every contact scene, both modes
    python3 benches/side_by_side.py --scenes convex --modes nosleep --reps 5 --threads 2
    python3 benches/side_by_side.py --rapier PATH/fast/rapier-scenes --rapier-threads 1

`--json` prints one JSON object per line instead of the table (for notes and scripts). Each
row carries this machine's one-minute load average after it: about 1 is the run itself, more
means something else ran beside it (a build, a test) and the row should be taken again. The
host's other tenants do not show there, yet a busy host slows Rapier more than sprung and
flatters the ratios: the runs where Rapier was fastest are the ones to quote.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENES = "pyramid,pyramid3d,boxes,balls,convex,large_pyramid,many_pyramids"


def json_line(command):
    """The first JSON line a run prints (SCENES.md's report), or exit with what went wrong."""
    run = subprocess.run(command, capture_output=True, text=True)
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"no JSON line from {' '.join(command)}:\n{run.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", default=SCENES, help="comma-separated (default: %(default)s)")
    parser.add_argument("--modes", default="sleep,nosleep", help="sleep, nosleep or both")
    parser.add_argument("--reps", type=int, default=3, help="runs of each engine (best kept)")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, default=1, help="sprung's (Rapier runs on one)")
    parser.add_argument(
        "--rapier-threads",
        type=int,
        help="passed to Rapier as --threads (its fast build, with `parallel`, else uses every core)",
    )
    parser.add_argument("--sprung", default=os.path.join(ROOT, "target/release/sprung"))
    parser.add_argument(
        "--rapier",
        default=os.path.join(ROOT, "../shared/peer/rapier/target/release/rapier-scenes"),
    )
    parser.add_argument("--json", action="store_true", help="JSON lines instead of a table")
    args = parser.parse_args()
    for binary in (args.sprung, args.rapier):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary} is missing: build it first (see the top of this file)")

    if not args.json:
        print(f"{'scene':14} {'mode':8} {'sprung ms':>10} {'rapier ms':>10} {'ratio':>6} "
              f"{'collide ms':>11} {'/ rapier':>9} {'load':>5}")
    for scene in args.scenes.split(","):
        for mode in args.modes.split(","):
            extra = ["--no-sleep"] if mode == "nosleep" else []
            steps = ["--steps", str(args.steps)]
            best_s = best_r = None
            for _ in range(args.reps):
                s = json_line([args.sprung, "bench", scene, "--json", "--threads",
                               str(args.threads)] + steps + extra)
                if best_s is None or s["ms_per_step"] < best_s["ms_per_step"]:
                    best_s = s
                threads = [] if args.rapier_threads is None else ["--threads",
                                                                  str(args.rapier_threads)]
                r = json_line([args.rapier, scene] + steps + extra + threads)
                if best_r is None or r["ms_per_step"] < best_r["ms_per_step"]:
                    best_r = r
            s_ms, r_ms = best_s["ms_per_step"], best_r["ms_per_step"]
            collide = best_s.get("ms_collide")
            row = {
                "scene": scene,
                "sleep": mode != "nosleep",
                "threads": args.threads,
                "rapier_threads": args.rapier_threads,
                "sprung_ms": s_ms,
                "rapier_ms": r_ms,
                "ratio": s_ms / r_ms,
                "sprung_collide_ms": collide,
                "collide_over_rapier": collide / r_ms if collide is not None else None,
                "ok": best_s.get("ok"),
                "load": os.getloadavg()[0],
            }
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                over = f"{row['collide_over_rapier']:9.2f}" if collide is not None else ""
                print(f"{scene:14} {mode:8} {s_ms:10.3f} {r_ms:10.3f} {row['ratio']:6.2f} "
                      f"{collide or 0.0:11.3f} {over} {row['load']:5.2f}", flush=True)


if __name__ == "__main__":
    main()
