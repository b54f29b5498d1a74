"""Tests of the faces: the command line and the service, as users and clients meet them."""
