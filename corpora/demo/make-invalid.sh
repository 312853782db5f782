#!/usr/bin/env bash
# Writes the invalid demo files, byte by byte, so that nobody has to edit
# binary files by hand. Run from anywhere; the files land in invalid/.
# Each shows an error met in real data.
set -euo pipefail
cd "$(dirname "$0")/invalid"

# A CSV saved as Latin-1 (ISO 8859-1) instead of UTF-8: é is E9, ü is FC,
# ç is E7, single bytes that UTF-8 reads as lead bytes or never uses.
printf 'id,name,city\n1,Jos\xE9 M\xFCller,Z\xFCrich\n2,Fran\xE7oise,Besan\xE7on\n' \
    > customers-latin1.csv

# Text cut at a byte count in the middle of a character (here by head -c),
# as splitting a file into fixed-size parts does: it ends with F0 9F, the
# first half of the 4-byte 👋 (F0 9F 91 8B).
printf 'Packed in K\xC3\xB6ln, see you soon \xF0\x9F\x91\x8B\n' | head -c 32 > truncated.txt

# Three mix-ups in one file: Windows-1252 quotation marks (93, 94: bytes
# that only continue a character in UTF-8); an emoji written as two UTF-16
# surrogates, each encoded on its own (CESU-8, as older Java and MySQL
# "utf8" produce: ED A0 BD ED B8 80 for 😀); and an overlong slash (C0 AF),
# the classic trick to smuggle "/" past a filter.
printf 'quote: \x93hello\x94\nsmile: \xED\xA0\xBD\xED\xB8\x80\npath: ..\xC0\xAF..\xC0\xAFetc\n' \
    > mixed-up.txt
