#!/usr/bin/env python3
"""Writes the workbooks LibreOffice made for XLSXReaderTests: each .fods here (LibreOffice's flat
XML spreadsheet, written by this script) converted to .xlsx by LibreOffice itself, headless.

    python3 Tests/ExtrasTests/Fixtures/libreoffice/make.py     # needs libreoffice-calc-nogui

The .xlsx files are committed, so the tests need no LibreOffice; this script says how they came to
be and makes them again. Written with LibreOffice 7.4 (Debian 12).
"""
import glob
import os
import shutil
import subprocess
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

HEAD = '''<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
 <office:automatic-styles>
  <number:date-style style:name="day"><number:day number:style="long"/><number:text>/</number:text><number:month number:style="long"/><number:text>/</number:text><number:year number:style="long"/></number:date-style>
  <number:date-style style:name="minute"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/><number:text> </number:text><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/></number:date-style>
  <style:style style:name="ceDay" style:family="table-cell" style:data-style-name="day"/>
  <style:style style:name="ceMinute" style:family="table-cell" style:data-style-name="minute"/>
  <style:style style:name="bold" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
 </office:automatic-styles>
 <office:body><office:spreadsheet>
'''
TAIL = ' </office:spreadsheet></office:body>\n</office:document>\n'


def text(value, runs=None):
    return f'<table:table-cell office:value-type="string"><text:p>{runs or value}</text:p></table:table-cell>'


def number(value):
    return f'<table:table-cell office:value-type="float" office:value="{value}"><text:p>{value}</text:p></table:table-cell>'


def date(value, style='ceDay'):
    return f'<table:table-cell table:style-name="{style}" office:value-type="date" office:date-value="{value}"><text:p>{value}</text:p></table:table-cell>'


def boolean(value):
    return f'<table:table-cell office:value-type="boolean" office:boolean-value="{value}"><text:p>{value.upper()}</text:p></table:table-cell>'


def formula(expression, value):
    return f'<table:table-cell table:formula="of:={expression}" office:value-type="float" office:value="{value}"><text:p>{value}</text:p></table:table-cell>'


def text_formula(expression, value):
    return f'<table:table-cell table:formula="of:={expression}" office:value-type="string" office:string-value="{value}"><text:p>{value}</text:p></table:table-cell>'


EMPTY = '<table:table-cell/>'


def row(*cells):
    return '<table:table-row>' + ''.join(cells) + '</table:table-row>\n'


def table(name, rows):
    return f'<table:table table:name="{name}">\n' + ''.join(rows) + '</table:table>\n'


HEADER = row(*(text(n) for n in ['name', 'quantity', 'code', 'added', 'listed', 'total', 'label']))

kinds = HEAD + table('Items', [
    HEADER,
    row(text('Fresh parsley', 'Fresh <text:span text:style-name="bold">parsley</text:span>'), number('0.1'), text('007'),
        date('2024-12-01'), boolean('true'), formula('[.B2]*120', '12'), text_formula('&quot;Mi&quot;&amp;&quot;lk&quot;', 'Milk')),
    row(text('Eggs'), number('1234567.891'), EMPTY, date('2024-12-01T18:30:00', 'ceMinute'), boolean('false'), number('-3'), EMPTY),
    row(text('Tea'), '<table:table-cell table:formula="of:=1/0" office:value-type="float" office:value="0"><text:p>#DIV/0!</text:p></table:table-cell>'),
    row(),
    row(text('Rice')),
]) + table('Units', [row(text('unit')), row(text('kg'))]) + TAIL

# The 1904 date system (LibreOffice: Tools > Options > Calculate > Date).
mac = HEAD + ' <table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>\n' + table('Items', [
    row(text('name'), text('added')),
    row(text('Fresh parsley'), date('2024-12-01')),
    row(text('Epoch'), date('2001-01-01')),
]) + TAIL

with tempfile.TemporaryDirectory() as work:
    for name, document in [('cell-kinds', kinds), ('date-1904', mac)]:
        with open(os.path.join(HERE, name + '.fods'), 'w') as f:
            f.write(document)
        subprocess.run(['soffice', '--headless', f'-env:UserInstallation=file://{work}/profile', '--convert-to', 'xlsx',
                        '--outdir', work, os.path.join(HERE, name + '.fods')], check=True, capture_output=True)
        shutil.copy(os.path.join(work, name + '.xlsx'), os.path.join(HERE, name + '.xlsx'))
for path in sorted(glob.glob(os.path.join(HERE, '*.xlsx'))):
    print(path, zipfile.ZipFile(path).namelist())
