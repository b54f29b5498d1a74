"""Tests of the board layer."""
