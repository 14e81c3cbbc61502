#!/usr/bin/env python3
"""Writes formulas.xlsx as openpyxl writes a workbook: its formulas saved without their values
(openpyxl computes none), for XLSXCellTests.

    pip install openpyxl && python3 Tests/pipectlTests/Fixtures/openpyxl/make.py

The .xlsx is committed, so the tests need no Python; this script says how it came to be and
makes it again. Written with openpyxl 3.1.5.
"""
import os

import openpyxl

HERE = os.path.dirname(os.path.abspath(__file__))

book = openpyxl.Workbook()
sheet = book.active
sheet.title = "Items"
sheet.append(["name", "quantity", "note", "helper"])
sheet.append(["Tea", "=1/0", "loose", None])           # a formula Excel would show as #DIV/0!
sheet.append(["Rice", "=2*3", '="a"&"b"', None])      # a number and a text formula
sheet.append(["Milk", 4, "fresh", "=B4*2"])           # a formula in a column the pipeline does not read
sheet.append(["Bread", 2, "sliced", None])
book.save(os.path.join(HERE, "formulas.xlsx"))
