#!/usr/bin/env python3
"""Runs the SQL script on standard input against the SQLite database named (no sqlite3 command needed)."""
import sqlite3
import sys

with sqlite3.connect(sys.argv[1], timeout=60) as ledger:
    ledger.executescript(sys.stdin.read())
