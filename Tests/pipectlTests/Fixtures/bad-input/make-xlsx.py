#!/usr/bin/env python3
"""Writes the xlsx cases of the bad-input corpus (xlsx-*.xlsx), byte for byte the same on every run.

Run from anywhere: python3 Tests/pipectlTests/Fixtures/bad-input/make-xlsx.py
Each workbook is the smallest one that shows its fault; the manifest (cases.json) says what
pipectl must print for it.
"""
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
STAMP = (2026, 11, 26, 0, 0, 0)
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
REL = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'

TYPES = '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'
WORKBOOK = f'<?xml version="1.0"?><workbook {NS} {REL}><sheets><sheet name="Items" sheetId="1" r:id="rId1"/></sheets></workbook>'


def rels(target):
    return ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="worksheet" Target="{target}"/></Relationships>')


def sheet(rows, prolog=''):
    return f'<?xml version="1.0"?>{prolog}<worksheet {NS}><sheetData>{rows}</sheetData></worksheet>'


def inline(ref, text):
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


HEADER = f'<row r="1">{inline("A1", "name")}{inline("B1", "unit")}</row>'


def write(name, parts):
    path = os.path.join(HERE, name)
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as archive:
        for part, data in parts:
            info = zipfile.ZipInfo(part, date_time=STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)


def workbook(name, sheet_xml=None, target='worksheets/sheet1.xml', extra=()):
    parts = [('[Content_Types].xml', TYPES), ('xl/workbook.xml', WORKBOOK), ('xl/_rels/workbook.xml.rels', rels(target))]
    if sheet_xml is not None:
        parts.append(('xl/worksheets/sheet1.xml', sheet_xml))
    write(name, parts + list(extra))


# An error cell: the record is rejected at the cell.
workbook('xlsx-error-cell.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}<c r="B2" t="e"><v>#N/A</v></c></row>'))
# The workbook names a sheet part the archive does not hold.
workbook('xlsx-sheet-missing.xlsx')
# A sheet that inflates past the ratio limit: 100 MB of spaces pack into about 100 KB.
workbook('xlsx-zip-bomb.xlsx', sheet(HEADER) + ' ' * (100 << 20))
# A relationship whose target climbs out of the archive.
workbook('xlsx-path-outside.xlsx', sheet(HEADER), target='../../../../etc/passwd')
# A sheet declaring entities that would expand a billion times if substituted, and an external one.
LAUGHS = ('<!DOCTYPE worksheet [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
          '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
          '<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">'
          '<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">'
          '<!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;"><!ENTITY x SYSTEM "file:///etc/passwd">]>')
workbook('xlsx-entities.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "&i;")}{inline("B2", "&x;")}</row>', prolog=LAUGHS))
# The same entities in the shared strings, which are read whole.
write('xlsx-entities-shared-strings.xlsx', [
    ('[Content_Types].xml', TYPES), ('xl/workbook.xml', WORKBOOK), ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml')),
    ('xl/sharedStrings.xml', f'<?xml version="1.0"?>{LAUGHS.replace("worksheet", "sst")}<sst {NS}><si><t>&i;</t></si><si><t>&x;</t></si></sst>'),
    ('xl/worksheets/sheet1.xml', sheet(HEADER + '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c></row>'))])
