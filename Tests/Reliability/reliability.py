#!/usr/bin/env python3
"""SceneSync reliability runner: crash, fuzz, exhaust, slow and hostile suites against a real server.

    python3 Tests/Reliability/reliability.py all --quick        # the bounded CI profile
    python3 Tests/Reliability/reliability.py crash --cycles 40  # longer, by hand

The server binary is $SCENESYNC_BIN (default .build/debug/scenesync, from the repository root).
Exits 1 if any check of any suite failed. See Tests/Reliability/README.md.
"""
import argparse
import json
import os
import random
import resource
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cluster  # noqa: E402
import crash  # noqa: E402
import exhaust  # noqa: E402
import fuzz  # noqa: E402
import hostile  # noqa: E402
import slow  # noqa: E402
from report import log  # noqa: E402
from server import binary_path  # noqa: E402

SUITES = {"crash": crash, "fuzz": fuzz, "exhaust": exhaust, "slow": slow, "hostile": hostile}
# Suites that need more than the server (cluster: PostgreSQL, nginx, deploy/local-cluster): run by
# name only, not by `all`.
EXTRA_SUITES = {"cluster": cluster}

# Sizes per profile: --quick keeps all suites together within a few minutes on two cores (hostile about one).
PROFILES = {
    "quick": dict(cycles=15, windows=8, kill_min=0.4, kill_max=2.0, max_items=150,
                  frames=20_000, seconds=45.0, workers=3,
                  connections=600, open_files=256, head_timeout=3.0,
                  silent=600, hello_timeout=2.0, items=1_500, followers=200, flood_seconds=5.0),
    "long": dict(cycles=40, windows=24, kill_min=0.4, kill_max=4.0, max_items=300,
                 frames=100_000, seconds=1_800.0, workers=4,
                 connections=1_500, open_files=256, head_timeout=3.0,
                 silent=1_000, hello_timeout=5.0, items=1_500, followers=800, flood_seconds=20.0),
}


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", choices=list(SUITES) + list(EXTRA_SUITES) + ["all"])
    parser.add_argument("--quick", action="store_true", help="the bounded CI profile")
    parser.add_argument("--seed", type=int, help="random seed (printed; the same seed replays the same choices)")
    parser.add_argument("--json", metavar="FILE", help="write every suite's figures to FILE")
    crash_group = parser.add_argument_group("crash")
    crash_group.add_argument("--cycles", type=int, help="kill -9 cycles")
    crash_group.add_argument("--windows", type=int, help="windows acting at once")
    crash_group.add_argument("--kill-min", type=float, help="least seconds of load before the kill")
    crash_group.add_argument("--kill-max", type=float, help="most seconds of load before the kill")
    crash_group.add_argument("--max-items", type=int, help="longest list kept between cycles (over it, the oldest rows are deleted)")
    fuzz_group = parser.add_argument_group("fuzz")
    fuzz_group.add_argument("--frames", type=int, help="frames to send in all")
    fuzz_group.add_argument("--seconds", type=float, help="stop fuzzing after this long even if frames are left")
    fuzz_group.add_argument("--workers", type=int, help="connections fuzzing at once")
    exhaust_group = parser.add_argument_group("exhaust")
    exhaust_group.add_argument("--connections", type=int, help="idle connections to open (more than the fd limit)")
    exhaust_group.add_argument("--open-files", type=int, help="the server's open-file limit (ulimit -n)")
    slow_group = parser.add_argument_group("slow")
    slow_group.add_argument("--head-timeout", type=float, help="the server's --request-head-timeout and --request-body-timeout")
    hostile_group = parser.add_argument_group("hostile")
    hostile_group.add_argument("--case", help="hostile cases to run, by number or name, comma-separated (default: all)")
    hostile_group.add_argument("--silent", type=int, help="WebSocket upgrades that never say hello")
    hostile_group.add_argument("--hello-timeout", type=float, help="the server's --hello-timeout for the silent case")
    hostile_group.add_argument("--items", type=int, help="LootLogger items before a window stops reading")
    hostile_group.add_argument("--followers", type=int, help="widget followers (Server-Sent Events), half never reading")
    hostile_group.add_argument("--flood-seconds", type=float, help="how long each flood lasts (orders, pings, Chat, Adds)")
    cluster.add_options(parser)
    parser.add_argument("--keep", action="store_true", help="cluster: keep the cluster's folder (its logs)")
    options = parser.parse_args(argv)
    for key, value in PROFILES["quick" if options.quick else "long"].items():
        if getattr(options, key) is None:
            setattr(options, key, value)
    if options.seed is None:
        options.seed = random.randrange(1, 2**31)
    return options


def main(argv):
    options = parse(argv)
    # Stopped with SIGTERM, unwind as for Ctrl-C, so that every suite stops the servers it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # The exhaust suite holds more sockets than the usual soft limit of 1,024.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if not os.access(binary_path(), os.X_OK):
        log(f"no scenesync executable at {binary_path()}: build it, or set SCENESYNC_BIN")
        return 2
    log(f"SceneSync reliability: {options.suite} ({'quick' if options.quick else 'long'}), "
        f"seed {options.seed}, server {binary_path()}")
    names = list(SUITES) if options.suite == "all" else [options.suite]
    results, started = [], time.monotonic()
    for name in names:
        suite_started = time.monotonic()
        result = {**SUITES, **EXTRA_SUITES}[name].run(options)
        result.figures["seconds"] = round(time.monotonic() - suite_started, 1)
        results.append(result)
        log(f"{name}: {'ok' if result.ok else 'FAILED'} in {result.figures['seconds']} s")
    wall = time.monotonic() - started
    log("\nSummary")
    for result in results:
        log(f"  {'ok  ' if result.ok else 'FAIL'} {result.summary}")
        for failure in result.failures:
            log(f"       - {failure}")
    log(f"  wall time {wall:.1f} s, seed {options.seed}")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"seed": options.seed, "quick": options.quick, "wall_seconds": round(wall, 1),
                       "suites": {r.suite: r.as_json() for r in results}}, f, indent=2)
            f.write("\n")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
