"""Recorded fingerprints of core results (:mod:`tests.fingerprint`)."""

from pathlib import Path

#: Numbers the default mechanisms produced before the mechanism seam (issue 12).
PINS = Path(__file__).with_name("seam_pins.json")
