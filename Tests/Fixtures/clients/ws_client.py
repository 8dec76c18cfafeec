#!/usr/bin/env python3
"""A real WebSocket client for the tests (python-websockets), as a kiosk page's script would be.

Connects to URL, prints every text message it receives on a line of its own, sends each --send
message once the first message (the daemon's hello) has arrived, and exits after --seconds, or as
soon as a received message contains --until. A refused upgrade prints "status N" and exits 2.

usage: ws_client.py URL [--origin ORIGIN] [--send JSON]... [--binary] [--until TEXT] [--seconds N]
"""
import argparse
import sys
import time

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--origin")
    parser.add_argument("--send", action="append", default=[])
    parser.add_argument("--binary", action="store_true", help="send the messages as binary frames")
    parser.add_argument("--until")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    deadline = time.monotonic() + args.seconds
    try:
        with connect(args.url, origin=args.origin, open_timeout=args.seconds) as ws:
            sent = False
            while time.monotonic() < deadline:
                try:
                    message = ws.recv(timeout=max(0.01, deadline - time.monotonic()))
                except TimeoutError:
                    break
                print(message if isinstance(message, str) else "binary " + message.hex(), flush=True)
                if args.until and args.until in str(message):
                    return 0
                if not sent:
                    sent = True
                    for text in args.send:
                        ws.send(text.encode() if args.binary else text)
    except InvalidStatus as refused:
        print("status %d" % refused.response.status_code, flush=True)
        return 2
    except ConnectionClosed as closed:
        print("closed %s" % (closed.rcvd.code if closed.rcvd else "-"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
