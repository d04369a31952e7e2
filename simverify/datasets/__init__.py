"""Readers of public data sets in their published file layouts (no data is shipped or downloaded)."""
