"""Tests of the answers layer."""
