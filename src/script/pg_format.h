// printf as pgbench prints: PostgreSQL's own snprintf (src/port/snprintf.c)
// rather than the C library's.
//
// pgbench is built against PostgreSQL's snprintf, which differs from glibc's
// in one way that shows in pgbench's output: a non-finite double prints as
// "NaN" (never signed), "Infinity" or "-Infinity" under every floating
// conversion (%f, %g, %e, ...; precision and zero padding are ignored, field
// width and "-" still apply), where glibc prints "nan", "-nan", "inf",
// "-inf".  Users compare pgrig's output with pgbench's (debug() lines,
// "number of failed transactions: 0 (NaN%)"), so texts that copy a pgbench
// message go through these functions.  Finite values and every other
// conversion are formatted by the C library, exactly as before.
//
// Pure functions; thread-safe.
#ifndef PGRIG_SCRIPT_PG_FORMAT_H_
#define PGRIG_SCRIPT_PG_FORMAT_H_

#include <cstdarg>
#include <string>

namespace pgrig::script {

// PostgreSQL's spelling of a non-finite double: "NaN", "Infinity" or
// "-Infinity"; nullptr when d is finite.
const char* PgNonFiniteText(double d);

// Appends printf(fmt, ...) to *out with the rules above.  Supports the C99
// conversions and length modifiers, "*" widths and precisions; "%n" is not
// supported (its argument is consumed and nothing is written).
__attribute__((format(printf, 2, 3))) void PgAppendf(std::string* out, const char* fmt, ...);
void PgVAppendf(std::string* out, const char* fmt, va_list ap);

// The same, returning the text.
__attribute__((format(printf, 1, 2))) std::string PgFormat(const char* fmt, ...);

}  // namespace pgrig::script

#endif  // PGRIG_SCRIPT_PG_FORMAT_H_
