#!/usr/bin/env python3
"""DSSE with securesystemslib (an implementation crossverify did not write).

usage: sslib.py sign SEED_HEX KEYID PAYLOAD_FILE   -> prints the DSSE envelope JSON
       sslib.py verify PUBKEY_HEX KEYID ENVELOPE_FILE -> exit 0 when it verifies, 1 when not
"""
import json
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.dsse import Envelope
from securesystemslib.signer import CryptoSigner, SSlibKey

PAYLOAD_TYPE = "application/vnd.in-toto+json"


def key(keyid, public_hex):
    return SSlibKey(keyid, "ed25519", "ed25519", {"public": public_hex})


def sign(seed_hex, keyid, payload_file):
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
    public_hex = private.public_key().public_bytes_raw().hex()
    signer = CryptoSigner(private, key(keyid, public_hex))
    with open(payload_file, "rb") as f:
        env = Envelope(f.read(), PAYLOAD_TYPE, {})
    env.sign(signer)
    print(json.dumps(env.to_dict(), sort_keys=True))


def verify(public_hex, keyid, envelope_file):
    with open(envelope_file, "rb") as f:
        env = Envelope.from_dict(json.load(f))
    try:
        env.verify([key(keyid, public_hex)], 1)
    except Exception as e:  # VerificationError and friends: any refusal is a refusal
        print(f"refused: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)


if sys.argv[1] == "sign":
    sign(*sys.argv[2:5])
else:
    verify(*sys.argv[2:5])
