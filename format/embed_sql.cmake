# embed_sql.cmake - turn a SQL file into a C string: cmake -DIN=... -DOUT=...
# -DNAME=... -P embed_sql.cmake.  The collector applies format/schema.sql from
# this copy, so the schema has one source.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* generated from ${IN} by embed_sql.cmake: do not edit */\n"
  "const char ${NAME}[] = {${bytes} 0};\n")
