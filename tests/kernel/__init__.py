"""Tests of the kernel layer."""
