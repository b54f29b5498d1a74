"""Tests of the engines layer."""
