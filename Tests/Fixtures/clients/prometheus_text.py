#!/usr/bin/env python3
"""Parses Prometheus text exposition from stdin with prometheus-client's own parser (what a
Prometheus-compatible scraper accepts) and prints one JSON object: "name{label=value,...}" → value.
Exits 1 with the parser's error on text it rejects."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    samples = {}
    for family in text_string_to_metric_families(sys.stdin.read()):
        for sample in family.samples:
            labels = ",".join("%s=%s" % item for item in sorted(sample.labels.items()))
            samples["%s{%s}" % (sample.name, labels)] = sample.value
            samples.setdefault("#types", {})[family.name] = family.type
    print(json.dumps(samples))
except Exception as error:  # the parser's complaint, whatever it is
    print("not Prometheus text: %s" % error, file=sys.stderr)
    sys.exit(1)
