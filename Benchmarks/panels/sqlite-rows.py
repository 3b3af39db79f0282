#!/usr/bin/env python3
"""Prints the rows of the one query on standard input, run against the SQLite database named, a line each."""
import sqlite3
import sys

with sqlite3.connect(sys.argv[1], timeout=60) as ledger:
    for row in ledger.execute(sys.stdin.read()):
        print("|".join(str(value) for value in row))
