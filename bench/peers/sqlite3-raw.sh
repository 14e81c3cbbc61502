#!/usr/bin/env bash
# Peer: the sqlite3 shell's `.import` alone, into one table of six text columns: no trimming, no
# types, no duplicates removed, no related tables. What loading costs before doing the job; its
# content is not the job's, so it has no digest to compare. Usage: sqlite3-raw.sh INPUT.csv OUTPUT.sqlite
set -euo pipefail
input=$1 output=$2
delimiter=';'; head -1 "$input" | grep -q ';' || delimiter=','
rm -f "$output"
sqlite3 -bail "$output" >/dev/null <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = NORMAL;
CREATE TABLE raw (name TEXT, quantity TEXT, unit TEXT, locationathome TEXT, locationatshop TEXT, added TEXT);
.mode csv
.separator "$delimiter"
.import --skip 1 '$input' raw
SQL
