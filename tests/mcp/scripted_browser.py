"""A browser for `$BROWSER` in tests: loads the page given as its argument and follows every redirect
(to EdgeHost's loopback callback in the end), as a browser does once its user has consented."""

from __future__ import annotations

import sys

import httpx2

from edgehost.slow_machine import scaled_wait

# The whole visit: the authorization page, its redirects and the callback page, all on loopback.
VISIT_TIMEOUT_S = scaled_wait(20.0)

if __name__ == "__main__":
    response = httpx2.get(sys.argv[1], follow_redirects=True, timeout=VISIT_TIMEOUT_S)
    print(f"browser: {response.status_code} {response.url}", file=sys.stderr)
    sys.exit(0 if response.status_code == 200 else 1)
