#!/usr/bin/env python3
"""RFC 8785 with the rfc8785 package (an implementation crossverify did not write).

usage: jcs.py FILE  (one JSON document per line) -> one line per document: hex of its JCS bytes
"""
import sys

import rfc8785
import json

with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if line.strip():
            print(rfc8785.dumps(json.loads(line)).hex())
