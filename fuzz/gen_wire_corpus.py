#!/usr/bin/env python3
"""Writes the seed inputs of wire_fuzzer (fuzz/wire_fuzzer.cc) into a directory.

Each seed is what a PostgreSQL 15 server sends for one exchange of the
engine's lean protocol path, built message by message as the protocol
documentation describes them (type byte, big-endian int32 length including
itself, body), with the fields and texts real servers send for pgbench's
workloads: the session start, simple and extended query results, the errors
the engine retries (40001, 40P01) and aborts on, notices, PL/pgSQL errors
with an internal query, and a few broken streams.

The fuzzer's input is: a flags byte (bit 0 UTF-8, bit 1 query known, bits
2..7 chunk seed), the query length (one byte), the query text, the stream.

Usage: fuzz/gen_wire_corpus.py OUTDIR   (the committed seeds were made by
running it on fuzz/corpus/wire_fuzzer before any fuzzing).
"""
import os
import struct
import sys


def msg(t, body=b""):
    return t.encode() + struct.pack("!I", len(body) + 4) + body


def cstr(s):
    return (s.encode() if isinstance(s, str) else s) + b"\0"


def ready(status="I"):
    return msg("Z", status.encode())


def row_description(cols):
    body = struct.pack("!h", len(cols))
    for name, type_oid in cols:
        body += cstr(name) + struct.pack("!IhIhih", 0, 0, type_oid, 4, -1, 0)
    return msg("T", body)


def data_row(values):
    body = struct.pack("!h", len(values))
    for v in values:
        if v is None:
            body += struct.pack("!i", -1)
        else:
            b = v.encode()
            body += struct.pack("!i", len(b)) + b
    return msg("D", body)


def complete(tag):
    return msg("C", cstr(tag))


def fields(kind, pairs):
    body = b"".join(code.encode() + cstr(value) for code, value in pairs) + b"\0"
    return msg(kind, body)


def error(pairs):
    return fields("E", pairs)


def notice(pairs):
    return fields("N", pairs)


def param(name, value):
    return msg("S", cstr(name) + cstr(value))


def seed(query, stream, utf8=True, known=True, chunk=0):
    q = (query.encode() if isinstance(query, str) else query)[:255]
    flags = (1 if utf8 else 0) | (2 if known else 0) | ((chunk & 63) << 2)
    return bytes([flags, len(q)]) + q + stream