# A sheet whose XML breaks off inside a row.
workbook('xlsx-malformed-sheet.xlsx', f'<?xml version="1.0"?><worksheet {NS}><sheetData>{HEADER}<row r="2"><c r="A2" t="inlineStr"><is><t>Milk')
# A sheet stored unpacked whose bytes changed after it was written (a disk or a transfer at fault):
# the checksum says so.
write('xlsx-checksum.xlsx', [('[Content_Types].xml', TYPES), ('xl/workbook.xml', WORKBOOK),
                             ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml'))])
with zipfile.ZipFile(os.path.join(HERE, 'xlsx-checksum.xlsx'), 'a', zipfile.ZIP_STORED) as archive:
    info = zipfile.ZipInfo('xl/worksheets/sheet1.xml', date_time=STAMP)
    archive.writestr(info, sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}{inline("B2", "l")}</row>'))
path = os.path.join(HERE, 'xlsx-checksum.xlsx')
with open(path, 'rb') as f:
    data = f.read()
with open(path, 'wb') as f:
    f.write(data.replace(b'<t>Milk</t>', b'<t>Mylk</t>'))
# Two columns of one name: the second would never be read.
workbook('xlsx-duplicate-header.xlsx', sheet(f'<row r="1">{inline("A1", "name")}{inline("B1", "unit")}{inline("C1", " name ")}</row>'
                                             f'<row r="2">{inline("A2", "Milk")}{inline("B2", "l")}{inline("C2", "Oat milk")}</row>'))
# A Numbers document saved with an .xlsx name.
write('xlsx-numbers-document.xlsx', [('Index/Document.iwa', b'\x01\x02\x03'), ('Metadata/Properties.plist', '<plist/>')])

# An old binary .xls (a Compound File): its signature, then nothing more is needed.
with open(os.path.join(HERE, 'xlsx-old-xls.xlsx'), 'wb') as f:
    f.write(bytes([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) + bytes(504))
# An .xlsx encrypted with a password, which Excel saves as a Compound File whose directory names
# the streams EncryptionInfo and EncryptedPackage (in UTF-16): the signature, then a directory entry.
with open(os.path.join(HERE, 'xlsx-encrypted.xlsx'), 'wb') as f:
    entry = 'EncryptedPackage'.encode('utf-16-le').ljust(64, b'\0') + bytes(64)
    f.write(bytes([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) + bytes(504) + entry)
# A CSV renamed .xlsx.
with open(os.path.join(HERE, 'xlsx-not-a-zip.xlsx'), 'w') as f:
    f.write('name,unit\nMilk,l\n')
# A workbook cut off after its first 530 bytes, as an interrupted download leaves it.
with open(os.path.join(HERE, 'xlsx-error-cell.xlsx'), 'rb') as f:
    whole = f.read()
with open(os.path.join(HERE, 'xlsx-truncated.xlsx'), 'wb') as f:
    f.write(whole[:530])

# The sheet parser's own refusals, stopped from inside a libxml2 callback: each says why, in the
# release build too (which once said "libxml2 stopped reading it (error 111)" for them all).
SHARED = f'<?xml version="1.0"?><sst {NS}><si><t>Milk</t></si></sst>'
write('xlsx-shared-string-out-of-range.xlsx', [
    ('[Content_Types].xml', TYPES), ('xl/workbook.xml', WORKBOOK), ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml')),
    ('xl/sharedStrings.xml', SHARED),
    ('xl/worksheets/sheet1.xml', sheet(HEADER + '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>7</v></c></row>'))])
# A string cell in a workbook without shared strings.
workbook('xlsx-shared-string-missing.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}<c r="B2" t="s"><v>0</v></c></row>'))
workbook('xlsx-cell-past-xfd.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}{inline("XFE2", "l")}</row>'))
workbook('xlsx-row-past-last.xlsx', sheet(HEADER + f'<row r="1048577">{inline("A1048577", "Milk")}{inline("B1048577", "l")}</row>'))
# A cell reference holding C1 controls (XML allows them; U+009B is a terminal's CSI): the message
# quotes the reference with them escaped, never raw.
CONTROLS = 'XFE2\u009b2J\u009d0;pwned\u009c'
workbook('xlsx-control-characters.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}{inline(CONTROLS, "l")}</row>'))

# DOCTYPEs a text scan missed (issue 38): refused on libxml2's own event for them.
# A comment holding `<a` before the DOCTYPE of the workbook part, whose internal entity names the sheet.
write('xlsx-doctype-after-comment.xlsx', [
    ('[Content_Types].xml', TYPES), ('_rels/.rels', '<?xml version="1.0"?><!--<a--><!DOCTYPE Relationships [<!ENTITY t "xl/workbook.xml">]>'
     '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
     '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="&t;"/>'
     '</Relationships>'),
    ('xl/workbook.xml', WORKBOOK), ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml')),
    ('xl/worksheets/sheet1.xml', sheet(HEADER))])
# The styles part in UTF-16 (with its byte order mark), declaring an entity.
STYLES16 = (f'<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE styleSheet [<!ENTITY f "14">]><styleSheet {NS}>'
            '<cellXfs count="1"><xf numFmtId="&f;"/></cellXfs></styleSheet>').encode('utf-16')
workbook('xlsx-doctype-utf16.xlsx', sheet(HEADER), extra=[('xl/styles.xml', STYLES16)])

# Budgets (issue 38): each a few KB that once took gigabytes.
# 40,000 rows of one cell at XFD: once a 16,384-slot array a row (4.8 GB); now read as the cells
# present, up to the error cell in the last row, which fails the run (on_reject: fail).
workbook('xlsx-cells-at-xfd.xlsx', sheet(HEADER + ''.join(f'<row r="{r}">{inline(f"XFD{r}", "x")}</row>' for r in range(2, 40002))
                                         + f'<row r="40002">{inline("A40002", "Milk")}<c r="B40002" t="e"><v>#N/A</v></c></row>'))
# A number of 2,000 digits.
workbook('xlsx-long-number.xlsx', sheet(HEADER + f'<row r="2">{inline("A2", "Milk")}<c r="B2"><v>{"9" * 2000}</v></c></row>'))
# 10,001 sheets.
write('xlsx-many-sheets.xlsx', [
    ('[Content_Types].xml', TYPES),
    ('xl/workbook.xml', f'<?xml version="1.0"?><workbook {NS} {REL}><sheets>'
     + ''.join(f'<sheet name="S{i}" sheetId="{i}" r:id="rId1"/>' for i in range(1, 10_002)) + '</sheets></workbook>'),
    ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml')), ('xl/worksheets/sheet1.xml', sheet(HEADER))])
# A header cell of 1,025 bytes: past the 1,024 a header name may have.
workbook('xlsx-header-name-too-long.xlsx', sheet(f'<row r="1">{inline("A1", "name")}{inline("B1", "u" * 1025)}</row>'
                                                 + f'<row r="2">{inline("A2", "Milk")}{inline("B2", "l")}</row>'))
# 100,000 sheets (491 KB, as the attack's): refused as the workbook part is parsed, at the 10,001st.
write('xlsx-100k-sheets.xlsx', [
    ('[Content_Types].xml', TYPES),
    ('xl/workbook.xml', f'<?xml version="1.0"?><workbook {NS} {REL}><sheets>'
     + ''.join(f'<sheet name="S{i}" sheetId="{i}" r:id="rId1"/>' for i in range(1, 100_001)) + '</sheets></workbook>'),
    ('xl/_rels/workbook.xml.rels', rels('worksheets/sheet1.xml')), ('xl/worksheets/sheet1.xml', sheet(HEADER))])
