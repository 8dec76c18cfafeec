#!/usr/bin/env python3
"""Scores scannerd's events on a generated clip against its truth (issue #13).

    scannerd run --no-socket --source CLIP.mjpeg --pace none --events-stdout > EVENTS.jsonl
    python3 Tests/Fixtures/footage/score.py CLIP.json EVENTS.jsonl [--json]

Standard library only. Per clip:
- recall: truth items (not distractors) that were legible in some frame and were added, with the
  payload the truth gives;
- precision: reports that are a truth item (right payload), over all reports; a report is an
  `added` event, or an `updated` event that changes its item's payload (an item that flips to
  another reading claims that reading); an added distractor, a misread or anything on the empty
  desk counts against it;
- duplicates: extra `added` events for a truth item (a second id for the same thing);
- flicker: an item removed while it was still visible, then added again;
- add latency: frames from the item's first legible frame to its `added` (and, apart, that of the
  phone numbers alone, which issue #13's latency goal is about);
- removal latency: frames from the item's last visible frame to its `removed`.
"""
import argparse
import json


def load_events(path):
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return events


def score(truth, events):
    wanted = [item for item in truth["items"] if not item.get("distractor")]
    by_payload = {item["payload"]: item for item in wanted}
    added = [e for e in events if e.get("event") == "added"]
    removed = {e["item"]["id"]: e for e in events if e.get("event") == "removed"}
    first_added = {}
    duplicates = 0
    correct = 0
    flicker = 0
    wrong = []
    # An `updated` that changes its item's payload is a report of the new payload.
    changed = []
    current = {}
    for event in events:
        item = event.get("item")
        if event.get("event") == "added":
            current[item["id"]] = item["payload"]
        elif event.get("event") == "updated" and item["id"] in current and current[item["id"]] != item["payload"]:
            current[item["id"]] = item["payload"]
            changed.append(item["payload"])
    for payload in changed:
        if payload in by_payload:
            correct += 1
        else:
            wrong.append(payload)
    for event in added:
        payload = event["item"]["payload"]
        if payload in by_payload:
            correct += 1
            if payload in first_added:
                duplicates += 1
                previous = first_added[payload]
                gone = removed.get(previous["item"]["id"])
                visible = {fr["frame"] for fr in by_payload[payload]["frames"] if fr["visible"]}
                if gone is not None and gone["frame"] in visible:
                    flicker += 1
            else:
                first_added[payload] = event
        else:
            wrong.append(payload)
    legible = [item for item in wanted if any(fr["legible"] for fr in item["frames"])]
    found = [item for item in legible if item["payload"] in first_added]
    add_latency, phone_latency, removal_latency = [], [], []
    for item in found:
        first_legible = min(fr["frame"] for fr in item["frames"] if fr["legible"])
        add_latency.append(first_added[item["payload"]]["frame"] - first_legible)
        if item.get("contentType") == "telephoneNumber":
            phone_latency.append(add_latency[-1])
        last_visible = max((fr["frame"] for fr in item["frames"] if fr["visible"]), default=None)
        gone = removed.get(first_added[item["payload"]]["item"]["id"])
        if last_visible is not None and gone is not None:
            removal_latency.append(gone["frame"] - last_visible)
    return {
        "scenario": truth["scenario"], "seed": truth["seed"],
        "legible": len(legible), "found": len(found),
        "missed": sorted(item["payload"] for item in legible if item["payload"] not in first_added),
        "added": len(added) + len(changed), "changed": len(changed), "correct": correct, "wrong": wrong,
        "recall": len(found) / len(legible) if legible else 1.0,
        "precision": correct / (len(added) + len(changed)) if added or changed else 1.0,
        "duplicates": duplicates, "flicker": flicker,
        "addLatency": add_latency, "phoneAddLatency": phone_latency, "removalLatency": removal_latency,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("truth")
    parser.add_argument("events")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with open(args.truth) as f:
        truth = json.load(f)
    result = score(truth, load_events(args.events))
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['scenario']}-s{result['seed']}: recall {result['found']}/{result['legible']}, "
              f"precision {result['correct']}/{result['added']}, duplicates {result['duplicates']}, flicker {result['flicker']}, "
              f"add latency {result['addLatency']} (phone numbers {result['phoneAddLatency']}), removal latency {result['removalLatency']}, "
              f"missed {result['missed']}, wrong {result['wrong']}")


if __name__ == "__main__":
    main()