def seeds():
    tpcb_update = "UPDATE pgbench_accounts SET abalance = abalance + -4321 WHERE aid = 77;"
    start = (msg("R", struct.pack("!I", 0)) +
             param("application_name", "pgbench") + param("client_encoding", "UTF8") +
             param("DateStyle", "ISO, MDY") + param("integer_datetimes", "on") +
             param("IntervalStyle", "postgres") + param("is_superuser", "on") +
             param("server_encoding", "UTF8") + param("server_version", "15.10") +
             param("session_authorization", "pgrig") +
             param("standard_conforming_strings", "on") + param("TimeZone", "Etc/UTC") +
             msg("K", struct.pack("!II", 4242, 0x1234abcd)) + ready())
    yield "session-start", seed("", start)
    yield "select-1-simple", seed("SELECT 1;", row_description([("?column?", 23)]) +
                                  data_row(["1"]) + complete("SELECT 1") + ready())
    yield "tpcb-simple", seed(
        "BEGIN;", complete("BEGIN") + ready("T") + complete("UPDATE 1") + ready("T") +
        row_description([("abalance", 23)]) + data_row(["-4321"]) + complete("SELECT 1") +
        ready("T") + complete("INSERT 0 1") + ready("T") + complete("COMMIT") + ready(), chunk=5)
    yield "select-only-extended", seed(
        "SELECT abalance FROM pgbench_accounts WHERE aid = $1;",
        msg("1") + msg("2") + row_description([("abalance", 23)]) + data_row(["0"]) +
        complete("SELECT 1") + ready(), chunk=9)
    yield "prepared-pipeline", seed(
        "", msg("2") + row_description([("a", 23), ("b", 25)]) + data_row(["1", None]) +
        data_row(["2", "zwei"]) + complete("SELECT 2") + msg("2") + msg("n") +
        complete("UPDATE 3") + msg("2") + msg("n") + msg("I") + ready(), known=False, chunk=17)
    yield "gset-row", seed("SELECT 1 AS one, 'x' AS s \\gset", row_description(
        [("one", 23), ("s", 25)]) + data_row(["1", "x"]) + complete("SELECT 1") + ready())
    yield "serialization-failure", seed(tpcb_update, error([
        ("S", "ERROR"), ("V", "ERROR"), ("C", "40001"),
        ("M", "could not serialize access due to concurrent update"),
        ("F", "nodeModifyTable.c"), ("L", "2820"), ("R", "ExecUpdate")]) + ready("E"))
    yield "deadlock", seed(tpcb_update, error([
        ("S", "ERROR"), ("V", "ERROR"), ("C", "40P01"), ("M", "deadlock detected"),
        ("D", "Process 1234 waits for ShareLock on transaction 5678; blocked by process 4321.\n"
              "Process 4321 waits for ShareLock on transaction 5677; blocked by process 1234."),
        ("H", "See server log for query details."),
        ("W", "while updating tuple (0,7) in relation \"pgbench_accounts\""),
        ("F", "deadlock.c"), ("L", "1148"), ("R", "DeadLockReport")]) + ready("E"), chunk=3)
    yield "syntax-error-position", seed("SELECT 1 +;\n-- second line\n", error([
        ("S", "ERROR"), ("V", "ERROR"), ("C", "42601"),
        ("M", "syntax error at or near \";\""), ("P", "11"), ("F", "scan.l"), ("L", "1188"),
        ("R", "scanner_yyerror")]) + ready())
    yield "error-position-multiline-utf8", seed(
        "SELECT 'ä日本語',\r\n\t  nosuch\n FROM t;", error([
            ("S", "ERROR"), ("V", "ERROR"), ("C", "42703"),
            ("M", "column \"nosuch\" does not exist"), ("P", "24"),
            ("F", "parse_relation.c"), ("L", "3643"), ("R", "errorMissingColumn")]) + ready())
    yield "error-position-latin1", seed(b"SELECT 'caf\xe9' + nosuch", error([
        ("S", "ERROR"), ("C", "42703"), ("M", "column \"nosuch\" does not exist"),
        ("P", "19")]) + ready(), utf8=False)
    long_query = "SELECT " + ", ".join("col%d" % i for i in range(40)) + " FROM wide;"
    yield "error-position-long-line", seed(long_query, error([
        ("S", "ERROR"), ("C", "42703"), ("M", "column \"col20\" does not exist"),
        ("P", "150")]) + ready())
    yield "error-position-unknown-query", seed("", error([
        ("S", "ERROR"), ("C", "42P01"), ("M", "relation \"nosuch\" does not exist"),
        ("P", "15")]) + ready(), known=False)
    yield "plpgsql-internal-query", seed("SELECT f(1);", error([
        ("S", "ERROR"), ("V", "ERROR"), ("C", "22012"), ("M", "division by zero"),
        ("p", "8"), ("q", "SELECT 1/$1 - 1/0"),
        ("W", "PL/pgSQL function f(integer) line 3 at RETURN"),
        ("F", "int.c"), ("L", "841"), ("R", "int4div")]) + ready())
    yield "notice-then-result", seed("DROP TABLE IF EXISTS nosuch;", notice([
        ("S", "NOTICE"), ("V", "NOTICE"), ("C", "00000"),
        ("M", "table \"nosuch\" does not exist, skipping"), ("F", "tablecmds.c"),
        ("L", "1294"), ("R", "DropErrorMsgNonExistent")]) + complete("DROP TABLE") + ready())
    yield "raise-notice-context", seed("DO $$BEGIN RAISE NOTICE 'hi %', 1; END$$;", notice([
        ("S", "NOTICE"), ("V", "NOTICE"), ("C", "00000"), ("M", "hi 1"),
        ("W", "PL/pgSQL function inline_code_block line 1 at RAISE")]) + complete("DO") + ready())
    yield "fatal-terminate", seed("", error([
        ("S", "FATAL"), ("V", "FATAL"), ("C", "57P01"),
        ("M", "terminating connection due to administrator command")]), known=False)
    yield "aborted-transaction", seed("SELECT 1;", error([
        ("S", "ERROR"), ("C", "25P02"),
        ("M", "current transaction is aborted, commands ignored until end of transaction block")]) +
        ready("E"))
    yield "notification-and-param", seed("", msg("A", struct.pack("!I", 99) + cstr("chan") +
                                                cstr("payload")) +
                                         param("is_superuser", "off") + ready(), chunk=1)
    yield "copy-and-suspended", seed("", msg("s") + msg("G", b"\0\0\0") + msg("d", b"1\t2\n") +
                                     msg("c") + complete("COPY 1") + ready(), chunk=33)
    yield "bad-length", seed("", complete("SELECT 1") + b"Z\0\0\0\x02I" + ready())
    yield "truncated", seed("", complete("UPDATE 1") + ready()[:-2])
    yield "huge-length", seed("", b"D\x7f\xff\xff\xff\0\x01")
    yield "error-without-terminator", seed("SELECT 1", msg("E", b"SERROR\0MnoNul"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_wire_corpus.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
