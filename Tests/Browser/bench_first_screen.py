#!/usr/bin/env python3
"""First screen and bytes of an app's page in headless Chromium, on loopback: a benchmark, not a test.

    python3 Tests/Browser/bench_first_screen.py                      # LootLogger, 15 rounds
    python3 Tests/Browser/bench_first_screen.py --app restaurant --rounds 30
    python3 Tests/Browser/bench_first_screen.py --server /path/to/older/scenesync

Each round opens a new Chromium (an empty cache) on the home page, which loads none of the
renderer's files, then visits the app's page, then visits it again (a new navigation, as a
bookmark). It prints, for the first visit and the revisit, the median and the
slowest time from the navigation's start to the first screen drawn (see page_load.py), the bytes
over the network (`transferSize`, headers of `304` answers included) and the requests.
BENCHMARKS.md ("The first screen") has the figures.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conftest  # noqa: E402
from conftest import Server, chromium  # noqa: E402
from page_load import observe_first_screen, visit  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", default="lootlogger")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--server", help="the scenesync binary (default: .build/debug/scenesync)")
    options = parser.parse_args()
    if options.server:
        conftest.SERVER = os.path.abspath(options.server)
    server = Server()
    server.start()
    visits = {"first visit": [], "revisit": []}
    try:
        for _ in range(options.rounds):
            driver = chromium()
            try:
                observe_first_screen(driver)
                # A browser already running: the home page (none of the renderer's files) first.
                driver.get(server.url + "/")
                visits["first visit"].append(visit(driver, f"{server.url}/{options.app}"))
                visits["revisit"].append(visit(driver, f"{server.url}/{options.app}"))
            finally:
                driver.quit()
    finally:
        server.close()
    print(f"{options.app}, {options.rounds} rounds, server {conftest.SERVER}")
    for name, runs in visits.items():
        times = sorted(run["firstScreen"] for run in runs)
        print(f"  {name:11}  first screen median {statistics.median(times):6.1f} ms, slowest {times[-1]:6.1f} ms; "
              f"{statistics.median(run['transfer'] for run in runs) / 1024:6.1f} KiB over the network, "
              f"{statistics.median(run['requests'] for run in runs):.0f} requests "
              f"({statistics.median(run['fetched'] for run in runs):.0f} fetched)")


if __name__ == "__main__":
    main()
